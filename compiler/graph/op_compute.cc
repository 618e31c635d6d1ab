#include "compiler/graph/op_compute.h"

#include <set>
#include <string>

#include "common/strings.h"

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
  if (UsesStorageFloats(node, inputs) && !CarriesStorageFloats(node.op))
    return fail(absl::StatusCode::kUnimplemented,
                "float16/bfloat16 tensors are only supported by Cast and ops that move elements "
                "(Identity, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat)");
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
