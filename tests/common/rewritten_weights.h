// Kernel inputs for a program whose schedule rewrote the layout of constant weights (the "LR"
// step): such a kernel takes the weights in its tiles' order, so a test that feeds the inputs of
// the task's naive kernel must transform them first, as the compiler does at build time.
#pragma once

#include <cstring>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"
#include "compiler/tir/layout_transform.h"

namespace tunefarm::testing {

// Float inputs of the task's naive kernel, held as vectors in argument order, rewritten in place
// into the inputs `program`'s kernel takes (tir::TransformRewrittenArgs).
inline absl::Status RewriteFloatInputs(const schedule::State& program, std::vector<std::vector<float>>* inputs) {
  auto rewritten = tir::TransformRewrittenArgs(program, [&](int arg) {
    const std::vector<float>& v = (*inputs)[arg];
    return std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  });
  if (!rewritten.ok()) return rewritten.status();
  for (const auto& [arg, bytes] : *rewritten) {
    (*inputs)[arg].resize(bytes.size() / sizeof(float));
    std::memcpy((*inputs)[arg].data(), bytes.data(), bytes.size());
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::testing
