#include "tuner/evolution/step_edit.h"

#include <utility>

#include "common/strings.h"

namespace tunefarm::tuner {
namespace {

using schedule::Step;

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

bool InsertsStage(const Step& step) {
  return std::holds_alternative<schedule::CacheWriteStep>(step) || std::holds_alternative<schedule::CacheReadStep>(step) ||
         std::holds_alternative<schedule::RfactorStep>(step) || std::holds_alternative<schedule::LayoutRewriteStep>(step);
}

// Calls fn(int& src) for every step index `step` names.
template <typename Fn>
void ForEachSourceStep(Step& step, Fn fn) {
  if (auto* f = std::get_if<schedule::FollowSplitStep>(&step)) fn(f->src_step);
  if (auto* f = std::get_if<schedule::FollowFusedSplitStep>(&step))
    for (int& s : f->src_steps) fn(s);
}

// Calls fn(int& position) for every loop position of stage `stage` that `step` names; false
// when it names them in a way positions cannot be followed through (a reorder).
template <typename Fn>
bool ForEachLoopOf(Step& step, int stage, Fn fn) {
  return std::visit(Overloaded{
                        [&](schedule::ReorderStep& s) { return s.stage != stage; },
                        [&](schedule::FuseStep& s) {
                          if (s.stage == stage)
                            for (int& i : s.iters) fn(i);
                          return true;
                        },
                        [&](schedule::ComputeAtStep& s) {
                          if (s.target_stage == stage) fn(s.target_iter);
                          return true;
                        },
                        [&](auto& s) {
                          if constexpr (requires { s.iter; })
                            if (s.stage == stage) fn(s.iter);
                          return true;
                        },
                    },
                    step);
}

}  // namespace

absl::StatusOr<schedule::State> ReplaySteps(std::shared_ptr<const te::ComputeDag> dag, const std::vector<Step>& steps,
                                            ReplayTrace* trace) {
  schedule::State state(std::move(dag));
  if (trace) {
    trace->stage_count.assign(steps.size(), 0);
    trace->split_kind.assign(steps.size(), schedule::IterKind::kSpace);
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    if (trace) trace->stage_count[i] = static_cast<int>(state.stages().size());
    absl::Status applied;
    if (const auto* split = std::get_if<schedule::SplitStep>(&steps[i])) {
      const int n = static_cast<int>(state.stages().size());
      if (split->stage < 0 || split->stage >= n || split->iter < 0 ||
          split->iter >= static_cast<int>(state.stage(split->stage).iters.size()))
        return absl::InvalidArgumentError(StrCat("step ", i, " (SP) splits a missing iterator"));
      const schedule::IterNode& node = state.stage(split->stage).node_of(split->iter);
      if (trace) trace->split_kind[i] = node.kind;
      if (node.extent != split->extent) {
        schedule::SplitStep now = *split;
        now.extent = node.extent;
        int64_t product = 1;
        for (const auto& l : now.lengths) product *= l.value_or(1);
        if (now.extent != schedule::kUnknownExtent && product > 0 && now.extent % product != 0)
          return absl::InvalidArgumentError(StrCat("step ", i, " (SP): lengths of product ", product,
                                                   " would leave a tail of the new extent ", now.extent));
        applied = state.Apply(now);
      } else {
        applied = state.Apply(*split);
      }
    } else {
      applied = state.Apply(steps[i]);
    }
    if (!applied.ok())
      return absl::InvalidArgumentError(
          StrCat("step ", i, " (", schedule::StepTag(steps[i]), "): ", std::string(applied.message())));
  }
  return state;
}

int StepStage(const Step& step) {
  return std::visit([](const auto& s) { return s.stage; }, step);
}

void InsertStep(std::vector<Step>* steps, size_t pos, Step step) {
  for (size_t i = pos; i < steps->size(); ++i)
    ForEachSourceStep((*steps)[i], [&](int& src) {
      if (src >= static_cast<int>(pos)) ++src;
    });
  steps->insert(steps->begin() + static_cast<std::ptrdiff_t>(pos), std::move(step));
}

absl::Status EraseStep(std::vector<Step>* steps, size_t pos) {
  bool read = false;
  for (size_t i = pos + 1; i < steps->size(); ++i)
    ForEachSourceStep((*steps)[i], [&](int& src) { read |= src == static_cast<int>(pos); });
  if (read) return absl::FailedPreconditionError(StrCat("step ", pos, " is the source of a follow split"));
  for (size_t i = pos + 1; i < steps->size(); ++i)
    ForEachSourceStep((*steps)[i], [&](int& src) {
      if (src > static_cast<int>(pos)) --src;
    });
  steps->erase(steps->begin() + static_cast<std::ptrdiff_t>(pos));
  return absl::OkStatus();
}

void ShiftStages(std::vector<Step>* steps, size_t from, int first, int delta) {
  auto shift = [&](int& stage) {
    if (stage >= first) stage += delta;
  };
  for (size_t i = from; i < steps->size(); ++i)
    std::visit(Overloaded{
                   [&](schedule::ComputeAtStep& s) {
                     shift(s.stage);
                     shift(s.target_stage);
                   },
                   [&](schedule::CacheReadStep& s) {
                     shift(s.stage);
                     for (int& r : s.readers) shift(r);
                   },
                   [&](schedule::LayoutRewriteStep& s) {
                     shift(s.stage);
                     shift(s.reader);
                   },
                   [&](auto& s) { shift(s.stage); },
               },
               (*steps)[i]);
}

size_t AnnotationEnd(const std::vector<Step>& steps) {
  for (size_t i = 0; i < steps.size(); ++i) {
    if (std::holds_alternative<schedule::AnnotationStep>(steps[i]) || std::holds_alternative<schedule::PragmaStep>(steps[i]))
      return i;
    const auto* fuse = std::get_if<schedule::FuseStep>(&steps[i]);
    const auto* next = i + 1 < steps.size() ? std::get_if<schedule::AnnotationStep>(&steps[i + 1]) : nullptr;
    if (fuse && next && next->stage == fuse->stage && next->annotation == schedule::IterAnnotation::kParallel) return i;
  }
  return steps.size();
}

std::vector<ParallelGroup> FindParallelGroups(const std::vector<Step>& steps) {
  std::vector<ParallelGroup> out;
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto* an = std::get_if<schedule::AnnotationStep>(&steps[i]);
    if (!an || an->iter != 0 || an->annotation != schedule::IterAnnotation::kParallel) continue;
    ParallelGroup g{an->stage, -1, static_cast<int>(i), 1};
    const auto* fu = i > 0 ? std::get_if<schedule::FuseStep>(&steps[i - 1]) : nullptr;
    if (fu && fu->stage == an->stage && !fu->iters.empty()) {
      bool prefix = true;
      for (size_t k = 0; k < fu->iters.size(); ++k) prefix &= fu->iters[k] == static_cast<int>(k);
      if (prefix) {
        g.fuse_step = static_cast<int>(i - 1);
        g.fused = static_cast<int>(fu->iters.size());
      }
    }
    out.push_back(g);
  }
  return out;
}

