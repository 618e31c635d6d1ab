// Looks inside a kernel .so before anything loads it: dlopen runs the library's constructors,
// so a kernel built for another CPU (or another architecture altogether) is refused from its
// ELF header and its metadata symbol, read as plain file bytes.
#ifndef TUNEFARM_DEVICE_AGENT_ELF_CHECK_H_
#define TUNEFARM_DEVICE_AGENT_ELF_CHECK_H_

#include <cstdint>
#include <optional>
#include <string>

#include "deploy/status.h"

namespace tunefarm::agent {

struct ElfFacts {
  uint16_t machine = 0;  // e_machine
  bool is_64bit = false;
  bool little_endian = false;
  bool shared_object = false;  // e_type ET_DYN
  // The text of the exported `tunefarm_metadata` symbol, when the file is an ELF of the host's
  // class and byte order and has one.
  std::optional<std::string> metadata;
};

// Reads the header and, for an ELF of this host's class and byte order, the metadata symbol.
// Errors (kLoadFailed) name the file: not an ELF, truncated, section table out of bounds.
deploy::Result<ElfFacts> ReadElfFacts(const std::string& path);

// Empty when the facts allow loading `path` on this host; otherwise why not, naming the file
// and both architectures: another e_machine, class or byte order, not a shared object, or a
// metadata target for another architecture.
std::string WhyNotLoadable(const std::string& path, const ElfFacts& facts);

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_ELF_CHECK_H_
