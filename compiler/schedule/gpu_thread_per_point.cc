#include "compiler/schedule/gpu_thread_per_point.h"

#include <numeric>

#include "common/strings.h"

namespace tunefarm::schedule {
namespace {

bool AtRoot(const State& s, int stage) {
  const Stage& st = s.stage(stage);
  return !st.is_placeholder && st.location == ComputeLocation::kRoot;
}

// The block size for `points` outputs: the whole extent when it fits, else the largest divisor
// in [threads / 2, threads] (no tail), else `threads` with a guarded last block.
int64_t BlockSize(int64_t points, int64_t threads) {
  if (points <= threads) return points;
  for (int64_t d = threads; d >= threads / 2; --d)
    if (points % d == 0) return d;
  return threads;
}

}  // namespace

absl::Status BindToBlocksAndThreads(State* s, int stage, int64_t threads_per_block) {
  const int n = s->stage(stage).num_space_axes;
  if (n == 0) return absl::OkStatus();
  if (n > 1) {
    std::vector<int> space(n);
    std::iota(space.begin(), space.end(), 0);
    if (absl::Status st = s->Fuse(stage, space); !st.ok()) return st;
  }
  const int64_t points = s->stage(stage).node_of(0).extent;
  const int64_t block = BlockSize(points, threads_per_block);
  if (block == points) return s->Annotate(stage, 0, IterAnnotation::kThreadX);
  if (absl::Status st = s->Split(stage, 0, {block}); !st.ok()) return st;
  if (absl::Status st = s->Annotate(stage, 0, IterAnnotation::kBlockX); !st.ok()) return st;
  return s->Annotate(stage, 1, IterAnnotation::kThreadX);
}

absl::StatusOr<State> ApplyGpuThreadPerPointSchedule(std::shared_ptr<const te::ComputeDag> dag, const GpuRuleContext& ctx,
                                              std::vector<std::string>* applied) {
  State state(std::move(dag));
  auto note = [&](int stage, const char* rule) {
    if (applied) applied->push_back(StrCat(state.dag().tensor(stage).name, ": ", rule));
  };
  // Outputs first, so an inlined stage's readers are final when it is inlined.
  for (int stage = state.dag().num_tensors() - 1; stage >= 0; --stage) {
    if (!AtRoot(state, stage) || !state.dag().analysis(stage).strictly_inlinable) continue;
    if (absl::Status st = state.ComputeInline(stage); !st.ok()) {
      return absl::InternalError(StrCat("GPU thread-per-point rule 'inline' on stage ", stage, ": ", std::string(st.message())));
    }
    note(stage, "inline");
  }
  for (int stage = state.dag().num_tensors() - 1; stage >= 0; --stage) {
    if (!AtRoot(state, stage)) continue;
    if (absl::Status st = BindToBlocksAndThreads(&state, stage, ctx.threads_per_block); !st.ok()) {
      return absl::InternalError(StrCat("GPU thread-per-point rule 'bind' on stage ", stage, ": ", std::string(st.message())));
    }
    note(stage, "bind");
  }
  return state;
}

}  // namespace tunefarm::schedule
