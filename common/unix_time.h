// Wall-clock time as Unix milliseconds: what records, jobs and progress lines are stamped with.
#pragma once

#include <chrono>
#include <cstdint>

namespace tunefarm {

inline int64_t UnixMillisNow() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace tunefarm
