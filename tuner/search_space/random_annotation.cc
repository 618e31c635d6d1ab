#include "tuner/search_space/random_annotation.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "common/strings.h"
#include "tuner/search_space/compute_location_choices.h"
#include "tuner/search_space/gpu_annotation.h"
#include "tuner/search_space/split_factorization.h"
#include "tuner/search_space/tile_sizes.h"

namespace tunefarm::tuner {
namespace {

using schedule::ComputeLocation;
using schedule::IterAnnotation;
using schedule::IterKind;
using schedule::State;
using schedule::Step;

// Placeholders and rewritten weight layouts (computed at build time) have no loops to schedule.
bool Schedulable(const schedule::Stage& st) { return !st.is_placeholder && st.scope != schedule::kLayoutScope; }

// --- 1. Tile sizes ---

// Draws lengths for every tunable split of known extent: space splits of one stage share the
// register budget for their innermost lengths; every other split only has the innermost cap.
std::map<size_t, std::vector<int64_t>> DrawLengths(const std::vector<TunableSplit>& splits, const SearchTarget& target,
                                                   std::mt19937_64& rng) {
  std::map<size_t, std::vector<int64_t>> lengths;
  std::map<std::pair<int, int>, std::vector<const TunableSplit*>> space_by_stage;
  for (const TunableSplit& s : splits) {
    if (s.extent == schedule::kUnknownExtent) continue;  // drawn during the replay
    if (s.kind == IterKind::kSpace && s.parts > 1)
      space_by_stage[s.stage].push_back(&s);
    else
      lengths[s.step] = SampleFactorization(s.extent, s.parts, kMaxInnermostSplitLength, rng);
  }
  for (auto& [stage, group] : space_by_stage) {
    std::shuffle(group.begin(), group.end(), rng);
    int64_t budget = target.RegisterTileElements();
    for (const TunableSplit* s : group) {
      std::vector<int64_t> drawn = SampleFactorization(s->extent, s->parts, std::min(kMaxInnermostSplitLength, budget), rng);
      budget = std::max<int64_t>(1, budget / drawn.back());
      lengths[s->step] = std::move(drawn);
    }
  }
  return lengths;
}

// --- 2. Compute locations ---

absl::Status ChangeComputeLocations(State* s, std::mt19937_64& rng) {
  for (int stage = static_cast<int>(s->stages().size()) - 1; stage >= 0; --stage) {
    if (!Relocatable(*s, stage)) continue;
    std::vector<Step> choices = ComputeLocationChoices(*s, stage);
    const Step& choice = choices[rng() % choices.size()];
    // Kept at the root, a stage writes no step.
    if (std::holds_alternative<schedule::ComputeRootStep>(choice) && s->stage(stage).location == ComputeLocation::kRoot)
      continue;
    if (absl::Status st = s->Apply(choice); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// --- 3. Layout rewrite ---

// The one reader of stage `t` when `t` is a constant of at least 2 dimensions read by a tiled
// reduction alone; -1 otherwise. Not every such read can be rewritten (a depthwise conv reads its
// weights at a constant channel): LayoutRewrite says.
int RewriteReader(const State& s, int t) {
  const te::TensorDef& tensor = s.dag().tensor(t);
  if (!tensor.is_placeholder || !tensor.is_constant || tensor.shape.size() < 2) return -1;
  const std::vector<int> readers = s.dag().consumers(t);
  if (readers.size() != 1) return -1;
  const schedule::Stage& reader = s.stage(readers[0]);
  if (reader.num_reduce_axes == 0 || reader.relations.empty()) return -1;
  return readers[0];
}

// Each constant tensor (model weights) that one tiled reduction reads alone, at one loop axis per
// dimension, is stored in that stage's tile order or kept, each with probability 1/2 (the cost
// model learns which pays). Before parallel: the loops fused for it mix weight and other axes.
void DrawLayoutRewrites(State* s, std::mt19937_64& rng) {
  // Each rewrite inserts a stage after its constant: from the last constant back, the stage
  // numbers still to visit stay as they are.
  for (int t = static_cast<int>(s->stages().size()) - 1; t >= 0; --t) {
    const int reader = RewriteReader(*s, t);
    if (reader < 0 || rng() % 2 == 0) continue;
    State rewritten = *s;
    if (rewritten.LayoutRewrite(t, reader).ok()) *s = std::move(rewritten);
  }
}

// --- 4. Parallel ---

absl::Status Parallelize(State* s, int stage, int cores) {
  const schedule::Stage& st = s->stage(stage);
  const int n = static_cast<int>(st.iters.size());
  int count = 0;
  int64_t iterations = 1;
  while (count < n && !(count == n - 1 && count > 0)) {
    const schedule::Iterator& it = st.iters[count];
    if (st.nodes[it.node].kind == IterKind::kReduce || it.annotation != IterAnnotation::kNone) break;
    iterations *= st.nodes[it.node].extent;
    ++count;
    if (!s->AttachedAt(stage, it.node).empty() || iterations >= cores) break;
  }
  if (count == 0) return absl::OkStatus();
  if (iterations <= 1) {
    // One iteration down to a loop other stages are computed at (a tile as big as the tensor):
    // those stages run once, so their own outer loops can be the parallel ones.
    for (int a : s->AttachedAt(stage, st.iters[count - 1].node))
      if (auto r = Parallelize(s, a, cores); !r.ok()) return r;
    return absl::OkStatus();
  }
  if (count > 1) {
    // Stages computed at the last fused loop move to the fused one: the same iterations.
    std::vector<int> fused(count);
    for (int i = 0; i < count; ++i) fused[i] = i;
    if (auto r = s->Fuse(stage, fused); !r.ok()) return r;
  }
  return s->Annotate(stage, 0, IterAnnotation::kParallel);
}

absl::Status ParallelizeRootStages(State* s, const SearchTarget& target) {
  if (target.cores <= 1) return absl::OkStatus();
  for (int stage = 0; stage < static_cast<int>(s->stages().size()); ++stage) {
    const schedule::Stage& st = s->stage(stage);
    if (!Schedulable(st) || st.location != ComputeLocation::kRoot) continue;
    if (auto r = Parallelize(s, stage, target.cores); !r.ok()) return r;
  }
  return absl::OkStatus();
}

// --- 5. Vectorize ---

absl::Status VectorizeInnermost(State* s, const SearchTarget& target) {
  for (int stage = 0; stage < static_cast<int>(s->stages().size()); ++stage) {
    const schedule::Stage& st = s->stage(stage);
    if (!Schedulable(st) || st.location == ComputeLocation::kInlined || st.iters.empty()) continue;
    const int last = static_cast<int>(st.iters.size()) - 1;
    const schedule::Iterator& it = st.iters[last];
    const schedule::IterNode& node = st.nodes[it.node];
    if (node.kind != IterKind::kSpace || it.annotation != IterAnnotation::kNone || node.extent < 2 ||
        node.extent > target.MaxVectorExtent() || !s->AttachedAt(stage, it.node).empty())
      continue;
    if (auto r = s->Annotate(stage, last, IterAnnotation::kVectorize); !r.ok()) return r;
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<std::pair<int, int>> RewritableConstants(const State& program) {
  std::vector<std::pair<int, int>> out;
  for (int t = 0; t < static_cast<int>(program.stages().size()); ++t) {
    const int reader = RewriteReader(program, t);
    if (reader < 0) continue;
    State trial = program;
    if (trial.LayoutRewrite(t, reader).ok()) out.emplace_back(t, reader);
  }
  return out;
}

absl::Status PickAutoUnroll(State* s, std::mt19937_64& rng) {
  return SetAutoUnroll(s, [&] { return kAutoUnrollChoices[rng() % std::size(kAutoUnrollChoices)]; });
}

absl::Status SetAutoUnroll(State* s, const std::function<int()>& max_step_of_next) {
  for (int stage = 0; stage < static_cast<int>(s->stages().size()); ++stage) {
    const schedule::Stage& st = s->stage(stage);
    if (!Schedulable(st) || st.location == ComputeLocation::kInlined) continue;
    bool has_reduce = false;
    for (int i = 0; i < static_cast<int>(st.iters.size()); ++i) has_reduce |= st.node_of(i).kind == IterKind::kReduce;
    if (!has_reduce) continue;
    if (auto r = s->PragmaAutoUnroll(stage, 0, max_step_of_next()); !r.ok()) return r;
  }
  return absl::OkStatus();
}

absl::Status PhaseError(std::string_view phase, const absl::Status& s) {
  return absl::Status(s.code(), StrCat(phase, ": ", std::string(s.message())));
}

absl::StatusOr<State> AnnotateRandomly(const State& sketch, const SearchTarget& target, std::mt19937_64& rng) {
  if (target.gpu) return AnnotateRandomlyForGpu(sketch, target, rng);
  auto state = FillTileSizes(
      sketch, [&](const std::vector<TunableSplit>& splits) { return DrawLengths(splits, target, rng); }, rng);
  if (!state.ok()) return PhaseError("tile sizes", state.status());
  if (auto s = ChangeComputeLocations(&*state, rng); !s.ok()) return PhaseError("compute locations", s);
  DrawLayoutRewrites(&*state, rng);
  if (auto s = ParallelizeRootStages(&*state, target); !s.ok()) return PhaseError("parallel", s);
  if (auto s = VectorizeInnermost(&*state, target); !s.ok()) return PhaseError("vectorize", s);
  if (auto s = PickAutoUnroll(&*state, rng); !s.ok()) return PhaseError("auto-unroll", s);
  return state;
}

}  // namespace tunefarm::tuner
