// Computes of the shape ops: every shape-like operand is an attribute, and ops that only
// re-view the data (Reshape, Flatten, (Un)Squeeze) reshape to the type inference resolved.
#include "compiler/graph/compute_common.h"
#include "compiler/ops/gather.h"
#include "compiler/ops/pad.h"
#include "compiler/ops/transform.h"

namespace tunefarm::graph {
namespace {
using namespace compute;

Outputs ReshapeToOutput(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  return One(ops::Reshape(b, in[0], ops::ReshapeParams{n.outputs[0].shape}, n.name));
}

Outputs PadCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  std::string mode = n.attrs.GetString("mode");
  ops::PadParams p;
  p.mode = mode == "reflect" ? ops::PadMode::kReflect : mode == "edge" ? ops::PadMode::kEdge : ops::PadMode::kConstant;
  p.pads = n.attrs.GetInts("pads");
  p.value = n.attrs.GetFloat("value");
  return One(ops::Pad(b, in[0], p, n.name));
}

// The input's static shape as an int64 vector: a select chain over the index.
Outputs ShapeCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  const std::vector<int64_t>& dims = in[0].shape;
  if (dims.empty()) return absl::InvalidArgumentError("the shape of a 0-d tensor is empty");
  return std::vector<TeTensor>{b.Compute(n.name, {static_cast<int64_t>(dims.size())}, [&](const te::DagBuilder::Axes& i) {
    te::Expr v = te::IntImm(te::DType::kInt64, dims.back());
    for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d)
      v = te::Select(te::Eq(i[0], te::IntImm(te::kIndexType, d)), te::IntImm(te::DType::kInt64, dims[d]), v);
    return v;
  })};
}

}  // namespace

void RegisterShapeComputes(OpRegistry* r) {
  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}) Set(r, op, ReshapeToOutput);
  Set(r, "Transpose", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Transpose(b, in[0], ops::TransposeParams{n.attrs.GetInts("perm")}, n.name));
  });
  Set(r, "Concat", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Concat(b, in, n.attrs.GetInt("axis"), n.name));
  });
  Set(r, "Slice", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    ops::SliceParams p{n.attrs.GetInts("starts"), n.attrs.GetInts("ends"), n.attrs.GetInts("axes"),
                       n.attrs.GetInts("steps")};
    return One(ops::Slice(b, in[0], p, n.name));
  });
  Set(r, "Gather", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Gather(b, in[0], in[1], ops::GatherParams{n.attrs.GetInt("axis")}, n.name));
  });
  Set(r, "Expand", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Expand(b, in[0], n.attrs.GetInts("shape"), n.name));
  });
  Set(r, "Tile", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Tile(b, in[0], n.attrs.GetInts("repeats"), n.name));
  });
  Set(r, "Pad", PadCompute);
  Set(r, "Shape", ShapeCompute);
}

}  // namespace tunefarm::graph
