// The resize family: ONNX Resize (opset 10 on), Upsample (7 to 9), GridSample (16 on) and
// RoiAlign (10 on). The converter turns
// the scales or sizes, the region of interest and the attributes into one index table (and one
// weight table, for linear, cubic and extrapolating resizes) per resized axis
// (resize_tables.h); the graph op "Resize" then gathers through those constant tables
// (ops/resize.h), whatever the coordinate rule was. GridSample reads its coordinates from data
// and interpolates in its kernel (ops/grid_sample.h); RoiAlign reads its boxes from data and
// averages bilinear samples per bin (ops/roi_align.h).
#include <cmath>

#include "compiler/graph/family_common.h"
#include "compiler/graph/resize_tables.h"
#include "compiler/ops/grid_sample.h"
#include "compiler/ops/resize.h"
#include "compiler/ops/roi_align.h"

namespace tunefarm::graph {
namespace {
using namespace family;
using Shape = std::vector<int64_t>;

// Inputs of the graph op: x, then per axis its index table and, when weighted, its weight table.
int TablesPerAxis(const Node& n) { return n.attrs.GetInt("weighted") != 0 ? 2 : 1; }

absl::Status InferResize(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  const Shape axes = n.attrs.GetInts("axes");
  const size_t per_axis = static_cast<size_t>(TablesPerAxis(n));
  if (in.size() != 1 + per_axis * axes.size())
    return Error(StrCat("Resize over ", axes.size(), " axes takes ", 1 + per_axis * axes.size(), " inputs, got ", in.size()));
  const te::DType weight_dtype = in[0].dtype == te::DType::kFloat64 ? te::DType::kFloat64 : te::DType::kFloat32;
  if (per_axis == 2) TF_RETURN_IF_ERROR(NeedFloat(in[0], "a weighted Resize's input"));
  Shape shape = in[0].shape;
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t axis = axes[k];
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) return Error(StrCat("axis ", axis, " is out of range"));
    const TensorType& index = in[1 + per_axis * k];
    if (index.dtype != te::DType::kInt64 || index.shape.size() != 2)
      return Error(StrCat("the index table of axis ", axis, " must be int64 [out, taps], got ", index.ToString()));
    if (per_axis == 2 && !(in[2 + per_axis * k] == TensorType{weight_dtype, index.shape}))
      return Error(StrCat("the weight table of axis ", axis, " must be ", TensorType{weight_dtype, index.shape}.ToString(),
                          ", got ", in[2 + per_axis * k].ToString()));
    shape[axis] = index.shape[0];
  }
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

Outputs ComputeResize(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  const Shape axes = n.attrs.GetInts("axes");
  const int per_axis = TablesPerAxis(n);
  std::vector<ops::ResizeAxis> tables;
  for (size_t k = 0; k < axes.size(); ++k) {
    ops::ResizeAxis r{static_cast<int>(axes[k]), in[1 + per_axis * k], std::nullopt};
    if (per_axis == 2) r.weight = in[2 + per_axis * k];
    tables.push_back(std::move(r));
  }
  std::optional<double> extrapolation;
  if (n.attrs.GetInt("extrapolate") != 0) extrapolation = n.attrs.GetFloat("extrapolation_value");
  return One(ops::Resize(b, in[0], tables, extrapolation, n.name));
}

// The attributes of Resize 11+ that this converter does not implement must keep their defaults.
absl::Status CheckUnsupportedAttrs(OnnxNode& n) {
  if (n.attrs().GetInt("antialias", 0) != 0) return n.Error("antialias is not supported");
  if (n.attrs().Has("axes")) return n.Error("the axes attribute is not supported");
  if (n.attrs().GetString("keep_aspect_ratio_policy", "stretch") != "stretch")
    return n.Error("keep_aspect_ratio_policy other than stretch is not supported");
  return absl::OkStatus();
}

// Output extents and per-axis scales from the `sizes` or `scales` input.
absl::Status OutputExtents(OnnxNode& n, int scales_input, int sizes_input, Shape* out, std::vector<double>* scales) {
  const Shape& in = n.InputType(0).shape;
  const size_t rank = in.size();
  if (sizes_input >= 0 && n.HasInput(sizes_input)) {
    auto sizes = n.ConstInts(sizes_input, "sizes");
    if (!sizes.ok()) return sizes.status();
    if (sizes->size() != rank) return n.Error(StrCat("sizes has ", sizes->size(), " values for rank ", rank));
    for (size_t d = 0; d < rank; ++d) {
      if ((*sizes)[d] < 1) return n.Error(StrCat("size ", (*sizes)[d], " of axis ", d, " is not positive"));
      out->push_back((*sizes)[d]);
      scales->push_back(static_cast<double>((*sizes)[d]) / static_cast<double>(in[d]));
    }
  } else {
    if (!n.HasInput(scales_input)) return n.Error("needs scales or sizes");
    auto given = n.ConstNumbers(scales_input, "scales");
    if (!given.ok()) return given.status();
    if (given->size() != rank) return n.Error(StrCat("scales has ", given->size(), " values for rank ", rank));
    for (size_t d = 0; d < rank; ++d) {
      const double s = (*given)[d], extent = std::floor(s * static_cast<double>(in[d]));
      if (!(s > 0) || !(extent >= 1 && extent <= double{kMaxHostTensorBytes}))
        return n.Error(StrCat("scale ", s, " of axis ", d, " gives an output extent of ", extent));
      out->push_back(static_cast<int64_t>(extent));
      scales->push_back(s);
    }
  }
  if (auto count = CheckedNumElements(*out); !count.ok()) return n.Error(std::string(count.status().message()));
  return absl::OkStatus();
}

absl::Status ConvertResize(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  TF_RETURN_IF_ERROR(n.FirstOutputOnly());
  const TensorType& x = n.InputType(0);
  const size_t rank = x.shape.size();
  ResizeRule rule;
  rule.mode = n.attrs().GetString("mode", "nearest");
  // Resize 10 and Upsample: asymmetric coordinates, nearest rounds down; `linear` was named bilinear in Upsample 7.
  const bool legacy = n.op() == "Upsample" || n.opset() < 11;
  if (legacy) {
    if (rule.mode == "bilinear") rule.mode = "linear";
    if (rule.mode == "cubic") return n.Error("cubic mode needs Resize 11 or later");
    rule.coordinate_transformation_mode = "asymmetric";
    rule.nearest_mode = "floor";
  } else {
    TF_RETURN_IF_ERROR(CheckUnsupportedAttrs(n));
    rule.coordinate_transformation_mode = n.attrs().GetString("coordinate_transformation_mode", "half_pixel");
    rule.nearest_mode = n.attrs().GetString("nearest_mode", "round_prefer_floor");
    rule.cubic_coeff_a = n.attrs().GetFloat("cubic_coeff_a", -0.75);
    rule.exclude_outside = n.attrs().GetInt("exclude_outside", 0) != 0;
  }
  if (absl::Status s = CheckResizeRule(rule); !s.ok()) return n.Error(std::string(s.message()));

  Shape out;
  std::vector<double> scales;
  if (n.op() == "Upsample" && n.opset() < 9) {
    scales = n.attrs().GetFloats("scales");
    if (scales.size() != rank) return n.Error(StrCat("scales has ", scales.size(), " values for rank ", rank));
    for (size_t d = 0; d < rank; ++d) {
      const double extent = std::floor(scales[d] * static_cast<double>(x.shape[d]));
      if (!(scales[d] > 0) || !(extent >= 1 && extent <= double{kMaxHostTensorBytes}))
        return n.Error(StrCat("scale ", scales[d], " of axis ", d, " gives an output extent of ", extent));
      out.push_back(static_cast<int64_t>(extent));
    }
  } else {
    TF_RETURN_IF_ERROR(OutputExtents(n, legacy ? 1 : 2, legacy ? -1 : 3, &out, &scales));
  }
  std::vector<double> roi;
  if (rule.coordinate_transformation_mode == "tf_crop_and_resize") {
    if (!n.HasInput(1)) return n.Error("tf_crop_and_resize needs roi");
    auto given = n.ConstNumbers(1, "roi");
    if (!given.ok()) return given.status();
    roi = *given;
    if (roi.size() != 2 * rank) return n.Error(StrCat("roi has ", roi.size(), " values for rank ", rank));
    for (double v : roi)
      if (!(std::fabs(v) <= 1e6)) return n.Error(StrCat("roi value ", v, " is not a usable coordinate"));
  }

  const te::DType weight_dtype = x.dtype == te::DType::kFloat64 ? te::DType::kFloat64 : te::DType::kFloat32;
  // The tables hold out * taps int64 indices and doubles per axis: bounded before they are built.
  const int64_t taps = rule.mode == "nearest" ? 1 : rule.mode == "linear" ? 2 : 4;
  for (size_t d = 0; d < rank; ++d) {
    if (x.shape[d] < 1) return n.Error(StrCat("axis ", d, " of ", x.ToString(), " is empty"));
    if (auto bytes = CheckedNumElements({out[d], taps}, 16); !bytes.ok())
      return n.Error(StrCat("the table of axis ", d, ": ", std::string(bytes.status().message())));
  }
  std::vector<std::pair<int64_t, ResizeTable>> resized;
  bool extrapolates = false;
  for (size_t d = 0; d < rank; ++d) {
    ResizeTable t = MakeResizeTable(rule, x.shape[d], out[d], scales[d], roi.empty() ? 0 : roi[d],
                                    roi.empty() ? 1 : roi[rank + d]);
    if (t.IsIdentity(x.shape[d])) continue;
    extrapolates = extrapolates || t.extrapolates;
    resized.emplace_back(static_cast<int64_t>(d), std::move(t));
  }
  if (resized.empty()) return n.Emit("Identity", {n.input(0)}, {}, {n.output(0)});
  const bool weighted = rule.mode != "nearest" || extrapolates;
  if (weighted && !te::IsFloat(x.dtype) && !te::IsStorageFloat(x.dtype))
    return n.Error(StrCat(rule.mode, " resize of ", x.ToString(), " is not supported: it needs a float input"));

  Shape axes;
  std::vector<std::string> inputs = {n.input(0)};
  for (auto& [axis, t] : resized) {
    axes.push_back(axis);
    const Shape table_shape = {out[axis], t.taps};
    const std::string stem = n.UniqueName(StrCat(n.output(0), ".axis", axis));
    inputs.push_back(stem + ".index");
    n.BindConstant(inputs.back(), HostTensor::FromInt64s(t.index, table_shape));
    if (!weighted) continue;
    auto weights = HostTensor::Zeros(weight_dtype, table_shape);
    if (!weights.ok()) return n.Error(std::string(weights.status().message()));
    for (size_t i = 0; i < t.weight.size(); ++i) weights->SetDouble(static_cast<int64_t>(i), t.weight[i]);
    inputs.push_back(stem + ".weight");
    n.BindConstant(inputs.back(), std::move(*weights));
  }
  Attrs attrs;
  attrs.Set("axes", axes);
  attrs.Set("weighted", int64_t{weighted ? 1 : 0});
  attrs.Set("extrapolate", int64_t{extrapolates ? 1 : 0});
  attrs.Set("extrapolation_value", n.attrs().GetFloat("extrapolation_value", 0.0));
  return n.Emit("Resize", inputs, std::move(attrs), {n.output(0)});
}

absl::Status InferGridSample(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedFloat(in[0], "X"));
  const Shape &x = in[0].shape, &grid = in[1].shape;
  if (x.size() != 4 || grid.size() != 4 || grid[0] != x[0] || grid[3] != 2 || in[1].dtype != in[0].dtype)
    return Error(StrCat("X ", in[0].ToString(), " and grid ", in[1].ToString(), " should be [N, C, H, W] and [N, Ho, Wo, 2] of one dtype"));
  const std::string mode = n.attrs.GetString("mode"), padding = n.attrs.GetString("padding_mode");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return Error(StrCat("mode '", mode, "' is not bilinear, nearest or bicubic"));
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return Error(StrCat("padding_mode '", padding, "' is not zeros, border or reflection"));
  *out = {TensorType{in[0].dtype, {x[0], x[1], grid[1], grid[2]}}};
  return absl::OkStatus();
}

