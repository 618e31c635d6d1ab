// Brute-force checks of a memory plan against the lifetime rules (DESIGN.md): recomputes every
// value's lifetime from the calls, then compares every pair of arena values.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/passes/memory_plan.h"

namespace tunefarm::passes::testing {

inline int RootValue(const std::vector<PlanValue>& values, int v) {
  while (values[v].alias_of >= 0) v = values[v].alias_of;
  return v;
}

inline void CheckPlan(const std::vector<PlanValue>& values, const std::vector<PlanCall>& calls, const MemoryPlan& plan) {
  int n = static_cast<int>(values.size());
  int last_call = std::max(0, static_cast<int>(calls.size()) - 1);
  ASSERT_EQ(static_cast<int>(plan.offsets.size()), n);
  std::vector<int> first(n, INT32_MAX), last(n, -1);
  std::vector<bool> pinned(n, false);
  for (int v = 0; v < n; ++v) pinned[RootValue(values, v)] = pinned[RootValue(values, v)] || values[v].pinned;
  for (int c = 0; c < static_cast<int>(calls.size()); ++c)
    for (int v : calls[c].args) {
      int r = RootValue(values, v);
      first[r] = std::min(first[r], c);
      last[r] = std::max(last[r], c);
    }
  for (int v = 0; v < n; ++v) {
    if (pinned[v]) {
      first[v] = 0;
      last[v] = last_call;
    }
    if (values[v].external) {
      EXPECT_EQ(plan.offsets[v], -1) << "external value " << v;
      continue;
    }
    int r = RootValue(values, v);
    int64_t inside = 0;
    for (int a = v; a != r; a = values[a].alias_of) inside += values[a].alias_offset;
    EXPECT_EQ(plan.offsets[v], plan.offsets[r] + inside) << "view " << v << " must lie at its place in its root";
    EXPECT_LE(inside + values[v].bytes, values[r].bytes) << "view " << v << " must lie inside its root";
    EXPECT_EQ(plan.offsets[v] % kArenaAlignment, 0) << "value " << v;
    EXPECT_GE(plan.offsets[v], 0);
    EXPECT_LE(plan.offsets[r] + values[r].bytes, plan.arena_bytes) << "value " << v;
  }
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      if (values[a].external || values[b].external || values[a].alias_of >= 0 || values[b].alias_of >= 0) continue;
      bool live_together = first[a] <= last[b] && first[b] <= last[a];
      bool bytes_overlap = plan.offsets[a] < plan.offsets[b] + values[b].bytes &&
                           plan.offsets[b] < plan.offsets[a] + values[a].bytes;
      if (values[a].bytes == 0 || values[b].bytes == 0) bytes_overlap = false;
      ASSERT_FALSE(live_together && bytes_overlap)
          << "values " << a << " [" << first[a] << "," << last[a] << "] and " << b << " [" << first[b] << ","
          << last[b] << "] share bytes";
    }
  // Within each call, arguments with different roots occupy disjoint bytes.
  for (const PlanCall& call : calls)
    for (int a : call.args)
      for (int b : call.args) {
        int ra = RootValue(values, a), rb = RootValue(values, b);
        if (ra == rb || values[ra].external || values[rb].external || !values[ra].bytes || !values[rb].bytes) continue;
        ASSERT_TRUE(plan.offsets[ra] + values[ra].bytes <= plan.offsets[rb] ||
                    plan.offsets[rb] + values[rb].bytes <= plan.offsets[ra]);
      }
  EXPECT_LE(plan.peak_live_bytes, plan.arena_bytes);
  EXPECT_LE(plan.arena_bytes, plan.naive_bytes);
}

}  // namespace tunefarm::passes::testing
