#include "compiler/graph/onnx_converter.h"

#include "common/strings.h"

namespace tunefarm::graph {

absl::Status OnnxNode::EmitAsIs(const std::string& op, Attrs attrs) {
  std::vector<std::string> inputs, outputs;
  for (int i = 0; i < num_inputs(); ++i) {
    if (!HasInput(i)) {
      for (int k = i + 1; k < num_inputs(); ++k)
        if (HasInput(k)) return Error(StrCat("optional input ", i, " left empty is not supported"));
      break;
    }
    inputs.push_back(input(i));
  }
  for (int i = 0; i < num_outputs(); ++i) outputs.push_back(output(i));
  return Emit(op, inputs, std::move(attrs), outputs);
}

absl::StatusOr<int64_t> OnnxNode::ConstInt(int i, const char* what) const {
  auto values = ConstInts(i, what);
  if (!values.ok()) return values.status();
  if (values->size() != 1) return Error(StrCat(what, " must hold one value, got ", values->size()));
  return (*values)[0];
}

absl::Status OnnxNode::IntsInputToAttr(int i, const char* attr, Attrs* attrs, const char* what) const {
  if (!HasInput(i)) return absl::OkStatus();
  auto values = ConstInts(i, what != nullptr ? what : attr);
  if (!values.ok()) return values.status();
  attrs->Set(attr, *values);
  return absl::OkStatus();
}

absl::Status OnnxNode::ScalarInputToAttr(int i, const char* attr, Attrs* attrs, const char* what) const {
  if (!HasInput(i)) return absl::OkStatus();
  auto value = ConstScalar(i, what != nullptr ? what : attr);
  if (!value.ok()) return value.status();
  attrs->Set(attr, *value);
  return absl::OkStatus();
}

absl::Status OnnxNode::NeedInputs(int count) const {
  for (int i = 0; i < count; ++i)
    if (!HasInput(i)) return Error(StrCat("missing input ", i));
  return absl::OkStatus();
}

absl::Status OnnxNode::FirstOutputOnly() const {
  for (int i = 1; i < num_outputs(); ++i)
    if (HasOutput(i)) return Error(StrCat("output ", i, " ('", output(i), "') is not supported"));
  return absl::OkStatus();
}

}  // namespace tunefarm::graph
