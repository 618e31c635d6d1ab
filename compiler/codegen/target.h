// A code generation target, parsed from and printed to one canonical string, e.g.
//   llvm -mtriple=x86_64-linux-gnu -mcpu=znver3
//   llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+crc,-crypto
//   cuda -arch=sm_90 -max-threads-per-block=1024 -num-sms=132
// The canonical string is a database key (DESIGN.md "Target"), so Parse() normalises every
// spelling of the same target to one ToString(): vendor-less triple, features sorted by name,
// defaults left out. This library has no LLVM dependency; the code generator validates cpu and
// feature names against LLVM itself (an unknown cpu is a Status there, not here).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/te/dtype.h"

namespace tunefarm::codegen {

// Limits of one NVIDIA GPU that a launch must respect (a cuda target); 0 means "not given" and
// the accessors below supply the smallest value of every part of the architecture.
struct GpuLimits {
  int max_threads_per_block = 0;             // -max-threads-per-block
  int64_t max_shared_memory_per_block = 0;   // -max-shared-memory-per-block (bytes, static)
  int max_registers_per_block = 0;           // -max-registers-per-block (32-bit registers)
  int num_sms = 0;                           // -num-sms
};

struct Target {
  std::string kind = "llvm";          // "llvm" (a CPU) or "cuda" (an NVIDIA GPU through NVPTX)
  std::string triple;                 // "x86_64-linux-gnu", "aarch64-linux-gnu"; cuda: "nvptx64-nvidia-cuda"
  std::string arch;                   // cuda only: the compute capability, "sm_80", "sm_90", ...
  GpuLimits gpu;                      // cuda only
  std::string cpu;                    // LLVM cpu name; empty means "generic"
  std::vector<std::string> features;  // "+avx2", "-avx512f", ...: sorted by name, no duplicates
  // Hardware facts for the tuner; 0 means "not given" (the accessors below supply defaults).
  // Printed only when given: -num-cores=8 -l1d-cache=32768 -l2-cache=1048576 -l3-cache=...
  int num_cores = 0;
  int64_t l1d_cache_bytes = 0;
  int64_t l2_cache_bytes = 0;
  int64_t l3_cache_bytes = 0;

  // Parses "llvm -key=value ...". Keys: -mtriple (required), -mcpu, -mattr (comma-separated
  // +feature/-feature), -num-cores, -l1d-cache, -l2-cache, -l3-cache. Or "cuda -arch=sm_NN"
  // with the GpuLimits keys. Unknown kinds, keys, architectures, malformed values and
  // conflicting features are InvalidArgument errors.
  static absl::StatusOr<Target> Parse(std::string_view text);

  // The canonical string: "llvm -mtriple=T[ -mcpu=C][ -mattr=F,...][ hardware facts]", or
  // "cuda -arch=sm_NN[ limits]".
  std::string ToString() const;

  bool IsAArch64() const;
  bool IsX86() const;
  bool IsCuda() const { return kind == "cuda"; }
  // The compute capability as a number: 90 for sm_90 (0 for a CPU target).
  int SmVersion() const;
  int MaxThreadsPerBlock() const { return gpu.max_threads_per_block > 0 ? gpu.max_threads_per_block : 1024; }
  int64_t MaxSharedMemoryPerBlock() const {
    return gpu.max_shared_memory_per_block > 0 ? gpu.max_shared_memory_per_block : 48 * 1024;
  }
  int MaxRegistersPerBlock() const { return gpu.max_registers_per_block > 0 ? gpu.max_registers_per_block : 65536; }
  int NumSms() const { return gpu.num_sms > 0 ? gpu.num_sms : 1; }
  // Width of the SIMD registers codegen should fill: 128 on AArch64 (NEON) and on baseline
  // x86-64 (SSE2), 256 on AVX/AVX2 cpus, 512 only when the target explicitly enables
  // +avx512f (AVX-512 cpus default to 256, as LLVM itself prefers on them).
  int VectorBits() const;
  // Elements of `t` per vector register (at least 1).
  int VectorLanes(te::DType t) const;
  // Architectural vector registers: 32 on AArch64 (NEON) and with AVX-512 (when codegen uses
  // 512-bit vectors), else 16 (SSE, AVX, AVX2). What a register tile may fill.
  int VectorRegisters() const;
  bool HasFeature(std::string_view name) const;  // explicitly "+name" in features

  int Cores() const { return num_cores > 0 ? num_cores : 1; }
  int64_t L1dCacheBytes() const { return l1d_cache_bytes > 0 ? l1d_cache_bytes : 32 * 1024; }
  int64_t L2CacheBytes() const { return l2_cache_bytes > 0 ? l2_cache_bytes : 512 * 1024; }
  int64_t L3CacheBytes() const { return l3_cache_bytes > 0 ? l3_cache_bytes : 8 * 1024 * 1024; }

  bool operator==(const Target& other) const { return ToString() == other.ToString(); }
};

// "x86_64-unknown-linux-gnu" -> "x86_64-linux-gnu", "arm64-linux-gnu" -> "aarch64-linux-gnu".
// Returns an empty string for an architecture codegen does not support.
std::string CanonicalTriple(std::string_view triple);

}  // namespace tunefarm::codegen
