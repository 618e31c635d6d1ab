#include "compiler/graph/onnx_emitter.h"

namespace tunefarm::graph {

absl::StatusOr<std::string> OnnxEmitter::Op(const std::string& op, const std::vector<std::string>& inputs, Attrs attrs) {
  std::string out = n_.UniqueName(StrCat(base_, ".", op));
  if (absl::Status s = n_.Emit(op, inputs, std::move(attrs), {out}, out); !s.ok()) return s;
  return out;
}

absl::StatusOr<std::string> OnnxEmitter::Slice(const std::string& v, int64_t axis, int64_t start, int64_t end) {
  Attrs a;
  a.Set("starts", std::vector<int64_t>{start});
  a.Set("ends", std::vector<int64_t>{end});
  a.Set("axes", std::vector<int64_t>{axis});
  return Op("Slice", {v}, std::move(a));
}

absl::StatusOr<std::string> OnnxEmitter::Reshape(const std::string& v, std::vector<int64_t> shape) {
  Attrs a;
  a.Set("shape", std::move(shape));
  return Op("Reshape", {v}, std::move(a));
}

absl::StatusOr<std::string> OnnxEmitter::Transpose(const std::string& v, std::vector<int64_t> perm) {
  Attrs a;
  a.Set("perm", std::move(perm));
  return Op("Transpose", {v}, std::move(a));
}

absl::StatusOr<std::string> OnnxEmitter::Concat(const std::vector<std::string>& parts, int64_t axis) {
  if (parts.size() == 1) return parts[0];
  Attrs a;
  a.Set("axis", axis);
  return Op("Concat", parts, std::move(a));
}

absl::StatusOr<std::string> OnnxEmitter::Linear(const std::string& a, const std::string& b, const std::string& bias) {
  Attrs t;
  t.Set("transB", int64_t{1});
  if (bias.empty()) return Op("Gemm", {a, b}, std::move(t));
  return Op("Gemm", {a, b, bias}, std::move(t));
}

std::string OnnxEmitter::Constant(HostTensor value) {
  std::string name = n_.UniqueName(StrCat(base_, ".const"));
  n_.BindConstant(name, std::move(value));
  return name;
}

}  // namespace tunefarm::graph
