#include "compiler/codegen/target.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>

#include "absl/status/status.h"
#include "common/strings.h"

namespace tunefarm::codegen {
namespace {

absl::Status Invalid(std::string_view text, const std::string& why) {
  return absl::InvalidArgumentError(StrCat("bad target \"", text, "\": ", why));
}

// x86 cpus with 256-bit vectors (AVX/AVX2; the AVX-512 parts too when -avx512f is asked for).
constexpr std::array<std::string_view, 40> kAvxCpus = {
    "sandybridge",    "ivybridge",      "corei7-avx",    "core-avx-i",      "haswell",
    "core-avx2",      "broadwell",      "skylake",       "skylake-avx512",  "cascadelake",
    "cooperlake",     "cannonlake",     "icelake-client", "icelake-server", "tigerlake",
    "rocketlake",     "alderlake",      "raptorlake",    "meteorlake",      "arrowlake",
    "arrowlake-s",    "lunarlake",      "pantherlake",   "gracemont",       "sierraforest",
    "grandridge",     "clearwaterforest", "sapphirerapids", "emeraldrapids", "graniterapids",
    "graniterapids-d", "diamondrapids", "znver1",        "znver2",          "znver3",
    "znver4",         "znver5",         "x86-64-v3",     "x86-64-v4",       "bdver4",
};

// CPUs with AVX-512, whose kernels use 512-bit vectors unless -avx512f is asked for. LLVM
// prefers 256 bits on Intel's parts for general code, since the first of them (Skylake-SP)
// lowered their clock for wide vectors; for dense kernels 512 bits win on every later part:
// resnet18's default kernels ran 8.5 ms at 512 bits and 13.9 ms at 256 on a Xeon that LLVM
// names rocketlake (2 threads), where ONNX Runtime, which uses AVX-512, took 8.9 ms.
constexpr std::array<std::string_view, 16> kAvx512Cpus = {
    "skylake-avx512", "cascadelake",    "cooperlake",      "cannonlake", "icelake-client", "icelake-server",
    "tigerlake",      "rocketlake",     "sapphirerapids",  "emeraldrapids", "graniterapids", "graniterapids-d",
    "diamondrapids",  "znver4",         "znver5",          "x86-64-v4"};

bool IsValidFeatureName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool ParsePositive(std::string_view value, int64_t* out) { return ParseInt64(value, out) && *out > 0; }

// "-key=value" words after the kind: each key once, no empty value.
absl::Status ForEachKeyValue(std::string_view text, const std::vector<std::string_view>& words,
                             const std::function<absl::Status(std::string_view, std::string_view)>& take) {
  std::vector<std::string_view> seen_keys;
  for (size_t i = 1; i < words.size(); ++i) {
    std::string_view word = words[i];
    size_t eq = word.find('=');
    if (word.size() < 2 || word[0] != '-' || eq == std::string_view::npos) {
      return Invalid(text, StrCat("expected -key=value, got \"", word, "\""));
    }
    std::string_view key = word.substr(0, eq);
    std::string_view value = word.substr(eq + 1);
    if (std::find(seen_keys.begin(), seen_keys.end(), key) != seen_keys.end()) {
      return Invalid(text, StrCat("duplicate key ", key));
    }
    seen_keys.push_back(key);
    if (value.empty()) return Invalid(text, StrCat("empty value for ", key));
    if (absl::Status s = take(key, value); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// "cuda -arch=sm_NN [limits]". Whether LLVM knows the arch is checked by the code generator.
absl::StatusOr<Target> ParseCuda(std::string_view text, const std::vector<std::string_view>& words) {
  Target t;
  t.kind = "cuda";
  t.triple = "nvptx64-nvidia-cuda";
  absl::Status s = ForEachKeyValue(text, words, [&](std::string_view key, std::string_view value) {
    int64_t number = 0;
    auto positive = [&](int64_t max) -> absl::Status {
      if (!ParsePositive(value, &number) || number > max) {
        return Invalid(text, StrCat(key, " must be an integer in [1, ", max, "], got \"", value, "\""));
      }
      return absl::OkStatus();
    };
    if (key == "-arch") {
      std::string_view digits = StartsWith(value, "sm_") ? value.substr(3) : std::string_view();
      if (!ParsePositive(digits, &number) || number < 10 || number > 999) {
        return Invalid(text, StrCat("-arch must be sm_NN (a compute capability, e.g. sm_80), got \"", value, "\""));
      }
      t.arch = StrCat("sm_", number);  // canonical: sm_090 and sm_90 are one key
      return absl::OkStatus();
    }
    if (key == "-max-threads-per-block") {
      if (absl::Status p = positive(1 << 16); !p.ok()) return p;
      t.gpu.max_threads_per_block = static_cast<int>(number);
    } else if (key == "-max-shared-memory-per-block") {
      if (absl::Status p = positive(int64_t{1} << 30); !p.ok()) return p;
      t.gpu.max_shared_memory_per_block = number;
    } else if (key == "-max-registers-per-block") {
      if (absl::Status p = positive(1 << 24); !p.ok()) return p;
      t.gpu.max_registers_per_block = static_cast<int>(number);
    } else if (key == "-num-sms") {
      if (absl::Status p = positive(1 << 16); !p.ok()) return p;
      t.gpu.num_sms = static_cast<int>(number);
    } else {
      return Invalid(text, StrCat("unknown key ", key, " for a cuda target (known: -arch -max-threads-per-block "
                                  "-max-shared-memory-per-block -max-registers-per-block -num-sms)"));
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  if (t.arch.empty()) return Invalid(text, "missing -arch=sm_NN");
  return t;
}

}  // namespace

std::string CanonicalTriple(std::string_view triple) {
  std::vector<std::string_view> parts = StrSplit(triple, '-');
  if (parts.size() < 2) return "";
  std::string arch(parts[0]);
  if (arch == "amd64") arch = "x86_64";
  if (arch == "arm64") arch = "aarch64";
  if (arch != "x86_64" && arch != "aarch64") return "";
  // The vendor field carries no information for codegen: drop "unknown"/"pc" so every
  // spelling of the same triple prints the same.
  size_t first = 1;
  if (parts.size() >= 3 && (parts[1] == "unknown" || parts[1] == "pc")) first = 2;
  std::string out = arch;
  for (size_t i = first; i < parts.size(); ++i) {
    if (parts[i].empty()) return "";
    StrAppend(&out, "-", parts[i]);
  }
  return out;
}

absl::StatusOr<Target> Target::Parse(std::string_view text) {
  std::vector<std::string_view> words = StrSplit(text, ' ', /*skip_empty=*/true);
  if (words.empty()) return Invalid(text, "empty target string");
  if (words[0] == "cuda") return ParseCuda(text, words);
  if (words[0] != "llvm") {
    return Invalid(text, StrCat("unknown target kind \"", words[0], "\" (supported: llvm, cuda)"));
  }
  Target t;
  std::map<std::string, char, std::less<>> features;  // name -> '+' or '-'
  absl::Status s = ForEachKeyValue(text, words, [&](std::string_view key, std::string_view value) {
    int64_t number = 0;
    if (key == "-mtriple") {
      t.triple = CanonicalTriple(value);
      if (t.triple.empty()) {
        return Invalid(text, StrCat("unsupported triple \"", value,
                                    "\" (supported architectures: x86_64, aarch64)"));
      }
    } else if (key == "-mcpu") {
      t.cpu = value == "generic" ? "" : std::string(value);
      if (!IsValidFeatureName(t.cpu) && !t.cpu.empty()) {
        return Invalid(text, StrCat("malformed cpu name \"", value, "\""));
      }
    } else if (key == "-mattr") {
      for (std::string_view f : StrSplit(value, ',')) {
        if (f.size() < 2 || (f[0] != '+' && f[0] != '-') || !IsValidFeatureName(f.substr(1))) {
          return Invalid(text, StrCat("feature \"", f, "\" must be +name or -name"));
        }
        auto [it, inserted] = features.emplace(std::string(f.substr(1)), f[0]);
        if (!inserted && it->second != f[0]) {
          return Invalid(text, StrCat("feature ", f.substr(1), " is both enabled and disabled"));
        }
      }
    } else if (key == "-num-cores") {
      if (!ParsePositive(value, &number) || number > (1 << 20)) {
        return Invalid(text, StrCat("-num-cores must be a positive integer, got \"", value, "\""));
      }
      t.num_cores = static_cast<int>(number);
    } else if (key == "-l1d-cache" || key == "-l2-cache" || key == "-l3-cache") {
      if (!ParsePositive(value, &number)) {
        return Invalid(text, StrCat(key, " must be a positive byte count, got \"", value, "\""));
      }
      (key == "-l1d-cache" ? t.l1d_cache_bytes
                           : key == "-l2-cache" ? t.l2_cache_bytes : t.l3_cache_bytes) = number;
    } else {
      return Invalid(text, StrCat("unknown key ", key,
                                  " (known: -mtriple -mcpu -mattr -num-cores -l1d-cache "
                                  "-l2-cache -l3-cache)"));
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  if (t.triple.empty()) return Invalid(text, "missing -mtriple=...");
  for (const auto& [name, sign] : features) t.features.push_back(StrCat(sign, name));
  return t;
}

std::string Target::ToString() const {
  if (IsCuda()) {
    std::string out = StrCat(kind, " -arch=", arch);
    if (gpu.max_threads_per_block > 0) StrAppend(&out, " -max-threads-per-block=", gpu.max_threads_per_block);
    if (gpu.max_shared_memory_per_block > 0) {
      StrAppend(&out, " -max-shared-memory-per-block=", gpu.max_shared_memory_per_block);
    }
    if (gpu.max_registers_per_block > 0) StrAppend(&out, " -max-registers-per-block=", gpu.max_registers_per_block);
    if (gpu.num_sms > 0) StrAppend(&out, " -num-sms=", gpu.num_sms);
    return out;
  }
  std::string out = StrCat(kind, " -mtriple=", triple);
  if (!cpu.empty()) StrAppend(&out, " -mcpu=", cpu);
  if (!features.empty()) StrAppend(&out, " -mattr=", StrJoin(features, ","));
  if (num_cores > 0) StrAppend(&out, " -num-cores=", num_cores);
  if (l1d_cache_bytes > 0) StrAppend(&out, " -l1d-cache=", l1d_cache_bytes);
  if (l2_cache_bytes > 0) StrAppend(&out, " -l2-cache=", l2_cache_bytes);
  if (l3_cache_bytes > 0) StrAppend(&out, " -l3-cache=", l3_cache_bytes);
  return out;
}

bool Target::IsAArch64() const { return StartsWith(triple, "aarch64"); }
bool Target::IsX86() const { return StartsWith(triple, "x86_64"); }

bool Target::HasFeature(std::string_view name) const {
  return std::find(features.begin(), features.end(), StrCat("+", name)) != features.end();
}

int Target::VectorRegisters() const { return IsAArch64() || VectorBits() >= 512 ? 32 : 16; }

int Target::SmVersion() const {
  int64_t version = 0;
  return IsCuda() && arch.size() > 3 && ParseInt64(std::string_view(arch).substr(3), &version)
             ? static_cast<int>(version)
             : 0;
}

int Target::VectorBits() const {
  if (IsCuda()) return 32;  // a thread computes one 32-bit lane; width comes from threads
  if (!IsX86()) return 128;  // AArch64 NEON (SVE is not used)
  if (HasFeature("avx512f")) return 512;
  bool disabled_avx512 = std::find(features.begin(), features.end(), "-avx512f") != features.end();
  if (!disabled_avx512 &&
      std::find(kAvx512Cpus.begin(), kAvx512Cpus.end(), cpu) != kAvx512Cpus.end()) {
    return 512;
  }
  bool disabled_avx = std::find(features.begin(), features.end(), "-avx") != features.end();
  if (disabled_avx) return 128;
  bool avx_cpu = std::find(kAvxCpus.begin(), kAvxCpus.end(), cpu) != kAvxCpus.end();
  if (avx_cpu || HasFeature("avx") || HasFeature("avx2")) return 256;
  return 128;
}

int Target::VectorLanes(te::DType t) const {
  return std::max(1, VectorBits() / (8 * te::DTypeBytes(t)));
}

}  // namespace tunefarm::codegen
