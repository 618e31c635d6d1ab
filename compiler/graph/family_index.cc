// The indexing family: reads and writes at positions held in an indices tensor. Gather,
// GatherElements, GatherND and ReverseSequence read (injective); ScatterElements and ScatterND
// write (a writer or combining reduction per output element, then a select: opaque). Indices are wrapped when
// negative and clamped or ignored when outside, so a kernel never reads out of bounds.
#include "compiler/graph/family_common.h"
#include "compiler/ops/gather.h"
#include "compiler/ops/scatter.h"

namespace tunefarm::graph {
namespace {
using namespace family;
using Shape = std::vector<int64_t>;

absl::Status InferGather(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  const Shape& data = in[0].shape;
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), static_cast<int64_t>(data.size()));
  if (!axis.ok()) return axis.status();
  if (!te::IsInt(in[1].dtype)) return Error(StrCat("indices must be integers, got ", in[1].ToString()));
  Shape shape(data.begin(), data.begin() + *axis);
  shape.insert(shape.end(), in[1].shape.begin(), in[1].shape.end());
  shape.insert(shape.end(), data.begin() + *axis + 1, data.end());
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferGatherElements(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  if (!te::IsInt(in[1].dtype)) return Error(StrCat("indices must be integers, got ", in[1].ToString()));
  if (in[0].shape.size() != in[1].shape.size())
    return Error(StrCat("indices ", in[1].ToString(), " and data ", in[0].ToString(), " differ in rank"));
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), static_cast<int64_t>(in[0].shape.size()));
  if (!axis.ok()) return axis.status();
  *out = {TensorType{in[0].dtype, in[1].shape}};
  return absl::OkStatus();
}

absl::Status InferScatterElements(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  if (!te::IsInt(in[1].dtype)) return Error(StrCat("indices must be integers, got ", in[1].ToString()));
  if (in[2].dtype != in[0].dtype || in[2].shape != in[1].shape)
    return Error(StrCat("updates ", in[2].ToString(), " must have data's dtype and indices' shape ", in[1].ToString()));
  if (in[0].shape.size() != in[1].shape.size())
    return Error(StrCat("indices ", in[1].ToString(), " and data ", in[0].ToString(), " differ in rank"));
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), static_cast<int64_t>(in[0].shape.size()));
  if (!axis.ok()) return axis.status();
  *out = {in[0]};
  return absl::OkStatus();
}

// ScatterElements (and Scatter, its name before opset 11) without a reduction.
absl::Status ConvertScatterElements(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(3));
  Attrs attrs = n.attrs();
  const std::string reduction = attrs.GetString("reduction", "none");
  if (reduction != "none") return n.Error(StrCat("reduction '", reduction, "' is not supported"));
  attrs.Erase("reduction");
  return n.Emit("ScatterElements", {n.input(0), n.input(1), n.input(2)}, std::move(attrs), {n.output(0)});
}

