// Annotation and pragma steps: they change how a loop runs, never what it computes.
#include "common/strings.h"
#include "compiler/schedule/step_common.h"

namespace tunefarm::schedule {

// Widest vector loop codegen accepts, and largest loop the unroller copies out.
constexpr int64_t kMaxVectorExtent = 64;
constexpr int64_t kMaxUnrollExtent = 256;

absl::Status ApplyAnnotation(const AnnotationStep& step, State* state) {
  if (auto s = CheckStageIter(*state, "AN", step.stage, step.iter); !s.ok()) return s;
  if (step.iter < 0) return StepError("AN", step.stage, step.iter, "negative iterator index");
  auto error = [&](std::string_view why) { return StepError("AN", step.stage, step.iter, why); };
  const Stage& stage = state->stage(step.stage);
  const Iterator& it = stage.iters[step.iter];
  const IterNode& node = stage.nodes[it.node];
  if (it.annotation != IterAnnotation::kNone)
    return error(StrCat("iterator is already annotated ", IterAnnotationName(it.annotation)));
  switch (step.annotation) {
    case IterAnnotation::kParallel:
      if (node.kind == IterKind::kReduce) return error("cannot parallelize a reduce iterator (tasks would race)");
      for (int i = 0; i < step.iter; ++i)
        if (stage.node_of(i).kind == IterKind::kReduce)
          return error("cannot parallelize an iterator nested inside a reduce iterator");
      break;
    case IterAnnotation::kVectorize:
      if (node.kind == IterKind::kReduce) return error("cannot vectorize a reduce iterator (lanes would race)");
      if (step.iter != static_cast<int>(stage.iters.size()) - 1) return error("only the innermost iterator can be vectorized");
      if (node.extent == kUnknownExtent) return error("cannot vectorize an iterator of unknown extent");
      if (node.extent > kMaxVectorExtent) return error(StrCat("vector extent ", node.extent, " exceeds ", kMaxVectorExtent));
      break;
    case IterAnnotation::kUnroll:
      if (node.extent == kUnknownExtent) return error("cannot unroll an iterator of unknown extent");
      if (node.extent > kMaxUnrollExtent) return error(StrCat("unroll extent ", node.extent, " exceeds ", kMaxUnrollExtent));
      break;
    case IterAnnotation::kNone:
      return error("'none' is not an annotation");
  }
  state->mutable_stage(step.stage).iters[step.iter].annotation = step.annotation;
  return absl::OkStatus();
}

absl::Status ApplyPragma(const PragmaStep& step, State* state) {
  if (auto s = CheckStageIter(*state, "PR", step.stage, step.iter); !s.ok()) return s;
  if (step.iter < 0) return StepError("PR", step.stage, step.iter, "negative iterator index");
  if (step.auto_unroll_max_step < 0 || step.auto_unroll_max_step > 4096)
    return StepError("PR", step.stage, step.iter, "auto_unroll_max_step must be in [0, 4096]");
  state->mutable_stage(step.stage).auto_unroll_max_step = step.auto_unroll_max_step;
  return absl::OkStatus();
}

}  // namespace tunefarm::schedule
