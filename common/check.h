// Internal invariant checks. A failed TF_CHECK is a bug in tunefarm itself (never a user error:
// those return absl::Status), so it prints where and why and aborts.
#pragma once

#include <cstdio>
#include <cstdlib>

#define TF_CHECK(cond, msg)                                                           \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "%s:%d: internal check failed: %s: %s\n", __FILE__, __LINE__, \
                   #cond, msg);                                                       \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)
