// The generator family: ops whose values come from attributes and index arithmetic, not from
// data: Range, EyeLike, the signal windows (Hann, Hamming, Blackman), OneHot. All but OneHot
// have no inputs once converted (their shapes and values are known at import), so the importer
// always folds them into constants through their computes.
#include <cmath>

#include "compiler/graph/family_common.h"
#include "compiler/ops/generate.h"

namespace tunefarm::graph {
namespace {
using namespace family;

absl::StatusOr<te::DType> DTypeAttr(const Node& n) {
  auto dtype = te::ParseDType(n.attrs.GetString("dtype"));
  if (!dtype) return Error(StrCat("unknown dtype '", n.attrs.GetString("dtype"), "'"));
  return *dtype;
}

absl::Status InferRange(const Node& n, const std::vector<TensorType>&, std::vector<TensorType>* out) {
  auto dtype = DTypeAttr(n);
  if (!dtype.ok()) return dtype.status();
  *out = {TensorType{*dtype, {n.attrs.GetInt("count")}}};
  return absl::OkStatus();
}

absl::Status InferEyeLike(const Node& n, const std::vector<TensorType>&, std::vector<TensorType>* out) {
  auto dtype = DTypeAttr(n);
  if (!dtype.ok()) return dtype.status();
  *out = {TensorType{*dtype, {n.attrs.GetInt("rows"), n.attrs.GetInt("cols")}}};
  return absl::OkStatus();
}

absl::Status InferOneHot(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  if (in[1].shape != std::vector<int64_t>{2}) return Error(StrCat("values ", in[1].ToString(), " must be [off, on]"));
  const int64_t depth = n.attrs.GetInt("depth");
  if (depth <= 0) return Error(StrCat("depth ", depth, " is not positive"));
  std::vector<int64_t> shape = in[0].shape;
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), static_cast<int64_t>(shape.size()) + 1);
  if (!axis.ok()) return axis.status();
  shape.insert(shape.begin() + *axis, depth);
  *out = {TensorType{in[1].dtype, shape}};
  return absl::OkStatus();
}

// Integers up to this magnitude are exact in a double.
constexpr double kExactIntegerDouble = 9007199254740992.0;  // 2^53

// A size-like scalar input (a window's size, OneHot's depth) as an element count: finite and
// small enough to be a dimension. Truncates toward zero, as ONNX does for a float depth.
absl::StatusOr<int64_t> CountFromScalar(const OnnxNode& n, double v, const char* what) {
  if (!(std::fabs(v) < 1e12)) return n.Error(StrCat(what, " ", v, " is not a usable size"));
  return static_cast<int64_t>(v);
}

// Range: start, limit and delta must be compile-time scalars (they decide the shape).
absl::Status ConvertRange(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(3));
  auto start = n.ConstScalar(0, "start");
  if (!start.ok()) return start.status();
  auto limit = n.ConstScalar(1, "limit");
  if (!limit.ok()) return limit.status();
  auto delta = n.ConstScalar(2, "delta");
  if (!delta.ok()) return delta.status();
  if (*delta == 0) return n.Error("delta is 0");
  const te::DType dtype = n.InputType(0).dtype;
  // The constants arrive as doubles: an integer range beyond 2^53 would be rounded.
  if (te::IsInt(dtype))
    for (double v : {*start, *limit, *delta})
      if (!(std::fabs(v) <= kExactIntegerDouble))
        return n.Error(StrCat("integer range bound ", v, " is beyond 2^53, where it cannot be computed exactly"));
  const double steps = std::ceil((*limit - *start) / *delta);
  if (std::isnan(steps) || steps >= 1e12) return n.Error(StrCat("the range has too many elements (", steps, ")"));
  const int64_t count = steps <= 0 ? 0 : static_cast<int64_t>(steps);
  if (count == 0) {
    auto empty = HostTensor::Zeros(dtype, {0});
    if (!empty.ok()) return n.Error(std::string(empty.status().message()));
    n.BindConstant(n.output(0), std::move(*empty));
    return absl::OkStatus();
  }
  Attrs attrs;
  attrs.Set("start", *start);
  attrs.Set("delta", *delta);
  attrs.Set("count", count);
  attrs.Set("dtype", std::string(te::DTypeName(dtype)));
  return n.Emit("Range", {}, std::move(attrs), {n.output(0)});
}

// EyeLike: only the input's shape is read; dtype defaults to the input's.
absl::Status ConvertEyeLike(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  const TensorType& x = n.InputType(0);
  if (x.shape.size() != 2) return n.Error(StrCat("input must be 2-D, got ", x.ToString()));
  te::DType dtype = x.dtype;
  if (n.attrs().Has("dtype")) {
    auto given = n.DTypeFromOnnxCode(n.attrs().GetInt("dtype"));
    if (!given.ok()) return n.Error(std::string(given.status().message()));
    dtype = *given;
  }
  Attrs attrs;
  attrs.Set("rows", x.shape[0]);
  attrs.Set("cols", x.shape[1]);
  attrs.Set("k", n.attrs().GetInt("k", 0));
  attrs.Set("dtype", std::string(te::DTypeName(dtype)));
  return n.Emit("EyeLike", {}, std::move(attrs), {n.output(0)});
}

