// How many times `what` occurs in `text` (overlaps counted): for tests that count statements
// in printed IR or instructions in generated code.
#pragma once

#include <string_view>

namespace tunefarm::testing {

inline int CountOccurrences(std::string_view text, std::string_view what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace tunefarm::testing
