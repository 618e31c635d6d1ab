// Static memory planning (DESIGN.md "Graph passes"): every intermediate value gets a byte offset
// in one arena, allocated once by the runtime.
// Lifetimes: a value lives from the first call that touches it (its producer) to the last call
// that touches it, inclusive; a view shares its root's bytes (or a range of them, from its
// alias_offset: a part of a concat computed in place) and extends the root's lifetime;
// pinned values (graph inputs and outputs) live for the whole run and are never shared. Values
// whose lifetimes overlap get disjoint byte ranges, so within every call the arguments that are
// not views of one another are pairwise disjoint.
// Placement is greedy by size: the largest value first, each into the smallest gap that holds it
// between the values already placed whose lifetimes overlap its own (TFLite's "greedy by size").
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace tunefarm::passes {

inline constexpr int64_t kArenaAlignment = 64;

struct PlanValue {
  int64_t bytes = 0;
  bool pinned = false;    // a graph input or output: never reused, live for the whole run
  bool external = false;  // not in the arena (a parameter): ignored by the planner, offset -1
  int alias_of = -1;      // a view: shares the bytes of value alias_of (its root), extending the root's lifetime
  int64_t alias_offset = 0;  // where its bytes start inside alias_of's (a part of an in-place concat)
};

struct PlanCall {
  std::vector<int> args;  // value ids one kernel call reads or writes, calls in execution order
};

struct MemoryPlan {
  std::vector<int64_t> offsets;  // per value; views get their root's offset plus their alias offsets; external -1
  int64_t arena_bytes = 0;
  int64_t peak_live_bytes = 0;  // the largest total of (64-aligned) bytes live at any one call
  int64_t naive_bytes = 0;      // sum of all arena values, no reuse
};

absl::StatusOr<MemoryPlan> PlanMemory(const std::vector<PlanValue>& values, const std::vector<PlanCall>& calls);

inline int64_t AlignArena(int64_t bytes) { return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

}  // namespace tunefarm::passes
