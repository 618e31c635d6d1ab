// Kernel inputs for a program whose schedule rewrote the layout of constant weights (the "LR"
// step): such a kernel takes the weights in its tiles' order, so a test that feeds the inputs of
// the task's naive kernel must transform them first, as the compiler does at build time.
#pragma once

#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"
#include "compiler/tir/layout_transform.h"

namespace tunefarm::testing {

// Argument index -> the bytes `program`'s kernel takes there, for every rewritten argument;
// `original(arg)` gives that argument's bytes as the naive kernel takes them.
inline absl::StatusOr<std::map<int, std::string>> RewrittenWeights(
    const schedule::State& program, const std::function<std::string_view(int arg)>& original) {
  std::map<int, std::string> out;
  for (const tir::RewrittenParam& rp : tir::RewrittenParams(program)) {
    absl::StatusOr<std::string> bytes = tir::TransformWeights(*rp.transform, original(rp.arg));
    if (!bytes.ok()) return bytes.status();
    out[rp.arg] = std::move(*bytes);
  }
  return out;
}

// The same for float inputs held as vectors, in argument order: rewritten in place.
inline absl::Status RewriteFloatInputs(const schedule::State& program, std::vector<std::vector<float>>* inputs) {
  auto rewritten = RewrittenWeights(program, [&](int arg) {
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
