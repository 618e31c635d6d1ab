#include "compiler/passes/square_by_multiplication.h"

#include "common/log.h"
#include "compiler/passes/graph_rewriter.h"

namespace tunefarm::passes {
namespace {

// x ** 2 for a float x, with the exponent a one-element param that does not widen the result's
// rank (so x * x has the result's shape).
bool IsSquare(const graph::Graph& g, const graph::Node& n) {
  if (n.op != "Pow" || n.inputs.size() != 2) return false;
  const graph::Node& exponent = g.node(n.inputs[1].node);
  const graph::TensorType& x = g.type(n.inputs[0]);
  const graph::TensorType& y = g.type(n.inputs[1]);
  if (!exponent.IsParam() || !te::IsFloat(x.dtype) || y.shape.size() > x.shape.size()) return false;
  const graph::HostTensor& value = g.params().at(exponent.name);
  return value.NumElements() == 1 && value.GetDouble(0) == 2.0;
}

}  // namespace

absl::StatusOr<graph::Graph> SquareByMultiplication(const graph::Graph& g) {
  GraphRewriter rw(g);
  int rewritten = 0;
  for (int id = 0; id < static_cast<int>(g.nodes().size()); ++id) {
    const graph::Node& n = g.node(id);
    if (!IsSquare(g, n)) {
      if (absl::Status s = rw.Copy(id); !s.ok()) return s;
      continue;
    }
    const graph::NodeEntry x = rw.Lookup(n.inputs[0]);
    auto out = rw.AddNode("Mul", n.name, {x, x}, graph::Attrs());
    if (!out.ok()) return out.status();
    rw.Map({id, 0}, *out);
    ++rewritten;
  }
  if (rewritten > 0) TF_LOG(INFO, "passes") << "square-by-mul: " << rewritten << " squares become multiplications";
  return rw.Finish();
}

}  // namespace tunefarm::passes
