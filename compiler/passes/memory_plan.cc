#include "compiler/passes/memory_plan.h"

#include <algorithm>

#include "common/log.h"
#include "common/strings.h"

namespace tunefarm::passes {
namespace {

// A value that owns arena bytes, with the calls it is live for ([first, last]; first > last:
// touched by no call, so live at none).
struct Block {
  int value = -1;
  int64_t bytes = 0;
  int first = 0, last = -1;
  bool Overlaps(const Block& o) const { return first <= o.last && o.first <= last; }
};

// Follows alias_of to the value that owns the bytes; -1 on a cycle or a bad id.
int RootOf(const std::vector<PlanValue>& values, int v) {
  for (size_t steps = 0; steps <= values.size(); ++steps) {
    if (v < 0 || v >= static_cast<int>(values.size())) return -1;
    if (values[v].alias_of < 0) return v;
    v = values[v].alias_of;
  }
  return -1;
}

// Best fit: the smallest gap between `placed` blocks whose lifetimes overlap `b` that holds it,
// else the end of those blocks.
int64_t BestFit(const Block& b, const std::vector<std::pair<int64_t, const Block*>>& placed) {
  std::vector<std::pair<int64_t, int64_t>> busy;  // [begin, end) of overlapping blocks, by begin
  for (const auto& [offset, other] : placed)
    if (other->Overlaps(b)) busy.push_back({offset, offset + AlignArena(other->bytes)});
  std::sort(busy.begin(), busy.end());
  int64_t need = AlignArena(b.bytes), cursor = 0, best = -1, best_gap = 0;
  for (const auto& [begin, end] : busy) {
    int64_t gap = begin - cursor;
    if (gap >= need && (best < 0 || gap < best_gap)) {
      best = cursor;
      best_gap = gap;
    }
    cursor = std::max(cursor, end);
  }
  return best >= 0 ? best : cursor;
}

}  // namespace

absl::StatusOr<MemoryPlan> PlanMemory(const std::vector<PlanValue>& values, const std::vector<PlanCall>& calls) {
  int num_values = static_cast<int>(values.size());
  int num_calls = static_cast<int>(calls.size());
  std::vector<int> root(num_values);
  for (int v = 0; v < num_values; ++v) {
    if (values[v].bytes < 0) return absl::InvalidArgumentError(StrCat("value ", v, " has negative size"));
    root[v] = RootOf(values, v);
    if (root[v] < 0) return absl::InvalidArgumentError(StrCat("value ", v, " aliases a missing value or a cycle"));
    if (values[root[v]].external != values[v].external)
      return absl::InvalidArgumentError(StrCat("value ", v, " and its root ", root[v], " differ in external"));
    if (values[v].alias_offset < 0 || (values[v].alias_of >= 0 && values[v].alias_offset + values[v].bytes >
                                                                      values[values[v].alias_of].bytes))
      return absl::InvalidArgumentError(StrCat("value ", v, " does not lie inside the value it aliases"));
  }
  // Lifetimes of roots, widened by their views; pinned anywhere in the family means whole run.
  std::vector<Block> block_of(num_values);
  std::vector<bool> pinned(num_values, false);
  for (int v = 0; v < num_values; ++v) {
    block_of[v].value = v;
    block_of[v].bytes = values[v].bytes;
    block_of[v].first = num_calls;
    pinned[root[v]] = pinned[root[v]] || values[v].pinned;
  }
  for (int c = 0; c < num_calls; ++c)
    for (int v : calls[c].args) {
      if (v < 0 || v >= num_values) return absl::InvalidArgumentError(StrCat("call ", c, " names missing value ", v));
      Block& b = block_of[root[v]];
      b.first = std::min(b.first, c);
      b.last = std::max(b.last, c);
    }
  std::vector<Block> blocks;
  for (int v = 0; v < num_values; ++v) {
    if (root[v] != v || values[v].external) continue;
    Block b = block_of[v];
    if (pinned[v]) {
      b.first = 0;
      b.last = std::max(0, num_calls - 1);
    }
    blocks.push_back(b);
  }

  MemoryPlan plan;
  for (const Block& b : blocks) plan.naive_bytes += AlignArena(b.bytes);
  for (int c = 0; c < num_calls; ++c) {
    int64_t live = 0;
    for (const Block& b : blocks)
      if (b.first <= c && c <= b.last) live += AlignArena(b.bytes);
    plan.peak_live_bytes = std::max(plan.peak_live_bytes, live);
  }

  // Largest first; among equals the earlier-born first, so ties place deterministically.
  std::sort(blocks.begin(), blocks.end(), [](const Block& a, const Block& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.first != b.first) return a.first < b.first;
    return a.value < b.value;
  });
  std::vector<std::pair<int64_t, const Block*>> placed;
  plan.offsets.assign(num_values, -1);
  for (const Block& b : blocks) {
    int64_t offset = BestFit(b, placed);
    placed.push_back({offset, &b});
    plan.offsets[b.value] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + AlignArena(b.bytes));
  }
  for (int v = 0; v < num_values; ++v) {
    if (values[v].external) continue;
    int64_t inside = 0;
    for (int a = v; a != root[v]; a = values[a].alias_of) inside += values[a].alias_offset;
    plan.offsets[v] = plan.offsets[root[v]] + inside;
  }
  TF_LOG(INFO, "passes") << "memory-plan: arena " << plan.arena_bytes << " bytes, peak live " << plan.peak_live_bytes
                         << ", naive " << plan.naive_bytes << " (" << blocks.size() << " buffers, " << num_calls
                         << " calls)";
  return plan;
}

}  // namespace tunefarm::passes
