#include "device_agent/cache_eviction.h"

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tunefarm::agent {

void EvictFromCaches(const void* data, size_t bytes) {
  // 64 bytes: the line size of every x86-64 and of the AArch64 cores we target; a larger
  // line is flushed several times, which is harmless.
  constexpr uintptr_t kLine = 64;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data) & ~(kLine - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(data) + bytes;
#if defined(__x86_64__)
  for (uintptr_t p = begin; p < end; p += kLine) _mm_clflush(reinterpret_cast<const void*>(p));
  _mm_mfence();
#elif defined(__aarch64__)
  for (uintptr_t p = begin; p < end; p += kLine) asm volatile("dc civac, %0" : : "r"(p) : "memory");
  asm volatile("dsb ish" : : : "memory");
#else
  (void)begin;
  (void)end;
#endif
}

}  // namespace tunefarm::agent
