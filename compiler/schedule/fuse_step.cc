#include "common/strings.h"
#include "compiler/schedule/step_common.h"

namespace tunefarm::schedule {

absl::Status ApplyFuse(const FuseStep& step, State* state) {
  if (auto s = CheckStageIter(*state, "FU", step.stage, -1); !s.ok()) return s;
  auto error = [&](std::string_view why) { return StepError("FU", step.stage, -1, why); };
  const Stage& stage = state->stage(step.stage);
  if (step.iters.size() < 2) return error("fuse needs at least two iterators");
  for (size_t i = 0; i < step.iters.size(); ++i) {
    int it = step.iters[i];
    if (it < 0 || it >= static_cast<int>(stage.iters.size())) return error(StrCat("no such iterator ", it));
    if (i > 0 && it != step.iters[i - 1] + 1) return error("only consecutive iterators can be fused");
  }
  IterKind kind = stage.node_of(step.iters[0]).kind;
  int64_t extent = 1;
  std::string name;
  IterRelation rel{IterRelation::kFuse, {}, {}};
  for (int it : step.iters) {
    const IterNode& n = stage.node_of(it);
    if (n.kind != kind) return error("cannot fuse a space iterator with a reduce iterator");
    if (stage.iters[it].annotation != IterAnnotation::kNone) return error("cannot fuse an annotated iterator");
    extent = (extent == kUnknownExtent || n.extent == kUnknownExtent) ? kUnknownExtent : extent * n.extent;
    name += (name.empty() ? "" : "@") + n.name;
    rel.from.push_back(stage.iters[it].node);
  }
  Stage& st = state->mutable_stage(step.stage);
  st.nodes.push_back({name, extent, kind});
  int fused = static_cast<int>(st.nodes.size()) - 1;
  rel.to.push_back(fused);
  // Stages computed at any of the fused loops move to the fused loop: once per fused
  // iteration, over the region its body reads (lowering re-infers it).
  for (int from : rel.from)
    for (int attached : state->AttachedAt(step.stage, from)) state->mutable_stage(attached).attach_node = fused;
  st.relations.push_back(std::move(rel));
  st.iters.erase(st.iters.begin() + step.iters.front(), st.iters.begin() + step.iters.back() + 1);
  st.iters.insert(st.iters.begin() + step.iters.front(), Iterator{fused, IterAnnotation::kNone});
  return absl::OkStatus();
}

}  // namespace tunefarm::schedule
