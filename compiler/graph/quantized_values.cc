#include "compiler/graph/quantized_values.h"

#include "common/status_macros.h"
#include "common/strings.h"

namespace tunefarm::graph::quantized {

Attrs CastTo(te::DType t) {
  Attrs a;
  a.Set("to", std::string(te::DTypeName(t)));
  return a;
}

absl::StatusOr<std::string> EmitValue(OnnxNode& n, const std::string& op, const std::vector<std::string>& inputs,
                                      Attrs attrs, const std::string& what) {
  std::string out = n.UniqueName(StrCat(n.output(0), ".", what));
  TF_RETURN_IF_ERROR(n.Emit(op, inputs, std::move(attrs), {out}, out));
  return out;
}

absl::StatusOr<std::string> Reshaped(OnnxNode& n, const std::string& value, std::vector<int64_t> shape,
                                     const std::string& what) {
  Attrs a;
  a.Set("shape", std::move(shape));
  return EmitValue(n, "Reshape", {value}, std::move(a), what);
}

absl::StatusOr<std::string> Broadcastable(OnnxNode& n, const std::string& value, std::vector<int64_t> shape,
                                          const std::string& what) {
  if (n.Type(value).NumElements() <= 1 || shape.empty()) return value;
  return Reshaped(n, value, std::move(shape), what);
}

absl::StatusOr<std::string> SumOver(OnnxNode& n, const std::string& x, std::vector<int64_t> axes, bool keep,
                                    const std::string& what) {
  Attrs a;
  a.Set("axes", std::move(axes));
  a.Set("keepdims", int64_t{keep ? 1 : 0});
  return EmitValue(n, "ReduceSum", {x}, std::move(a), what);
}

absl::Status NeedEightBit(OnnxNode& n, int i, const char* what) {
  const te::DType t = n.InputType(i).dtype;
  if (t != te::DType::kUInt8 && t != te::DType::kInt8)
    return n.Error(StrCat(what, " must be uint8 or int8, got ", n.InputType(i).ToString()));
  return absl::OkStatus();
}

std::vector<int64_t> RowShape(const TensorType& a) {
  return a.shape.size() >= 2 ? std::vector<int64_t>{a.shape[a.shape.size() - 2], 1} : std::vector<int64_t>{};
}

absl::Status EmitPlainOutput(OnnxNode& n, const IntegerResult& result, const std::string& value) {
  if (result.plain_shape.empty()) return n.Emit("Identity", {value}, {}, {n.output(0)});
  std::string blocked = value;
  if (!result.unblock_perm.empty()) {
    Attrs perm;
    perm.Set("perm", result.unblock_perm);
    auto moved = EmitValue(n, "Transpose", {value}, std::move(perm), "unblocked");
    if (!moved.ok()) return moved.status();
    blocked = *moved;
  }
  Attrs a;
  a.Set("shape", result.plain_shape);
  return n.Emit("Reshape", {blocked}, std::move(a), {n.output(0)});
}

}  // namespace tunefarm::graph::quantized
