#include "device_agent/elf_check.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "deploy/kernel_metadata.h"
#include "device_agent/target_arch.h"

namespace tunefarm::agent {
namespace {

using deploy::Result;
using deploy::Status;
using deploy::StatusCode;

// Metadata is a few KiB; anything near this is a corrupt symbol size.
constexpr uint64_t kMaxMetadataBytes = uint64_t{16} << 20;
// Bounds what a corrupt section header can make us allocate.
constexpr uint64_t kMaxTableBytes = uint64_t{256} << 20;

#if defined(__LP64__)
using Ehdr = Elf64_Ehdr;
using Shdr = Elf64_Shdr;
using Sym = Elf64_Sym;
constexpr int kHostClass = ELFCLASS64;
#else
using Ehdr = Elf32_Ehdr;
using Shdr = Elf32_Shdr;
using Sym = Elf32_Sym;
constexpr int kHostClass = ELFCLASS32;
#endif
constexpr int kHostData = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;

class ElfFile {
 public:
  explicit ElfFile(const std::string& path) : path_(path) {
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  ~ElfFile() {
    if (fd_ >= 0) close(fd_);
  }
  bool is_open() const { return fd_ >= 0; }

  Status Error(const std::string& what) const {
    return Status(StatusCode::kLoadFailed, path_ + ": " + what);
  }

  // Reads exactly `size` bytes at `offset`.
  bool Read(uint64_t offset, void* out, uint64_t size) const {
    auto* bytes = static_cast<char*>(out);
    while (size > 0) {
      const ssize_t n = pread(fd_, bytes, size, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes += n;
      offset += static_cast<uint64_t>(n);
      size -= static_cast<uint64_t>(n);
    }
    return true;
  }

 private:
  std::string path_;
  int fd_ = -1;
};

uint16_t Machine(const unsigned char* header) {
  // e_machine is at byte 18 in both classes, in the file's byte order.
  return header[EI_DATA] == ELFDATA2MSB ? static_cast<uint16_t>(header[18] << 8 | header[19])
                                        : static_cast<uint16_t>(header[19] << 8 | header[18]);
}

// Finds `tunefarm_metadata` through the dynamic symbol table, as dlsym would.
Result<std::optional<std::string>> ReadMetadataSymbol(const ElfFile& file, const Ehdr& header) {
  if (header.e_shentsize != sizeof(Shdr) || header.e_shnum == 0) {
    return std::optional<std::string>();
  }
  std::vector<Shdr> sections(header.e_shnum);
  if (!file.Read(header.e_shoff, sections.data(), sections.size() * sizeof(Shdr))) {
    return file.Error("the section header table lies outside the file");
  }
  for (const Shdr& symtab : sections) {
    if (symtab.sh_type != SHT_DYNSYM || symtab.sh_entsize != sizeof(Sym)) continue;
    if (symtab.sh_link >= sections.size()) return file.Error("bad .dynsym string table link");
    const Shdr& strtab = sections[symtab.sh_link];
    if (strtab.sh_size > kMaxTableBytes || symtab.sh_size > kMaxTableBytes) {
      return file.Error("the dynamic symbol table is implausibly large");
    }
    std::vector<char> names(strtab.sh_size + 1, '\0');
    std::vector<Sym> symbols(symtab.sh_size / sizeof(Sym));
    if (!file.Read(strtab.sh_offset, names.data(), strtab.sh_size) ||
        !file.Read(symtab.sh_offset, symbols.data(), symbols.size() * sizeof(Sym))) {
      return file.Error("the dynamic symbol table lies outside the file");
    }
    for (const Sym& symbol : symbols) {
      if (symbol.st_name >= strtab.sh_size ||
          std::strcmp(&names[symbol.st_name], "tunefarm_metadata") != 0) {
        continue;
      }
      if (symbol.st_size == 0 || symbol.st_size > kMaxMetadataBytes) {
        return file.Error("tunefarm_metadata has a bad size " + std::to_string(symbol.st_size));
      }
      for (const Shdr& section : sections) {
        if (section.sh_type != SHT_PROGBITS || symbol.st_value < section.sh_addr ||
            symbol.st_value + symbol.st_size > section.sh_addr + section.sh_size) {
          continue;
        }
        std::string text(symbol.st_size, '\0');
        if (!file.Read(section.sh_offset + (symbol.st_value - section.sh_addr), text.data(),
                       text.size())) {
          return file.Error("tunefarm_metadata lies outside the file");
        }
        text.resize(std::strlen(text.c_str()));  // the symbol is NUL-terminated text
        return std::optional<std::string>(std::move(text));
      }
      return file.Error("tunefarm_metadata points into no section with file contents");
    }
  }
  return std::optional<std::string>();
}

}  // namespace

Result<ElfFacts> ReadElfFacts(const std::string& path) {
  ElfFile file(path);
  if (!file.is_open()) return file.Error(std::string("cannot open: ") + std::strerror(errno));
  unsigned char ident[EI_NIDENT + 4] = {};
  if (!file.Read(0, ident, sizeof ident) || std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
    return file.Error("not an ELF file");
  }
  ElfFacts facts;
  facts.is_64bit = ident[EI_CLASS] == ELFCLASS64;
  facts.little_endian = ident[EI_DATA] == ELFDATA2LSB;
  facts.machine = Machine(ident);
  if (ident[EI_CLASS] != kHostClass || ident[EI_DATA] != kHostData) return facts;

  Ehdr header{};
  if (!file.Read(0, &header, sizeof header)) return file.Error("truncated ELF header");
  facts.shared_object = header.e_type == ET_DYN;
  Result<std::optional<std::string>> metadata = ReadMetadataSymbol(file, header);
  if (!metadata.ok()) return metadata.status();
  facts.metadata = std::move(metadata).value();
  return facts;
}

std::string WhyNotLoadable(const std::string& path, const ElfFacts& facts) {
  const std::string host = HostArch();
  if (facts.machine != HostElfMachine()) {
    return path + " is an ELF for " + ElfMachineName(facts.machine) + ", this host is " + host;
  }
  if ((facts.is_64bit ? ELFCLASS64 : ELFCLASS32) != kHostClass) {
    return path + " is a " + (facts.is_64bit ? "64" : "32") + "-bit ELF, this host is " + host;
  }
  if ((facts.little_endian ? ELFDATA2LSB : ELFDATA2MSB) != kHostData) {
    return path + " has the wrong byte order for " + host;
  }
  if (!facts.shared_object) return path + " is not a shared object (ELF type is not ET_DYN)";
  if (facts.metadata) {
    deploy::Result<deploy::KernelMetadata> metadata = deploy::ParseKernelMetadata(*facts.metadata);
    // A malformed record is left to the loader, whose message says what is wrong with it.
    if (metadata.ok()) {
      const std::string mismatch = TargetMismatch(metadata->target);
      if (!mismatch.empty()) return path + ": " + mismatch;
    }
  }
  return "";
}

}  // namespace tunefarm::agent
