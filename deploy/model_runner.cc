#include "deploy/model_runner.h"

namespace tunefarm::deploy {
namespace {

// `what` is "input" or "output"; `size_words` say the value's size ("takes"), `given_words` the
// caller's ("got ").
Status Check(const std::string& name, const char* what, const std::vector<int32_t>& ids, const ModelPlan& plan,
             size_t index, const void* data, size_t bytes, const char* size_words, const char* given_words) {
  if (index >= ids.size()) {
    return Status(StatusCode::kInvalidArgument, name + ": " + what + " index " + std::to_string(index) +
                                                    " is out of range (" + std::to_string(ids.size()) + " " + what +
                                                    "s)");
  }
  const PlanValue& value = plan.values[ids[index]];
  if (bytes != value.bytes) {
    return Status(StatusCode::kInvalidArgument, name + ": " + what + " " + std::to_string(index) + " (\"" +
                                                    value.name + "\", " + value.dtype + " " + ShapeText(value.shape) + ") " +
                                                    size_words + " " + std::to_string(value.bytes) + " bytes, " +
                                                    given_words + std::to_string(bytes));
  }
  if (data == nullptr && bytes > 0) {
    return Status(StatusCode::kInvalidArgument, name + ": " + what + " " + std::to_string(index) + ": data is null");
  }
  return Status();
}

}  // namespace

Status ModelRunner::CheckInput(const std::string& name, size_t index, const void* data, size_t bytes) const {
  return Check(name, "input", plan().inputs, plan(), index, data, bytes, "takes", "got ");
}

Status ModelRunner::CheckOutput(const std::string& name, size_t index, const void* data, size_t bytes) const {
  return Check(name, "output", plan().outputs, plan(), index, data, bytes, "has", "the buffer ");
}

}  // namespace tunefarm::deploy
