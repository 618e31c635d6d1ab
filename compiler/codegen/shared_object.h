// Links one relocatable object into a shared object with the lld library (in process; lld
// allows one link at a time per process, so links are serialised by a mutex).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace tunefarm::codegen {

// `object` is an ELF object (x86_64 or aarch64). The .so needs no libc (no DT_NEEDED): its
// only undefined symbols are whatever the object references (memcpy/memset/memmove). Linked
// with -shared --build-id=none -z now --hash-style=both, so identical objects give identical
// bytes. lld reads and writes files, so the link goes through a private temporary directory.
absl::StatusOr<std::string> LinkSharedObject(std::string_view object);

}  // namespace tunefarm::codegen
