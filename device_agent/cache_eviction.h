// Evicting a buffer from every level of the CPU caches, so the next run of a kernel reads it
// from memory as it would inside a whole model (MeasureOptions.flush_cache).
#pragma once

#include <cstddef>

namespace tunefarm::agent {

// Flushes every cache line of [data, data + bytes) (clflush on x86-64, dc civac on AArch64)
// and waits until that is done. Elsewhere it does nothing.
void EvictFromCaches(const void* data, size_t bytes);

}  // namespace tunefarm::agent
