// Which CPU architecture a kernel was built for, and which one this process runs on. Both the
// ELF header (e_machine) and the metadata's target string ("-mtriple=aarch64-...") name one;
// they are compared here by the names LLVM triples use ("x86_64", "aarch64"), without LLVM.
#ifndef TUNEFARM_DEVICE_AGENT_TARGET_ARCH_H_
#define TUNEFARM_DEVICE_AGENT_TARGET_ARCH_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace tunefarm::agent {

// The architecture this binary was compiled for, as a triple names it ("x86_64", "aarch64").
std::string HostArch();

// The ELF e_machine value of HostArch().
uint16_t HostElfMachine();

// Triple spellings of one architecture mapped to one name: "arm64" -> "aarch64",
// "amd64" -> "x86_64"; anything else is returned unchanged.
std::string NormalizeArch(std::string_view arch);

// The architecture of a target string's -mtriple ("llvm -mtriple=aarch64-linux-gnu -mcpu=x"
// -> "aarch64"), normalized; empty when the string has no -mtriple.
std::string TargetArch(std::string_view target);

// A readable name of an ELF e_machine value ("x86_64", "aarch64", ...), or "e_machine N".
std::string ElfMachineName(uint16_t machine);

// Empty when a kernel whose metadata names `target` can run on this host; otherwise why not,
// e.g. "its target \"llvm -mtriple=aarch64-linux-gnu\" is for aarch64, this host is x86_64".
// A target without -mtriple means the host's own architecture.
std::string TargetMismatch(std::string_view target);

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_TARGET_ARCH_H_
