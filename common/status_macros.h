// Early return of a failed absl::Status, for code that chains many fallible steps.
#pragma once

#include "absl/status/status.h"

#define TF_RETURN_IF_ERROR(expr)          \
  do {                                    \
    absl::Status _st = (expr);            \
    if (!_st.ok()) return _st;            \
  } while (0)
