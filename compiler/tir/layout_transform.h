// Weights whose layout a schedule rewrote (the "LR" step): which kernel parameter takes them,
// and the computation that turns the model's weights into that parameter at build time. The
// compiler runs it once per weight tensor; the kernel never repacks.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"

namespace tunefarm::tir {

struct RewrittenParam {
  int arg = -1;  // the kernel argument that takes the rewritten tensor
  // Tensor 0: the original weights (a placeholder); the output: the rewritten tensor.
  std::shared_ptr<const te::ComputeDag> transform;
};

// One entry per layout rewrite in `state`, in argument order.
std::vector<RewrittenParam> RewrittenParams(const schedule::State& state);

// The rewritten tensor's bytes from the original weights' bytes.
absl::StatusOr<std::string> TransformWeights(const te::ComputeDag& transform, std::string_view weights);

// For `state`'s kernel fed the inputs of its DAG's unscheduled kernel (same argument order): the
// bytes each rewritten argument takes instead, by argument index. `original(arg)` gives that
// argument's bytes as the unscheduled kernel takes them. Empty when nothing is rewritten.
absl::StatusOr<std::map<int, std::string>> TransformRewrittenArgs(
    const schedule::State& state, const std::function<std::string_view(int arg)>& original);

}  // namespace tunefarm::tir
