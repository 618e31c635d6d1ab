#include "tuner/device_target.h"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/codegen/host_target.h"
#include "common/strings.h"
#include "proto/arm_cpus.h"
#include "proto/hardware_facts.h"

namespace tunefarm::tuner {
namespace {

// Whether the facts are this machine's own (the embedded farm's agent, or one beside the tuner):
// the host target then, with everything LLVM knows about this CPU.
bool DescribesThisMachine(const v1::HardwareFacts& facts) {
  static const v1::HardwareFacts host = wire::ReadHardwareFacts();
  const std::set<std::string> flags(facts.isa_flags().begin(), facts.isa_flags().end());
  const std::set<std::string> host_flags(host.isa_flags().begin(), host.isa_flags().end());
  return facts.arch() == host.arch() && facts.cpu_model() == host.cpu_model() && flags == host_flags;
}

// cpuinfo flag -> LLVM feature, for what changes vector code generation.
const std::map<std::string, std::string>& FeatureNames(const codegen::Target& t) {
  static const std::map<std::string, std::string> kX86 = {
      {"sse4_1", "+sse4.1"}, {"sse4_2", "+sse4.2"}, {"avx", "+avx"}, {"avx2", "+avx2"},
      {"fma", "+fma"},       {"f16c", "+f16c"},     {"bmi1", "+bmi"}, {"bmi2", "+bmi2"}};
  // AArch64 "Features". SVE is left out: codegen targets NEON's fixed 128-bit vectors.
  static const std::map<std::string, std::string> kAArch64 = {
      {"asimd", "+neon"},  {"fphp", "+fullfp16"}, {"asimdhp", "+fullfp16"}, {"asimddp", "+dotprod"},
      {"i8mm", "+i8mm"},   {"bf16", "+bf16"}};
  static const std::map<std::string, std::string> kNone;
  return t.IsX86() ? kX86 : t.IsAArch64() ? kAArch64 : kNone;
}

codegen::Target GenericTarget(const v1::HardwareFacts& facts) {
  codegen::Target t;
  t.triple = codegen::CanonicalTriple(StrCat(facts.arch(), "-linux-gnu"));
  // An ARM core LLVM knows by name gets its scheduling model; an unknown one is a generic
  // aarch64 (`tunefarm devices` warns about it).
  if (t.IsAArch64()) t.cpu = wire::ArmCpuName(facts.cpu_vendor(), facts.cpu_part());
  std::set<std::string> features;
  for (const std::string& flag : facts.isa_flags()) {
    auto it = FeatureNames(t).find(flag);
    if (it != FeatureNames(t).end()) features.insert(it->second);
  }
  t.features.assign(features.begin(), features.end());
  t.num_cores = std::max(facts.physical_cores(), 0);
  t.l1d_cache_bytes = std::max<int64_t>(facts.l1d_cache_bytes(), 0);
  t.l2_cache_bytes = std::max<int64_t>(facts.l2_cache_bytes(), 0);
  t.l3_cache_bytes = std::max<int64_t>(facts.l3_cache_bytes(), 0);
  return t;
}

// A GPU agent's device: "cuda -arch=sm_NN" with the limits it reported.
absl::StatusOr<codegen::Target> GpuTarget(const v1::GpuFacts& gpu) {
  const std::string& cc = gpu.compute_capability();
  const size_t dot = cc.find('.');
  int64_t major = 0, minor = 0;
  if (dot == std::string::npos || !ParseInt64(std::string_view(cc).substr(0, dot), &major) ||
      !ParseInt64(std::string_view(cc).substr(dot + 1), &minor) || major < 1 || minor < 0 || minor > 9) {
    return absl::FailedPreconditionError(
        StrCat("GPU '", gpu.name(), "' reports compute capability '", cc, "', not MAJOR.MINOR"));
  }
  codegen::Target t;
  t.kind = "cuda";
  t.triple = "nvptx64-nvidia-cuda";
  t.arch = StrCat("sm_", major * 10 + minor);
  t.gpu.max_threads_per_block = std::max(gpu.max_threads_per_block(), 0);
  t.gpu.max_shared_memory_per_block = std::max<int64_t>(gpu.max_shared_memory_per_block(), 0);
  t.gpu.max_registers_per_block = std::max(gpu.max_registers_per_block(), 0);
  t.gpu.num_sms = std::max(gpu.multiprocessors(), 0);
  return codegen::Target::Parse(t.ToString());
}

}  // namespace

absl::StatusOr<codegen::Target> TargetForDevice(const v1::HardwareFacts& facts,
                                                const std::string& requested) {
  if (!requested.empty()) return codegen::Target::Parse(requested);
  // A GPU agent measures on its GPU, whatever CPU hosts it.
  if (facts.gpus_size() > 0) return GpuTarget(facts.gpus(0));
  if (DescribesThisMachine(facts)) return codegen::HostTarget();
  codegen::Target t = GenericTarget(facts);
  if (t.triple.empty()) {
    return absl::FailedPreconditionError(
        StrCat("device architecture '", facts.arch(), "' has no code generator; give the job a target"));
  }
  // Round-trip through the parser so the string is canonical whatever was filled in.
  return codegen::Target::Parse(t.ToString());
}

}  // namespace tunefarm::tuner
