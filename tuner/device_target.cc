#include "tuner/device_target.h"

#include <sys/utsname.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "compiler/codegen/host_target.h"
#include "compiler/common/strings.h"
#include "proto/arm_cpus.h"

namespace tunefarm::tuner {
namespace {

struct HostCpu {
  std::string arch, model;
  std::set<std::string> flags;
};

// The fields of /proc/cpuinfo the agent reports, for the first CPU (x86 "model name" and
// "flags"; ARM "Features", with no model name on many boards).
HostCpu ReadHostCpu() {
  HostCpu cpu;
  utsname u{};
  if (uname(&u) == 0) cpu.arch = u.machine;
  std::ifstream in("/proc/cpuinfo");
  bool have_flags = false;
  for (std::string line; std::getline(in, line);) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t") + 1);
    if (key == "model name" && cpu.model.empty()) cpu.model = value;
    if ((key == "flags" || key == "Features") && !have_flags) {
      std::istringstream words(value);
      for (std::string w; words >> w;) cpu.flags.insert(w);
      have_flags = true;
    }
  }
  return cpu;
}

bool DescribesThisMachine(const v1::HardwareFacts& facts) {
  static const HostCpu host = ReadHostCpu();
  std::set<std::string> flags(facts.isa_flags().begin(), facts.isa_flags().end());
  return facts.arch() == host.arch && facts.cpu_model() == host.model && flags == host.flags;
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

}  // namespace

absl::StatusOr<codegen::Target> TargetForDevice(const v1::HardwareFacts& facts,
                                                const std::string& requested) {
  if (!requested.empty()) return codegen::Target::Parse(requested);
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
