#include "device_agent/cache_eviction.h"

#include <cstdint>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace tunefarm::agent {
namespace {

// 64 bytes: the line size of every x86-64 and of the AArch64 cores we target; a larger line is
// flushed several times, which is harmless.
constexpr uintptr_t kLine = 64;

#if defined(__x86_64__)
// clflush executes one line at a time: 40-190 ns a line on a Xeon (Rocket Lake), so flushing a
// 1 MB ReLU's buffers took 3 ms against its 0.1 ms run, and the agent spent most of a tuning job
// flushing. clflushopt evicts the same lines (a read after it runs at memory speed, like after
// clflush) but overlaps them: 3-6 ns a line there. The fence orders both.
bool HasClflushopt() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0 && (ebx & bit_CLFLUSHOPT) != 0;
}

__attribute__((target("clflushopt"))) void FlushLinesOpt(uintptr_t begin, uintptr_t end) {
  for (uintptr_t p = begin; p < end; p += kLine) _mm_clflushopt(reinterpret_cast<void*>(p));
}

void FlushLines(uintptr_t begin, uintptr_t end) {
  for (uintptr_t p = begin; p < end; p += kLine) _mm_clflush(reinterpret_cast<const void*>(p));
}
#endif

}  // namespace

void EvictFromCaches(const void* data, size_t bytes) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data) & ~(kLine - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(data) + bytes;
#if defined(__x86_64__)
  static const bool has_clflushopt = HasClflushopt();
  if (has_clflushopt) {
    FlushLinesOpt(begin, end);
  } else {
    FlushLines(begin, end);
  }
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
