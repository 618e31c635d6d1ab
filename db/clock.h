// Internal to db/: wall-clock timestamps for rows the database stamps itself.
#pragma once

#include <cstdint>

#include "common/unix_time.h"

namespace tunefarm::db::internal {

inline int64_t NowUnixMs() { return UnixMillisNow(); }

}  // namespace tunefarm::db::internal
