// Finding a loop by name: rules (the default rules, the tuner's sketch rules) refer to loops by
// the names splits give them: axis a of a stage is "i<a>" (space) or "k<a>" (reduce), and part p
// of a split of X is "X.<p>".
#pragma once

#include <string_view>

#include "compiler/schedule/state.h"

namespace tunefarm::schedule {

// The position of `stage`'s iterator named `name` in its loop order, or -1.
inline int FindIter(const State& state, int stage, std::string_view name) {
  const Stage& st = state.stage(stage);
  for (size_t i = 0; i < st.iters.size(); ++i)
    if (st.node_of(static_cast<int>(i)).name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace tunefarm::schedule
