// Annotation and pragma steps: they change how a loop runs, never what it computes.
#include "common/strings.h"
#include "compiler/schedule/step_common.h"

namespace tunefarm::schedule {

// Widest vector loop codegen accepts, and largest loop the unroller copies out.
constexpr int64_t kMaxVectorExtent = 64;
constexpr int64_t kMaxUnrollExtent = 256;

namespace {

bool IsBlock(IterAnnotation a) { return a >= IterAnnotation::kBlockX && a <= IterAnnotation::kBlockZ; }

// Why `iter` of `stage` cannot be bound to `axis`, or "". Launch-wide rules (extents within the
// device's limits, one extent per dimension across stages) are checked when the kernel is
// lowered for its target (tir/gpu_launch.h).
std::string CheckThreadBinding(const Stage& stage, int iter, IterAnnotation axis) {
  const IterNode& node = stage.node_of(iter);
  // A cross-thread reduction (tir/lower.cc): the block's threads share the innermost reduce
  // loop, each reducing its part into shared memory, then a tree combines the parts.
  const bool cross_thread = node.kind == IterKind::kReduce && axis == IterAnnotation::kThreadX &&
                            iter == static_cast<int>(stage.iters.size()) - 1;
  if (node.kind == IterKind::kReduce && !cross_thread) {
    return "cannot bind a reduce iterator to a GPU axis, but the innermost one to threadIdx.x (a cross-thread "
           "reduction); others would race";
  }
  if (node.extent == kUnknownExtent) return "cannot bind an iterator of unknown extent to a GPU axis";
  for (int i = 0; i < static_cast<int>(stage.iters.size()); ++i) {
    IterAnnotation other = stage.iters[i].annotation;
    if (other == axis) return StrCat(IterAnnotationName(axis), " is already bound to iterator ", i);
    if (i < iter && stage.node_of(i).kind == IterKind::kReduce && !cross_thread) {
      return "cannot bind an iterator nested inside a reduce iterator to a GPU axis";
    }
    if (i < iter && IsBlock(axis) && IsThreadBinding(other) && !IsBlock(other)) {
      return StrCat("a block axis cannot be nested inside thread axis ", IterAnnotationName(other));
    }
    if (i > iter && !IsBlock(axis) && IsBlock(other)) {
      return StrCat("a thread axis cannot enclose block axis ", IterAnnotationName(other));
    }
  }
  return "";
}

}  // namespace

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
    case IterAnnotation::kBlockX:
    case IterAnnotation::kBlockY:
    case IterAnnotation::kBlockZ:
    case IterAnnotation::kThreadX:
    case IterAnnotation::kThreadY:
    case IterAnnotation::kThreadZ:
    case IterAnnotation::kVThread:
      if (auto s = CheckThreadBinding(stage, step.iter, step.annotation); !s.empty()) return error(s);
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
