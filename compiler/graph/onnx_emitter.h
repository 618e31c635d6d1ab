// Emitting several graph ops from one ONNX converter (family_*.cc): each op writes a fresh
// value named after the node, so a converter that unrolls or decomposes (RNN cells, DFTs) reads
// as the sequence of ops it builds.
#pragma once

#include <string>
#include <vector>

#include "common/strings.h"
#include "compiler/graph/onnx_converter.h"

namespace tunefarm::graph {

class OnnxEmitter {
 public:
  // `base` names the values: "<base>.<Op>", made unique.
  OnnxEmitter(OnnxNode& n, std::string base) : n_(n), base_(std::move(base)) {}

  absl::StatusOr<std::string> Op(const std::string& op, const std::vector<std::string>& inputs, Attrs attrs = {});
  // One range [start, end) of one axis.
  absl::StatusOr<std::string> Slice(const std::string& v, int64_t axis, int64_t start, int64_t end);
  absl::StatusOr<std::string> Reshape(const std::string& v, std::vector<int64_t> shape);
  absl::StatusOr<std::string> Transpose(const std::string& v, std::vector<int64_t> perm);
  absl::StatusOr<std::string> Concat(const std::vector<std::string>& parts, int64_t axis);
  // a [m, k] times b [n, k] transposed (a Gemm), plus an optional bias [n] ("" for none).
  absl::StatusOr<std::string> Linear(const std::string& a, const std::string& b, const std::string& bias);
  // A compile-time constant value.
  std::string Constant(HostTensor value);

 private:
  OnnxNode& n_;
  std::string base_;
};

// `lhs = value of expr`, or return its error (expr: a StatusOr).
#define TF_ASSIGN(lhs, expr)          \
  do {                                \
    auto _v = (expr);                 \
    if (!_v.ok()) return _v.status(); \
    lhs = *std::move(_v);             \
  } while (0)

}  // namespace tunefarm::graph
