#include "deploy/model_runner.h"

namespace tunefarm::deploy {
namespace {

std::string Shape(const PlanValue& value) {
  std::string text = value.dtype + " [";
  for (size_t i = 0; i < value.shape.size(); ++i) text += (i ? ", " : "") + std::to_string(value.shape[i]);
  return text + "]";
}

// `what` is "input" or "output"; `verb` how its size is said ("takes", "has").
Status Check(const std::string& name, const char* what, const std::vector<int32_t>& ids, const ModelPlan& plan,
             size_t index, const void* data, size_t bytes, const std::string& size_words) {
  if (index >= ids.size()) {
    return Status(StatusCode::kInvalidArgument, name + ": " + what + " index " + std::to_string(index) +
                                                    " is out of range (" + std::to_string(ids.size()) + " " + what +
                                                    "s)");
  }
  const PlanValue& value = plan.values[ids[index]];
  if (bytes != value.bytes) {
    return Status(StatusCode::kInvalidArgument, name + ": " + what + " " + std::to_string(index) + " (\"" +
                                                    value.name + "\", " + Shape(value) + ") " + size_words + " " +
                                                    std::to_string(value.bytes) + " bytes, " +
                                                    (what[0] == 'i' ? "got " : "the buffer ") + std::to_string(bytes));
  }
  if (data == nullptr && bytes > 0) {
    return Status(StatusCode::kInvalidArgument, name + ": " + what + " " + std::to_string(index) + ": data is null");
  }
  return Status();
}

}  // namespace

Status ModelRunner::CheckInput(const std::string& name, size_t index, const void* data, size_t bytes) const {
  return Check(name, "input", plan().inputs, plan(), index, data, bytes, "takes");
}

Status ModelRunner::CheckOutput(const std::string& name, size_t index, const void* data, size_t bytes) const {
  return Check(name, "output", plan().outputs, plan(), index, data, bytes, "has");
}

}  // namespace tunefarm::deploy
