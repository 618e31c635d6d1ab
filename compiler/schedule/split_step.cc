#include "common/strings.h"
#include "compiler/schedule/step_common.h"

namespace tunefarm::schedule {

absl::Status ApplySplit(const SplitStep& step, State* state) {
  if (auto s = CheckStageIter(*state, "SP", step.stage, step.iter); !s.ok()) return s;
  if (step.iter < 0) return StepError("SP", step.stage, step.iter, "negative iterator index");
  const Stage& stage = state->stage(step.stage);
  const Iterator it = stage.iters[step.iter];
  const IterNode parent = stage.nodes[it.node];
  auto error = [&](std::string_view why) { return StepError("SP", step.stage, step.iter, why); };
  if (step.lengths.empty()) return error("no split lengths");
  if (step.extent != parent.extent)
    return error(StrCat("recorded extent ", step.extent, " differs from the iterator's ", parent.extent));
  if (it.annotation != IterAnnotation::kNone) return error("cannot split an annotated iterator");
  int64_t product = 1;
  bool filled = true;
  for (const auto& l : step.lengths) {
    if (!l) {
      filled = false;
      continue;
    }
    if (*l <= 0) return error(StrCat("split length ", *l, " is not positive"));
    if (*l > (int64_t{1} << 32)) return error("split length too large");
    product *= *l;
  }
  int64_t outer = kUnknownExtent;
  if (filled && parent.extent != kUnknownExtent) outer = (parent.extent + product - 1) / product;

  Stage& st = state->mutable_stage(step.stage);
  IterRelation rel{IterRelation::kSplit, {it.node}, {}};
  std::vector<Iterator> replacement;
  auto add = [&](std::string name, int64_t extent) {
    st.nodes.push_back({std::move(name), extent, parent.kind});
    int id = static_cast<int>(st.nodes.size()) - 1;
    rel.to.push_back(id);
    replacement.push_back({id, IterAnnotation::kNone});
  };
  add(StrCat(parent.name, ".0"), outer);
  for (size_t i = 0; i < step.lengths.size(); ++i)
    add(StrCat(parent.name, ".", i + 1), step.lengths[i] ? *step.lengths[i] : kUnknownExtent);
  // Stages computed at the split loop move to its innermost part: still once per original
  // iteration, over the same region.
  for (int attached : state->AttachedAt(step.stage, it.node)) state->mutable_stage(attached).attach_node = rel.to.back();
  st.relations.push_back(std::move(rel));
  st.iters.erase(st.iters.begin() + step.iter);
  st.iters.insert(st.iters.begin() + step.iter, replacement.begin(), replacement.end());
  return absl::OkStatus();
}

}  // namespace tunefarm::schedule