absl::Status InferGatherND(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  if (!te::IsInt(in[1].dtype)) return Error(StrCat("indices must be integers, got ", in[1].ToString()));
  const Shape &data = in[0].shape, &indices = in[1].shape;
  const int64_t batch = n.attrs.GetInt("batch_dims"), r = static_cast<int64_t>(data.size());
  const int64_t q = static_cast<int64_t>(indices.size());
  if (q < 1 || batch < 0 || batch >= std::min(r, q) || indices.back() < 1 || indices.back() > r - batch)
    return Error(StrCat("indices ", in[1].ToString(), " do not index data ", in[0].ToString(), " with batch_dims ", batch));
  for (int64_t d = 0; d < batch; ++d)
    if (data[d] != indices[d]) return Error(StrCat("batch axis ", d, " differs between data and indices"));
  Shape shape(indices.begin(), indices.end() - 1);
  shape.insert(shape.end(), data.begin() + batch + indices.back(), data.end());
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferScatterND(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  if (!te::IsInt(in[1].dtype)) return Error(StrCat("indices must be integers, got ", in[1].ToString()));
  const Shape &data = in[0].shape, &indices = in[1].shape;
  if (indices.empty() || data.empty() || indices.back() < 1 || indices.back() > static_cast<int64_t>(data.size()))
    return Error(StrCat("indices ", in[1].ToString(), " do not index data ", in[0].ToString()));
  Shape updates(indices.begin(), indices.end() - 1);
  updates.insert(updates.end(), data.begin() + indices.back(), data.end());
  if (in[2].dtype != in[0].dtype || in[2].shape != updates)
    return Error(StrCat("updates ", in[2].ToString(), " should be ", TensorType{in[0].dtype, updates}.ToString()));
  const std::string reduction = n.attrs.GetString("reduction");
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min")
    return Error(StrCat("reduction '", reduction, "' is not none, add, mul, max or min"));
  *out = {in[0]};
  return absl::OkStatus();
}

ops::ScatterReduction ReductionOf(const std::string& r) {
  if (r == "add") return ops::ScatterReduction::kAdd;
  if (r == "mul") return ops::ScatterReduction::kMul;
  if (r == "max") return ops::ScatterReduction::kMax;
  if (r == "min") return ops::ScatterReduction::kMin;
  return ops::ScatterReduction::kNone;
}

absl::Status InferReverseSequence(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  const int64_t batch = n.attrs.GetInt("batch_axis"), time = n.attrs.GetInt("time_axis");
  if (!((batch == 0 && time == 1) || (batch == 1 && time == 0)) || in[0].shape.size() < 2)
    return Error(StrCat("batch_axis ", batch, " and time_axis ", time, " must be 0 and 1 of an input of rank >= 2"));
  if (!te::IsInt(in[1].dtype) || in[1].shape != Shape{in[0].shape[batch]})
    return Error(StrCat("sequence_lens ", in[1].ToString(), " should be integers [", in[0].shape[batch], "]"));
  *out = {in[0]};
  return absl::OkStatus();
}

}  // namespace

void RegisterIndexFamily(OpRegistry* r) {
  r->Register({"Gather", 2, 2, 1, {Int("axis", 0)}, InferGather, OpPattern::kInjective});
  r->Register({"GatherElements", 2, 2, 1, {Int("axis", 0)}, InferGatherElements, OpPattern::kInjective});
  r->Register({"ScatterElements", 3, 3, 1, {Int("axis", 0)}, InferScatterElements, OpPattern::kOpaque});
  r->RegisterOnnx({"ScatterElements", 11, -1, ConvertScatterElements});
  r->RegisterOnnx({"Scatter", 9, 10, ConvertScatterElements});
  r->Register({"GatherND", 2, 2, 1, {Int("batch_dims", 0)}, InferGatherND, OpPattern::kInjective});
  r->Register({"ReverseSequence", 2, 2, 1, {Int("batch_axis", 1), Int("time_axis", 0)}, InferReverseSequence,
               OpPattern::kInjective});
  r->Register({"ScatterND", 3, 3, 1, {Str("reduction", "none")}, InferScatterND, OpPattern::kOpaque});

  Set(r, "Gather", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Gather(b, in[0], in[1], ops::GatherParams{n.attrs.GetInt("axis")}, n.name));
  });
  Set(r, "ScatterElements", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::ScatterElements(b, in[0], in[1], in[2], n.attrs.GetInt("axis"), n.name));
  });
  Set(r, "GatherElements", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::GatherElements(b, in[0], in[1], ops::GatherParams{n.attrs.GetInt("axis")}, n.name));
  });
  Set(r, "GatherND", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::GatherND(b, in[0], in[1], n.attrs.GetInt("batch_dims"), n.name));
  });
  Set(r, "ReverseSequence", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::ReverseSequence(b, in[0], in[1], n.attrs.GetInt("batch_axis"), n.attrs.GetInt("time_axis"), n.name));
  });
  Set(r, "ScatterND", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::ScatterND(b, in[0], in[1], in[2], ReductionOf(n.attrs.GetString("reduction")), n.name));
  });
}

}  // namespace tunefarm::graph
