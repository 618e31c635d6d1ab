// The quantization family: QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (8-bit,
// per tensor or per channel along `axis`), the ops that bring int8 models in and out of float.
#include "compiler/graph/family_common.h"
#include "compiler/ops/quantize.h"

namespace tunefarm::graph {
namespace {
using namespace family;

// A scale or zero point: a scalar, or one value per index of the axis.
absl::Status CheckQuantParam(const Node& n, const TensorType& x, const TensorType& param, const char* what) {
  const bool scalar = param.shape.empty() || param.shape == std::vector<int64_t>{1};
  if (scalar) return absl::OkStatus();
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), static_cast<int64_t>(x.shape.size()));
  if (!axis.ok()) return axis.status();
  if (param.shape != std::vector<int64_t>{x.shape[*axis]})
    return Error(StrCat(what, " ", param.ToString(), " must be a scalar or hold one value per index of axis ", *axis));
  return absl::OkStatus();
}

absl::Status InferQuantize(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedFloat(in[0], "x"));
  TF_RETURN_IF_ERROR(CheckQuantParam(n, in[0], in[1], "scale"));
  te::DType dtype = te::DType::kUInt8;
  if (in.size() > 2) {
    TF_RETURN_IF_ERROR(CheckQuantParam(n, in[0], in[2], "zero point"));
    dtype = in[2].dtype;
    if (dtype != te::DType::kUInt8 && dtype != te::DType::kInt8)
      return Error(StrCat("the zero point must be uint8 or int8, got ", in[2].ToString()));
  }
  *out = {TensorType{dtype, in[0].shape}};
  return absl::OkStatus();
}

absl::Status InferDequantize(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedFloat(in[1], "scale"));
  TF_RETURN_IF_ERROR(CheckQuantParam(n, in[0], in[1], "scale"));
  if (in.size() > 2) TF_RETURN_IF_ERROR(CheckQuantParam(n, in[0], in[2], "zero point"));
  *out = {TensorType{in[1].dtype, in[0].shape}};
  return absl::OkStatus();
}

}  // namespace

void RegisterQuantizeFamily(OpRegistry* r) {
  r->Register({"QuantizeLinear", 2, 3, 1, {Int("axis", 1)}, InferQuantize, OpPattern::kBroadcast});
  r->Register({"DequantizeLinear", 2, 3, 1, {Int("axis", 1)}, InferDequantize, OpPattern::kBroadcast});
  r->Register({"DynamicQuantizeLinear", 1, 1, 3, {},
               [](const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                 if (in[0].dtype != te::DType::kFloat32) return Error(StrCat("x must be float32, got ", in[0].ToString()));
                 *out = {TensorType{te::DType::kUInt8, in[0].shape}, TensorType{te::DType::kFloat32, {}},
                         TensorType{te::DType::kUInt8, {}}};
                 return absl::OkStatus();
               },
               OpPattern::kOpaque});

  Set(r, "QuantizeLinear", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::QuantizeLinear(b, in[0], in[1], in.size() > 2 ? &in[2] : nullptr, n.attrs.GetInt("axis"), n.name));
  });
  Set(r, "DequantizeLinear", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::DequantizeLinear(b, in[0], in[1], in.size() > 2 ? &in[2] : nullptr, n.attrs.GetInt("axis"), n.name));
  });
  Set(r, "DynamicQuantizeLinear", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return ops::DynamicQuantizeLinear(b, in[0], n.name);
  });
}

}  // namespace tunefarm::graph