absl::Status SetParallelFused(std::vector<Step>* steps, const ParallelGroup& group, int fused) {
  // Later positions p >= 1 of the stage move by the change in the number of loops fused.
  const int shift = group.fused - std::max(fused, 1);
  for (size_t i = group.annotate_step + 1; i < steps->size(); ++i) {
    Step& step = (*steps)[i];
    if (InsertsStage(step)) return absl::FailedPreconditionError("a later step inserts a stage");
    bool swallowed = false;
    if (!ForEachLoopOf(step, group.stage, [&](int& p) {
          if (p < 1) return;
          p += shift;
          swallowed |= p < 1;
        }))
      return absl::FailedPreconditionError("a later step reorders the stage");
    if (swallowed) return absl::FailedPreconditionError("a later step names a loop the new fusion swallows");
  }
  // Then the group itself: the annotation stays (or goes), the fuse is rewritten, added or erased.
  if (fused == 0)
    if (auto s = EraseStep(steps, group.annotate_step); !s.ok()) return s;
  if (fused >= 2) {
    schedule::FuseStep fuse{group.stage, {}};
    for (int k = 0; k < fused; ++k) fuse.iters.push_back(k);
    if (group.fuse_step >= 0)
      (*steps)[group.fuse_step] = std::move(fuse);
    else
      InsertStep(steps, group.annotate_step, std::move(fuse));
  } else if (group.fuse_step >= 0) {
    if (auto s = EraseStep(steps, group.fuse_step); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::tuner