Outputs ComputeGridSample(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  ops::GridSampleParams p;
  const std::string mode = n.attrs.GetString("mode"), padding = n.attrs.GetString("padding_mode");
  p.mode = mode == "nearest" ? ops::GridSampleMode::kNearest
           : mode == "bicubic" ? ops::GridSampleMode::kBicubic
                               : ops::GridSampleMode::kBilinear;
  p.padding = padding == "border"       ? ops::GridSamplePadding::kBorder
              : padding == "reflection" ? ops::GridSamplePadding::kReflection
                                        : ops::GridSamplePadding::kZeros;
  p.align_corners = n.attrs.GetInt("align_corners") != 0;
  return One(ops::GridSample(b, in[0], in[1], p, n.name));
}

absl::Status InferRoiAlign(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedFloat(in[0], "X"));
  const Shape &x = in[0].shape, &rois = in[1].shape;
  if (x.size() != 4 || rois.size() != 2 || rois[1] != 4 || in[1].dtype != in[0].dtype)
    return Error(StrCat("X ", in[0].ToString(), " and rois ", in[1].ToString(), " should be [N, C, H, W] and [R, 4] of one dtype"));
  if (in[2].shape != Shape{rois[0]} || !te::IsInt(in[2].dtype))
    return Error(StrCat("batch_indices ", in[2].ToString(), " should be [", rois[0], "] integers"));
  const std::string mode = n.attrs.GetString("mode"), coords = n.attrs.GetString("coordinate_transformation_mode");
  if (mode != "avg" && mode != "max") return Error(StrCat("mode '", mode, "' is not avg or max"));
  if (coords != "half_pixel" && coords != "output_half_pixel")
    return Error(StrCat("coordinate_transformation_mode '", coords, "' is not half_pixel or output_half_pixel"));
  const int64_t ratio = n.attrs.GetInt("sampling_ratio");
  if (ratio < 1 || ratio > 64)
    return Error(StrCat("sampling_ratio ", ratio, " is not in [1, 64]: the adaptive count (0) depends on each ",
                        "box's size at run time, which a compiled kernel cannot follow"));
  const int64_t oh = n.attrs.GetInt("output_height"), ow = n.attrs.GetInt("output_width");
  if (oh < 1 || ow < 1 || oh > (int64_t{1} << 20) || ow > (int64_t{1} << 20))
    return Error(StrCat("output size ", oh, "x", ow, " is not in [1, 2^20]"));
  *out = {TensorType{in[0].dtype, {rois[0], x[1], oh, ow}}};
  return absl::OkStatus();
}

