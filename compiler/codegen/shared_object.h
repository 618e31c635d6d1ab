// Links relocatable objects into a shared object with lld: in process through the lld
// library (lld allows one link at a time per process, so those links are serialised by a
// mutex), or by running the ld.lld executable of the same LLVM, which links in parallel but
// pays a process start per link. bench/compiler/link_bench measures both; the tuner keeps the
// faster (docs/tuner.md "Build workers").
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace tunefarm::codegen {

// `object` is an ELF object (x86_64 or aarch64). The .so needs no libc (no DT_NEEDED): its
// only undefined symbols are whatever the object references (memcpy/memset/memmove). Linked
// with -shared --build-id=none -z now --hash-style=both, so identical objects give identical
// bytes. lld reads and writes files, so the link goes through a private temporary directory.
enum class Linker { kInProcess, kExecutable };
absl::StatusOr<std::string> LinkSharedObject(std::string_view object, Linker linker = Linker::kInProcess);
// Several objects into one shared object (e.g. a batch of kernels, codegen.h AbiGlobals).
absl::StatusOr<std::string> LinkSharedObject(std::span<const std::string> objects,
                                             Linker linker = Linker::kInProcess);

// The ld.lld executable that kExecutable runs: LLVM 19's (Debian's lld-19, which liblld-19-dev
// depends on), not whatever `ld.lld` is first on the PATH.
const char* LdLldPath();

}  // namespace tunefarm::codegen
