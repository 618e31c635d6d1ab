#include "compiler/graph/const_eval.h"

#include <set>
#include <string>

#include "common/log.h"
#include "compiler/graph/node_interpreter.h"

namespace tunefarm::graph {
namespace {

// Ops whose output is their input's bytes under another shape.
const std::set<std::string> kViews = {"Identity", "Reshape", "Flatten", "Unsqueeze", "Squeeze"};

}  // namespace

absl::StatusOr<std::optional<std::vector<HostTensor>>> EvaluateConstant(const Node& node,
                                                                        const std::vector<const HostTensor*>& in,
                                                                        int64_t max_elements) {
  using Result = std::optional<std::vector<HostTensor>>;
  int64_t elements = 0;
  for (const TensorType& t : node.outputs)
    if (__builtin_add_overflow(elements, t.NumElements(), &elements)) elements = INT64_MAX;
  if (node.outputs.empty() || elements > max_elements) return std::nullopt;

  if (kViews.count(node.op) && !in.empty()) {
    HostTensor t = *in[0];
    t.shape = node.outputs[0].shape;
    return Result(std::vector<HostTensor>{std::move(t)});
  }
  auto outs = InterpretNode(node, in);
  if (outs.ok()) return Result(std::move(*outs));
  // The interpreter failed on these values (an access out of bounds: ops guard divisions and
  // indices, so a compiler bug): the caller reports it. Anything else only means this node stays
  // in the graph for the kernels.
  if (outs.status().code() == absl::StatusCode::kInvalidArgument) return outs.status();
  TF_LOG(DEBUG, "graph") << "const-eval: " << node.op << " '" << node.name
                         << "' stays a kernel: " << std::string(outs.status().message());
  return std::nullopt;
}

}  // namespace tunefarm::graph