// HannWindow, HammingWindow, BlackmanWindow: the size must be a compile-time scalar (it is the
// shape); output_datatype is an ONNX dtype code (default float).
absl::Status ConvertWindow(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  auto size = n.ConstScalar(0, "size");
  if (!size.ok()) return size.status();
  auto dtype = n.DTypeFromOnnxCode(n.attrs().GetInt("output_datatype", 1));
  if (!dtype.ok()) return n.Error(std::string(dtype.status().message()));
  Attrs attrs;
  auto count = CountFromScalar(n, *size, "size");
  if (!count.ok()) return count.status();
  attrs.Set("size", *count);
  attrs.Set("periodic", n.attrs().GetInt("periodic", 1));
  attrs.Set("dtype", std::string(te::DTypeName(*dtype)));
  return n.Emit(n.op(), {}, std::move(attrs), {n.output(0)});
}

// OneHot: depth must be a compile-time scalar (it decides the shape); values may be runtime.
absl::Status ConvertOneHot(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(3));
  auto depth = n.ConstScalar(1, "depth");
  if (!depth.ok()) return depth.status();
  Attrs attrs;
  auto count = CountFromScalar(n, *depth, "depth");  // ONNX: a float depth is truncated
  if (!count.ok()) return count.status();
  attrs.Set("depth", *count);
  attrs.Set("axis", n.attrs().GetInt("axis", -1));
  return n.Emit("OneHot", {n.input(0), n.input(2)}, std::move(attrs), {n.output(0)});
}

}  // namespace

void RegisterGenerateFamily(OpRegistry* r) {
  r->Register({"Range", 0, 0, 1,
               {Required("start", AttrKind::kFloat), Required("delta", AttrKind::kFloat),
                Required("count", AttrKind::kInt), Required("dtype", AttrKind::kString)},
               InferRange, OpPattern::kOpaque});
  r->Register({"EyeLike", 0, 0, 1,
               {Required("rows", AttrKind::kInt), Required("cols", AttrKind::kInt), Int("k", 0),
                Required("dtype", AttrKind::kString)},
               InferEyeLike, OpPattern::kOpaque});
  for (const char* window : {"HannWindow", "HammingWindow", "BlackmanWindow"})
    r->Register({window, 0, 0, 1,
                 {Required("size", AttrKind::kInt), Int("periodic", 1), Required("dtype", AttrKind::kString)},
                 [](const Node& n, const std::vector<TensorType>&, std::vector<TensorType>* out) -> absl::Status {
                   auto dtype = DTypeAttr(n);
                   if (!dtype.ok()) return dtype.status();
                   *out = {TensorType{*dtype, {n.attrs.GetInt("size")}}};
                   return absl::OkStatus();
                 },
                 OpPattern::kOpaque});
  r->Register({"OneHot", 2, 2, 1, {Required("depth", AttrKind::kInt), Int("axis", -1)}, InferOneHot,
               OpPattern::kInjective});

  Set(r, "Range", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>&) {
    return One(ops::Range(b, n.outputs[0].dtype, n.attrs.GetFloat("start"), n.attrs.GetFloat("delta"),
                          n.attrs.GetInt("count"), n.name));
  });
  Set(r, "EyeLike", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>&) {
    return One(ops::EyeLike(b, n.outputs[0].dtype, n.attrs.GetInt("rows"), n.attrs.GetInt("cols"), n.attrs.GetInt("k"),
                            n.name));
  });
  const std::pair<const char*, ops::WindowKind> kWindows[] = {
      {"HannWindow", ops::WindowKind::kHann}, {"HammingWindow", ops::WindowKind::kHamming},
      {"BlackmanWindow", ops::WindowKind::kBlackman}};
  for (const auto& [window, kind] : kWindows)
    Set(r, window, [kind = kind](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>&) {
      return One(ops::Window(b, kind, n.attrs.GetInt("size"), n.attrs.GetInt("periodic") != 0, n.outputs[0].dtype, n.name));
    });
  Set(r, "OneHot", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::OneHot(b, in[0], in[1], {n.attrs.GetInt("depth"), n.attrs.GetInt("axis")}, n.name));
  });

  r->RegisterOnnx({"Range", 11, -1, ConvertRange});
  r->RegisterOnnx({"EyeLike", 9, -1, ConvertEyeLike});
  r->RegisterOnnx({"OneHot", 9, -1, ConvertOneHot});
  for (const char* window : {"HannWindow", "HammingWindow", "BlackmanWindow"}) r->RegisterOnnx({window, 17, -1, ConvertWindow});
}

}  // namespace tunefarm::graph
