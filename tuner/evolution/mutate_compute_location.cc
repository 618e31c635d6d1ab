// Compute location (Ansor's MutateComputeLocation, widened to every choice random annotation
// has): one location step of a stage no sketch rule placed takes another of those choices.
#include <set>
#include <utility>

#include "common/strings.h"
#include "tuner/evolution/mutation_rules.h"
#include "tuner/evolution/step_edit.h"
#include "tuner/search_space/compute_location_choices.h"

namespace tunefarm::tuner {
namespace {

using schedule::ComputeLocation;
using schedule::State;
using schedule::Step;

bool IsLocationStep(const Step& s) {
  return std::holds_alternative<schedule::ComputeAtStep>(s) || std::holds_alternative<schedule::ComputeInlineStep>(s) ||
         std::holds_alternative<schedule::ComputeRootStep>(s);
}

// The stages random annotation places. A stage the inline sketch rule placed (strictly
// inlinable, inlined) is left to it.
bool Relocatable(const State& s, int stage, const Step& step) {
  const te::StageAnalysis& a = s.dag().analysis(s.stage(stage).tensor_id);
  if (std::holds_alternative<schedule::ComputeInlineStep>(step) && a.strictly_inlinable) return false;
  return tuner::Relocatable(s, stage);
}

bool SameChoice(const Step& a, const Step& b) {
  if (a.index() != b.index()) return false;
  const auto* x = std::get_if<schedule::ComputeAtStep>(&a);
  const auto* y = std::get_if<schedule::ComputeAtStep>(&b);
  return !x || (x->target_stage == y->target_stage && x->target_iter == y->target_iter);
}

struct Slot {
  size_t step;
  bool insert;  // a new step at `step` (the stage has none) rather than an edit of step `step`
  int stage;
  std::vector<Step> choices;  // without the current one
};

}  // namespace

absl::StatusOr<State> MutateComputeLocation(const State& parent, const SearchTarget&, std::mt19937_64& rng) {
  std::vector<Step> steps = parent.steps();
  // Replay once, noting each location step of a relocatable stage and its other choices as they
  // were when annotation chose; a relocatable stage annotation kept at the root wrote no step,
  // and may get one where annotation's location steps end.
  std::vector<Slot> slots;
  std::set<std::pair<int, int>> placed;  // (stage, stage count) with a location step
  const size_t end = AnnotationEnd(steps);
  State scratch(parent.original_dag());
  for (size_t i = 0; i <= steps.size(); ++i) {
    const int stages = static_cast<int>(scratch.stages().size());
    if (i == end)
      for (int st = 0; st < stages; ++st)
        if (!placed.count({st, stages}) && Relocatable(scratch, st, schedule::ComputeRootStep{st})) {
          Slot slot{i, true, st, {}};
          for (Step& c : ComputeLocationChoices(scratch, st))
            if (!std::holds_alternative<schedule::ComputeRootStep>(c)) slot.choices.push_back(std::move(c));
          if (!slot.choices.empty()) slots.push_back(std::move(slot));
        }
    if (i == steps.size()) break;
    if (IsLocationStep(steps[i])) {
      const int st = StepStage(steps[i]);
      placed.insert({st, stages});
      if (Relocatable(scratch, st, steps[i])) {
        Slot slot{i, false, st, {}};
        for (Step& c : ComputeLocationChoices(scratch, st))
          if (!SameChoice(c, steps[i])) slot.choices.push_back(std::move(c));
        if (!slot.choices.empty()) slots.push_back(std::move(slot));
      }
    }
    if (auto s = scratch.Apply(steps[i]); !s.ok()) return s;
  }
  if (slots.empty()) return absl::FailedPreconditionError("no stage annotation places");
  const Slot& slot = slots[rng() % slots.size()];
  const int stage = slot.stage;
  Step choice = slot.choices[rng() % slot.choices.size()];
  if (slot.insert)
    InsertStep(&steps, slot.step, choice);
  else
    steps[slot.step] = choice;

  if (std::holds_alternative<schedule::ComputeInlineStep>(choice)) {
    // An inlined stage has no loops: its later steps go.
    for (size_t i = steps.size(); i-- > slot.step + 1;)
      if (StepStage(steps[i]) == stage)
        if (auto s = EraseStep(&steps, i); !s.ok()) return s;
  } else if (std::holds_alternative<schedule::ComputeAtStep>(choice)) {
    // Its own parallel loop would nest in the reader's loops: it goes.
    for (const ParallelGroup& g : FindParallelGroups(steps))
      if (g.stage == stage && g.annotate_step > static_cast<int>(slot.step)) {
        if (auto s = SetParallelFused(&steps, g, 0); !s.ok()) return s;
        break;
      }
  }
  return ReplaySteps(parent.original_dag(), steps);
}

}  // namespace tunefarm::tuner
