#include "device_agent/batch_inputs.h"

#include <cstdio>

#include "device_agent/input_generator.h"

namespace tunefarm::agent {
namespace {

// Same inputs: the generator depends on the dtype, shape and integer range of each argument.
bool SameInputs(const std::vector<deploy::ArgInfo>& a, const std::vector<deploy::ArgInfo>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameArg(a[i], b[i]) || a[i].range.has_value() != b[i].range.has_value()) return false;
    if (a[i].range && (a[i].range->lo != b[i].range->lo || a[i].range->hi != b[i].range->hi)) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string Quoted(const std::string& text) { return "\"" + text + "\""; }

std::string NumberText(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string ArgText(const deploy::ArgInfo& arg) {
  return arg.name + " " + arg.dtype + deploy::ShapeText(arg.shape, ",") + " " + deploy::ArgRoleName(arg.role);
}

bool SameArg(const deploy::ArgInfo& a, const deploy::ArgInfo& b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.role == b.role;
}

int BatchInputs::Make(const std::vector<deploy::ArgInfo>& args, uint64_t seed) {
  if (ready_ && SameInputs(args, args_)) return -1;
  ready_ = false;
  inputs_.clear();
  std::vector<FrozenBuffer> inputs(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const deploy::ArgInfo& arg = args[i];
    if (arg.role == deploy::ArgRole::kOut) continue;
    deploy::Result<FrozenBuffer> generated = FrozenBuffer::Make(
        static_cast<size_t>(arg.NumBytes()), [&](void* data) { FillInput(arg, static_cast<int32_t>(i), seed, data); });
    if (!generated.ok()) return static_cast<int>(i);
    inputs[i] = std::move(generated).value();
  }
  inputs_ = std::move(inputs);
  args_ = args;
  ready_ = true;
  return -1;
}

}  // namespace tunefarm::agent
