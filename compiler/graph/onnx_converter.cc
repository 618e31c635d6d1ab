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
