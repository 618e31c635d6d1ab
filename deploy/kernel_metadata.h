// The metadata record a kernel library exports as `tunefarm_metadata` (see tunefarm_abi.h and
// docs/kernel-abi.md), parsed into plain structs.
#ifndef TUNEFARM_DEPLOY_KERNEL_METADATA_H_
#define TUNEFARM_DEPLOY_KERNEL_METADATA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deploy/status.h"

namespace tunefarm::deploy {

// The only metadata "format" this runtime reads.
inline constexpr int32_t kMetadataFormat = 1;

enum class ArgRole { kIn, kOut, kParam };

const char* ArgRoleName(ArgRole role);

// Bytes per element of a dtype name ("float32" -> 4), or 0 for a name the runtime does not know.
size_t DTypeBytes(std::string_view dtype);
bool IsIntegerDType(std::string_view dtype);

struct ValueRange {
  int64_t lo = 0;
  int64_t hi = 0;  // inclusive
};

struct ArgInfo {
  std::string name;
  std::string dtype;            // "float32", "int64", ...: a name DTypeBytes knows
  std::vector<int64_t> shape;   // every extent >= 0; empty for a scalar
  ArgRole role = ArgRole::kIn;
  std::optional<ValueRange> range;  // integer args only: the values a kernel accepts
  // Inputs only, empty for most: the entry (of the same library) that makes this argument from
  // a "source" argument of another layout, e.g. weights in the order a tuned kernel's tiles read
  // them. That entry takes [source (in/param), this argument (out)]; a caller that holds the
  // source runs it once, untimed, and passes its output here.
  std::string prepared_by;

  int64_t NumElements() const;
  int64_t NumBytes() const { return NumElements() * static_cast<int64_t>(DTypeBytes(dtype)); }
};

// One kernel launch of a GPU entry (docs/kernel-abi.md "GPU kernel libraries").
struct LaunchInfo {
  std::string kernel;         // the PTX .entry to launch
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  int64_t shared_bytes = 0;   // static shared memory per block
};

struct EntryInfo {
  std::string name;
  uint64_t workspace_bytes = 0;
  std::vector<ArgInfo> args;  // inputs and params, then outputs: the order of `args` in a call
  std::vector<LaunchInfo> launches;  // GPU libraries only, in the order they run; empty on a CPU
};

struct KernelMetadata {
  int32_t format = kMetadataFormat;
  std::string target;  // canonical target string, e.g. "llvm -mtriple=x86_64-linux-gnu"
  std::vector<EntryInfo> entries;

  // The entry named `name`, or null.
  const EntryInfo* FindEntry(std::string_view name) const;
};

// "[1, 3, 224, 224]" (or "[1,3,224,224]" with separator ","): how messages print a shape.
std::string ShapeText(const std::vector<int64_t>& shape, const char* separator = ", ");

// Parses and validates the JSON text. Errors (kBadMetadata) say which field is wrong and why,
// e.g. `entries[0].args[2].role: expected "in", "out" or "param", got "inout"`.
Result<KernelMetadata> ParseKernelMetadata(std::string_view json);

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_KERNEL_METADATA_H_