Outputs ComputeRoiAlign(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  ops::RoiAlignParams p;
  p.output_height = n.attrs.GetInt("output_height");
  p.output_width = n.attrs.GetInt("output_width");
  p.sampling_ratio = n.attrs.GetInt("sampling_ratio");
  p.spatial_scale = n.attrs.GetFloat("spatial_scale");
  p.half_pixel = n.attrs.GetString("coordinate_transformation_mode") == "half_pixel";
  p.max_mode = n.attrs.GetString("mode") == "max";
  return One(ops::RoiAlign(b, in[0], in[1], in[2], p, n.name));
}

// RoiAlign before opset 16 had no coordinate_transformation_mode and behaved as
// output_half_pixel, which is no longer the default.
absl::Status ConvertRoiAlign10(OnnxNode& n) {
  Attrs attrs = n.attrs();
  attrs.Set("coordinate_transformation_mode", std::string("output_half_pixel"));
  return n.Emit("RoiAlign", {n.input(0), n.input(1), n.input(2)}, std::move(attrs), {n.output(0)});
}

}  // namespace

void RegisterResizeFamily(OpRegistry* r) {
  r->Register({"Resize", 2, -1, 1,
               {Required("axes", AttrKind::kInts), Int("weighted", 0), Int("extrapolate", 0),
                Float("extrapolation_value", 0.0)},
               InferResize, OpPattern::kInjective});
  Set(r, "Resize", ComputeResize);
  r->Register({"GridSample", 2, 2, 1, {Str("mode", "bilinear"), Str("padding_mode", "zeros"), Int("align_corners", 0)},
               InferGridSample, OpPattern::kOpaque});
  Set(r, "GridSample", ComputeGridSample);
  r->RegisterOnnx({"Resize", 10, -1, ConvertResize});
  r->RegisterOnnx({"Upsample", 7, 9, ConvertResize});
  r->Register({"RoiAlign", 3, 3, 1,
               {Str("mode", "avg"), Str("coordinate_transformation_mode", "half_pixel"), Int("output_height", 1),
                Int("output_width", 1), Int("sampling_ratio", 0), Float("spatial_scale", 1.0)},
               InferRoiAlign, OpPattern::kOpaque});
  Set(r, "RoiAlign", ComputeRoiAlign);
  r->RegisterOnnx({"RoiAlign", 10, 15, ConvertRoiAlign10});
}

}  // namespace tunefarm::graph
