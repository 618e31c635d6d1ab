#include "common/allocator_name.h"

#include <dlfcn.h>

#include <cstddef>

namespace tunefarm {

std::string AllocatorName() {
  // jemalloc exports mallctl; looking it up at run time tells what was linked (or preloaded)
  // without this library depending on jemalloc.
  using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);
  auto mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
  if (mallctl == nullptr) return "glibc malloc";
  const char* version = nullptr;
  size_t size = sizeof(version);
  if (mallctl("version", &version, &size, nullptr, 0) != 0 || version == nullptr) return "jemalloc";
  return std::string("jemalloc ") + version;
}

}  // namespace tunefarm
