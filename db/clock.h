// Internal to db/: wall-clock timestamps for rows the database stamps itself.
#pragma once

#include <chrono>
#include <cstdint>

namespace tunefarm::db::internal {

inline int64_t NowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace tunefarm::db::internal
