#include "compiler/graph/shifted_operand.h"

#include "common/status_macros.h"
#include "common/strings.h"
#include "compiler/graph/quantized_values.h"

namespace tunefarm::graph::quantized {
namespace {

// A new int32 scalar constant holding `v`.
std::string Int32Constant(OnnxNode& n, int64_t v, const std::string& what) {
  std::string name = n.UniqueName(StrCat(n.output(0), ".", what));
  HostTensor scalar = *HostTensor::Zeros(te::DType::kInt32, {});
  scalar.SetInt(0, v);
  n.BindConstant(name, std::move(scalar));
  return name;
}

}  // namespace

int ShiftTo(te::DType have, te::DType want) {
  if (have == want) return 0;
  return want == te::DType::kUInt8 ? 128 : -128;
}

absl::StatusOr<ShiftedOperand> ReadAs(OnnxNode& n, int input, int zp, te::DType want, const std::string& what) {
  const te::DType have = n.InputType(input).dtype;
  if (n.HasInput(zp) && n.InputType(zp).dtype != have)
    return n.Error(StrCat(what, "'s zero point ", n.InputType(zp).ToString(), " differs in dtype from ",
                          n.InputType(input).ToString()));
  ShiftedOperand op{n.input(input), zp, ShiftTo(have, want)};
  if (op.shift == 0) return op;
  auto wide = EmitValue(n, "Cast", {op.value}, CastTo(te::DType::kInt32), what + "_i32");
  if (!wide.ok()) return wide.status();
  auto moved = EmitValue(n, "Add", {*wide, Int32Constant(n, op.shift, what + "_shift")}, {}, what + "_shifted");
  if (!moved.ok()) return moved.status();
  auto narrow = EmitValue(n, "Cast", {*moved}, CastTo(want), StrCat(what, "_as_", te::DTypeName(want)));
  if (!narrow.ok()) return narrow.status();
  op.value = *narrow;
  return op;
}

std::optional<double> ConstantZeroPoint(OnnxNode& n, const ShiftedOperand& op) {
  if (!n.HasInput(op.zp)) return op.shift;
  const HostTensor* t = n.Constant(n.input(op.zp));
  if (t == nullptr || t->NumElements() != 1) return std::nullopt;
  return t->GetDouble(0) + op.shift;
}

bool ZeroPointIsZero(OnnxNode& n, const ShiftedOperand& op) {
  if (!n.HasInput(op.zp)) return op.shift == 0;
  const HostTensor* t = n.Constant(n.input(op.zp));
  if (t == nullptr) return false;
  for (int64_t e = 0; e < t->NumElements(); ++e)
    if (t->GetDouble(e) + op.shift != 0) return false;
  return true;
}

absl::StatusOr<std::string> WideZeroPoint(OnnxNode& n, const ShiftedOperand& op, std::vector<int64_t> shape,
                                          const std::string& what) {
  if (!n.HasInput(op.zp)) return Int32Constant(n, op.shift, what + "_zp");
  auto wide = EmitValue(n, "Cast", {n.input(op.zp)}, CastTo(te::DType::kInt32), what + "_zp_i32");
  if (!wide.ok()) return wide;
  std::string value = *wide;
  if (op.shift != 0) {
    auto moved = EmitValue(n, "Add", {value, Int32Constant(n, op.shift, what + "_zp_shift")}, {}, what + "_zp_shifted");
    if (!moved.ok()) return moved;
    value = *moved;
  }
  return Broadcastable(n, value, std::move(shape), what + "_zp");
}

}  // namespace tunefarm::graph::quantized
