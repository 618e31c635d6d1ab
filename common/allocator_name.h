// Which malloc this process runs on, for `tunefarm version` and the tuning benches: the tuner
// is about 1.5x slower on glibc's than on jemalloc (cmake/FastAllocator.cmake), so a slow
// tuning report should say which one it had.
#pragma once

#include <string>

namespace tunefarm {

// "jemalloc 5.3.0-0-g54eaed1d8b56..." when jemalloc's malloc is the process's, else "glibc malloc".
std::string AllocatorName();

}  // namespace tunefarm
