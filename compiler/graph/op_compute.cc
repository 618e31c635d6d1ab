#include "compiler/graph/op_compute.h"

#include <set>
#include <string>

#include "common/strings.h"
#include "compiler/ops/unary.h"

namespace tunefarm::graph {
namespace {

// float16 and bfloat16 are storage types (te/dtype.h): Cast converts them, and ops that only
// move elements carry them; every other op needs a Cast to float32 around it.
bool CarriesStorageFloats(const std::string& op) {
  static const auto* ops = new std::set<std::string>{"Cast",      "Identity", "Reshape",  "Flatten",
                                                     "Squeeze",   "Unsqueeze", "Transpose", "Concat"};
  return ops->count(op) != 0;
}

bool UsesStorageFloats(const Node& node, const std::vector<TeTensor>& inputs) {
  for (const TeTensor& t : inputs)
    if (te::IsStorageFloat(t.dtype)) return true;
  for (const TensorType& t : node.outputs)
    if (te::IsStorageFloat(t.dtype)) return true;
  return false;
}

// float16/bfloat16 arithmetic, as ONNX Runtime's CPU provider does it: inputs widened to float32,
// the op computed in float32, outputs rounded back to their 16-bit type.
absl::StatusOr<std::vector<TeTensor>> ComputeInFloat32(te::DagBuilder& b, const Node& node,
                                                       const std::vector<TeTensor>& inputs) {
  std::vector<TeTensor> wide;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!te::IsStorageFloat(inputs[i].dtype)) {
      wide.push_back(inputs[i]);
      continue;
    }
    auto cast = ops::Cast(b, inputs[i], te::DType::kFloat32, StrCat(node.name, ".in", i, ".f32"));
    if (!cast.ok()) return cast.status();
    wide.push_back(*cast);
  }
  Node wide_node = node;
  wide_node.name = StrCat(node.name, ".f32");
  for (TensorType& t : wide_node.outputs)
    if (te::IsStorageFloat(t.dtype)) t.dtype = te::DType::kFloat32;
  auto outs = ComputeNode(b, wide_node, wide);
  if (!outs.ok()) return outs.status();
  for (size_t i = 0; i < outs->size(); ++i) {
    if (!te::IsStorageFloat(node.outputs[i].dtype)) continue;
    auto narrow = ops::Cast(b, (*outs)[i], node.outputs[i].dtype, outs->size() == 1 ? node.name : StrCat(node.name, ".out", i));
    if (!narrow.ok()) return narrow.status();
    (*outs)[i] = *narrow;
  }
  return outs;
}

}  // namespace

absl::StatusOr<std::vector<TeTensor>> ComputeNode(te::DagBuilder& b, const Node& node,
                                                  const std::vector<TeTensor>& inputs) {
  auto fail = [&](absl::StatusCode code, const std::string& why) {
    return absl::Status(code, StrCat("node '", node.name, "' (op ", node.op, "): ", why));
  };
  const OpSchema* schema = OpRegistry::Global().Find(node.op);
  if (schema == nullptr) return fail(absl::StatusCode::kUnimplemented, "unknown op");
  if (!schema->compute || !schema->compute->fn)
    return fail(absl::StatusCode::kUnimplemented, "the op has no compute");
  if (inputs.size() != node.inputs.size())
    return fail(absl::StatusCode::kInvalidArgument,
                StrCat("got ", inputs.size(), " input tensors for ", node.inputs.size(), " inputs"));
  if (UsesStorageFloats(node, inputs) && !CarriesStorageFloats(node.op)) return ComputeInFloat32(b, node, inputs);
  auto outs = schema->compute->fn(b, node, inputs);
  if (!outs.ok()) return fail(outs.status().code(), std::string(outs.status().message()));
  if (outs->size() != node.outputs.size())
    return fail(absl::StatusCode::kInternal,
                StrCat("compute gave ", outs->size(), " outputs, the node has ", node.outputs.size()));
  for (size_t i = 0; i < outs->size(); ++i) {
    const TeTensor& t = (*outs)[i];
    TensorType got{t.dtype, t.shape};
    if (!(got == node.outputs[i]))
      return fail(absl::StatusCode::kInternal, StrCat("output ", i, " is ", got.ToString(), " but inference says ",
                                                      node.outputs[i].ToString()));
  }
  return outs;
}

}  // namespace tunefarm::graph
