#include "device_agent/target_arch.h"

#include <elf.h>

namespace tunefarm::agent {
namespace {

struct ArchName {
  uint16_t machine;
  const char* name;
};

constexpr ArchName kArchNames[] = {
    {EM_X86_64, "x86_64"}, {EM_AARCH64, "aarch64"}, {EM_ARM, "arm"},     {EM_386, "i386"},
    {EM_RISCV, "riscv"},   {EM_PPC64, "powerpc64"}, {EM_S390, "s390x"},  {EM_MIPS, "mips"},
};

}  // namespace

uint16_t HostElfMachine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__arm__)
  return EM_ARM;
#elif defined(__i386__)
  return EM_386;
#elif defined(__riscv)
  return EM_RISCV;
#elif defined(__powerpc64__)
  return EM_PPC64;
#else
#error "tunefarm: unknown host architecture; add it to device_agent/target_arch.cc"
#endif
}

std::string HostArch() { return ElfMachineName(HostElfMachine()); }

std::string NormalizeArch(std::string_view arch) {
  if (arch == "arm64") return "aarch64";
  if (arch == "amd64" || arch == "x86-64") return "x86_64";
  if (arch == "riscv64" || arch == "riscv32") return "riscv";
  if (arch == "ppc64le" || arch == "powerpc64le") return "powerpc64";
  return std::string(arch);
}

std::string TargetArch(std::string_view target) {
  constexpr std::string_view kFlag = "-mtriple=";
  const size_t at = target.find(kFlag);
  if (at == std::string_view::npos) return "";
  std::string_view triple = target.substr(at + kFlag.size());
  triple = triple.substr(0, triple.find(' '));
  return NormalizeArch(triple.substr(0, triple.find('-')));
}

std::string ElfMachineName(uint16_t machine) {
  for (const ArchName& entry : kArchNames) {
    if (entry.machine == machine) return entry.name;
  }
  return "e_machine " + std::to_string(machine);
}

std::string TargetMismatch(std::string_view target) {
  const std::string quoted = "\"" + std::string(target) + "\"";
  const std::string_view kind = target.substr(0, target.find(' '));
  if (kind != "llvm") return "its target " + quoted + " is not a CPU (llvm) target";
  const std::string arch = TargetArch(target);
  if (arch.empty() || arch == HostArch()) return "";
  return "its target " + quoted + " is for " + arch + ", this host is " + HostArch();
}

}  // namespace tunefarm::agent
