// The shape op family (injective): Reshape, Flatten, (Un)Squeeze, Transpose, Concat, Slice, Split,
// Expand, Tile, Pad, Shape, DepthToSpace and SpaceToDepth (Reshape, Transpose, Reshape); and
// the ONNX nodes whose values are known at import (Constant, Shape, Size, ConstantOfShape, Identity, Dropout, Cast(Like)'s dtype). Every
// shape-like operand is an attribute: the converters read it from a constant input; ops that
// only re-view the data reshape to the type inference resolved.
#include <algorithm>
#include <cstring>

#include "compiler/graph/family_common.h"
#include "compiler/ops/pad.h"
#include "compiler/ops/transform.h"

namespace tunefarm::graph {
namespace {
using namespace family;
using Shape = std::vector<int64_t>;

absl::Status InferReshape(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  auto shape = ResolveReshape(in[0].shape, n.attrs.GetInts("shape"), n.attrs.GetInt("allowzero") != 0);
  if (!shape.ok()) return shape.status();
  *out = {TensorType{in[0].dtype, *shape}};
  return absl::OkStatus();
}

absl::Status InferFlatten(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  int64_t rank = static_cast<int64_t>(in[0].shape.size());
  int64_t axis = n.attrs.GetInt("axis");
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return Error(StrCat("axis ", n.attrs.GetInt("axis"), " out of range for rank ", rank));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= in[0].shape[i];
  *out = {TensorType{in[0].dtype, {outer, inner}}};
  return absl::OkStatus();
}

absl::Status InferTranspose(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  int64_t rank = static_cast<int64_t>(in[0].shape.size());
  Shape perm = n.attrs.GetInts("perm");
  if (perm.empty())
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  if (static_cast<int64_t>(perm.size()) != rank) return Error(StrCat("perm has ", perm.size(), " entries for rank ", rank));
  std::vector<bool> seen(rank, false);
  Shape shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) return Error(StrCat("perm ", ShapeToString(perm), " is not a permutation"));
    seen[p] = true;
    shape.push_back(in[0].shape[p]);
  }
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferConcat(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  int64_t rank = static_cast<int64_t>(in[0].shape.size());
  auto axis = NormalizeAxis(n.attrs.GetInt("axis"), rank);
  if (!axis.ok()) return axis.status();
  Shape shape = in[0].shape;
  for (size_t i = 1; i < in.size(); ++i) {
    TF_RETURN_IF_ERROR(SameDType(in, 0, i));
    if (static_cast<int64_t>(in[i].shape.size()) != rank) return Error("inputs differ in rank");
    for (int64_t d = 0; d < rank; ++d) {
      if (d == *axis) continue;
      if (in[i].shape[d] != shape[d])
        return Error(StrCat("input ", i, " ", in[i].ToString(), " differs from ", in[0].ToString(), " off the axis"));
    }
    shape[*axis] += in[i].shape[*axis];
  }
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferSlice(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  auto axes = ResolveSlice(in[0].shape, n.attrs.GetInts("starts"), n.attrs.GetInts("ends"), n.attrs.GetInts("axes"),
                           n.attrs.GetInts("steps"));
  if (!axes.ok()) return axes.status();
  Shape shape;
  for (const SliceAxis& a : *axes) shape.push_back(a.count);
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferUnsqueeze(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  Shape axes = n.attrs.GetInts("axes");
  int64_t rank = static_cast<int64_t>(in[0].shape.size() + axes.size());
  std::vector<bool> inserted(rank, false);
  for (int64_t a : axes) {
    auto axis = NormalizeAxis(a, rank);
    if (!axis.ok()) return axis.status();
    if (inserted[*axis]) return Error(StrCat("axis ", *axis, " repeated"));
    inserted[*axis] = true;
  }
  Shape shape;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i) shape.push_back(inserted[i] ? 1 : in[0].shape[next++]);
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferSqueeze(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  int64_t rank = static_cast<int64_t>(in[0].shape.size());
  Shape axes = n.attrs.GetInts("axes");
  std::vector<bool> removed(rank, false);
  for (int64_t i = 0; i < rank && axes.empty(); ++i) removed[i] = in[0].shape[i] == 1;
  for (int64_t a : axes) {
    auto axis = NormalizeAxis(a, rank);
    if (!axis.ok()) return axis.status();
    if (in[0].shape[*axis] != 1) return Error(StrCat("cannot squeeze axis ", *axis, " of ", in[0].ToString()));
    removed[*axis] = true;
  }
  Shape shape;
  for (int64_t i = 0; i < rank; ++i)
    if (!removed[i]) shape.push_back(in[0].shape[i]);
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferExpand(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  auto shape = BroadcastShapes(in[0].shape, n.attrs.GetInts("shape"));
  if (!shape.ok()) return shape.status();
  *out = {TensorType{in[0].dtype, *shape}};
  return absl::OkStatus();
}

absl::Status InferPad(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  size_t rank = in[0].shape.size();
  Shape pads = n.attrs.GetInts("pads");
  if (pads.size() != 2 * rank) return Error(StrCat("pads has ", pads.size(), " entries for rank ", rank));
  std::string mode = n.attrs.GetString("mode");
  if (mode != "constant" && mode != "reflect" && mode != "edge") return Error(StrCat("unknown pad mode '", mode, "'"));
  Shape shape = in[0].shape;
  for (size_t i = 0; i < rank; ++i) {
    // Pads come from the file and may be any int64: overflow is an error, not UB (fuzz).
    if (__builtin_add_overflow(shape[i], pads[i], &shape[i]) ||
        __builtin_add_overflow(shape[i], pads[i + rank], &shape[i]))
      return Error("pads overflow");
    if (shape[i] < 0) return Error("pads remove more than the whole axis");
  }
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferTile(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  Shape repeats = n.attrs.GetInts("repeats");
  if (repeats.size() != in[0].shape.size()) return Error("repeats must have one entry per axis");
  Shape shape = in[0].shape;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (repeats[i] < 0) return Error("negative repeat");
    if (__builtin_mul_overflow(shape[i], repeats[i], &shape[i])) return Error("repeats overflow");  // fuzz
  }
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferShape(const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  *out = {TensorType{te::DType::kInt64, {static_cast<int64_t>(in[0].shape.size())}}};
  return absl::OkStatus();
}

Outputs ReshapeToOutput(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  return One(ops::Reshape(b, in[0], ops::ReshapeParams{n.outputs[0].shape}, n.name));
}

Outputs PadCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  std::string mode = n.attrs.GetString("mode");
  ops::PadParams p;
  p.mode = mode == "reflect" ? ops::PadMode::kReflect : mode == "edge" ? ops::PadMode::kEdge : ops::PadMode::kConstant;
  p.pads = n.attrs.GetInts("pads");
  p.value = n.attrs.GetFloat("value");
  return One(ops::Pad(b, in[0], p, n.name));
}

// The input's static shape as an int64 vector: a select chain over the index.
Outputs ShapeCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  const std::vector<int64_t>& dims = in[0].shape;
  if (dims.empty()) return absl::InvalidArgumentError("the shape of a 0-d tensor is empty");
  return std::vector<TeTensor>{b.Compute(n.name, {static_cast<int64_t>(dims.size())}, [&](const te::DagBuilder::Axes& i) {
    te::Expr v = te::IntImm(te::DType::kInt64, dims.back());
    for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d)
      v = te::Select(te::Eq(i[0], te::IntImm(te::kIndexType, d)), te::IntImm(te::DType::kInt64, dims[d]), v);
    return v;
  })};
}

absl::Status ConvertConstant(OnnxNode& n) {
  const Attrs& a = n.attrs();
  if (const HostTensor* t = a.GetTensor("value")) {
    n.BindConstant(n.output(0), *t);
  } else if (a.Has("value_float")) {
    n.BindConstant(n.output(0), HostTensor::FromFloats({static_cast<float>(a.GetFloat("value_float"))}, {}));
  } else if (a.Has("value_floats")) {
    std::vector<float> v;
    for (double d : a.GetFloats("value_floats")) v.push_back(static_cast<float>(d));
    const int64_t size = static_cast<int64_t>(v.size());
    n.BindConstant(n.output(0), HostTensor::FromFloats(v, {size}));
  } else if (a.Has("value_int")) {
    n.BindConstant(n.output(0), HostTensor::FromInt64s({a.GetInt("value_int")}, {}));
  } else if (a.Has("value_ints")) {
    auto v = a.GetInts("value_ints");
    n.BindConstant(n.output(0), HostTensor::FromInt64s(v, {static_cast<int64_t>(v.size())}));
  } else {
    return n.Error("unsupported Constant form (needs value, value_float(s) or value_int(s))");
  }
  return absl::OkStatus();
}

// Shape and Size of a statically shaped value are constants.
absl::Status ConvertShape(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  const Shape& dims = n.InputType(0).shape;
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t start = n.attrs().GetInt("start", 0), end = n.attrs().GetInt("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  Shape part(dims.begin() + start, dims.begin() + end);
  n.BindConstant(n.output(0), HostTensor::FromInt64s(part, {static_cast<int64_t>(part.size())}));
  return absl::OkStatus();
}

absl::Status ConvertSize(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  int64_t count = 1;
  for (int64_t d : n.InputType(0).shape) count *= d;
  n.BindConstant(n.output(0), HostTensor::FromInt64s({count}, {}));
  return absl::OkStatus();
}

absl::Status ConvertConstantOfShape(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  auto shape = n.ConstInts(0, "shape");
  if (!shape.ok()) return shape.status();
  const HostTensor* value = n.attrs().GetTensor("value");
  const te::DType dtype = value ? value->dtype : te::DType::kFloat32;
  if (value && value->NumElements() != 1) return n.Error("value must hold one element");
  auto t = HostTensor::Zeros(dtype, *shape);
  if (!t.ok()) return n.Error(std::string(t.status().message()));
  if (value)
    for (int64_t i = 0; i < t->NumElements(); ++i)
      std::memcpy(t->bytes.data() + i * value->bytes.size(), value->bytes.data(), value->bytes.size());
  n.BindConstant(n.output(0), std::move(*t));
  return absl::OkStatus();
}

// Identity, and inference Dropout (whose mask output keeps everything).
absl::Status ConvertIdentity(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  const bool dropout = n.op() == "Dropout";
  if (!dropout) TF_RETURN_IF_ERROR(n.FirstOutputOnly());
  if (dropout && n.attrs().GetInt("is_test", 1) == 0 && n.opset() < 7) return n.Error("training Dropout");
  if (n.HasInput(2)) {
    // Training with ratio 0 drops nothing, so it is the identity too.
    auto training = n.ConstScalar(2, "training_mode");
    auto ratio = n.HasInput(1) ? n.ConstScalar(1, "ratio") : absl::StatusOr<double>(0.5);
    if (!training.ok() || (*training != 0 && (!ratio.ok() || *ratio != 0)))
      return n.Error("only inference Dropout is supported");
  }
  n.Alias(n.output(0), n.input(0));
  if (dropout && n.HasOutput(1)) {
    auto mask = HostTensor::Zeros(te::DType::kBool, n.InputType(0).shape);
    if (!mask.ok()) return n.Error(std::string(mask.status().message()));
    std::fill(mask->bytes.begin(), mask->bytes.end(), uint8_t{1});
    n.BindConstant(n.output(1), std::move(*mask));
  }
  return absl::OkStatus();
}

absl::Status ConvertReshape(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(2));
  auto target = n.ConstInts(1, "shape");
  if (!target.ok()) return target.status();
  const bool allow_zero = n.attrs().GetInt("allowzero") != 0;
  auto shape = ResolveReshape(n.InputType(0).shape, *target, allow_zero);
  if (!shape.ok()) return n.Error(std::string(shape.status().message()));
  Attrs a;
  a.Set("shape", *shape);
  if (allow_zero) a.Set("allowzero", int64_t{1});  // the target's zeros are dims
  return n.Emit("Reshape", {n.input(0)}, std::move(a), {n.output(0)});
}

// Since opset 13, Unsqueeze's and Squeeze's axes are an input.
absl::Status ConvertSqueezeAxes(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  Attrs attrs = n.attrs();
  TF_RETURN_IF_ERROR(n.IntsInputToAttr(1, "axes", &attrs));
  return n.Emit(n.op(), {n.input(0)}, std::move(attrs), {n.output(0)});
}

absl::Status ConvertSlice(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  Attrs attrs = n.attrs();
  if (n.num_inputs() > 1) {  // opset 10: starts, ends, axes and steps are inputs
    TF_RETURN_IF_ERROR(n.NeedInputs(3));
    const char* names[] = {"", "starts", "ends", "axes", "steps"};
    for (int i = 1; i < 5; ++i) TF_RETURN_IF_ERROR(n.IntsInputToAttr(i, names[i], &attrs));
  }
  return n.Emit("Slice", {n.input(0)}, std::move(attrs), {n.output(0)});
}

// One Slice per output: sizes from the `split` input (opset 13) or attribute, else equal parts.
absl::Status ConvertSplit(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  const TensorType& x = n.InputType(0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = n.attrs().GetInt("axis", 0);
  if (axis < -rank || axis >= rank) return n.Error(StrCat("axis ", axis, " is out of range for rank ", rank));
  if (axis < 0) axis += rank;
  Shape sizes = n.attrs().GetInts("split");
  if (n.HasInput(1)) {
    auto given = n.ConstInts(1, "split");
    if (!given.ok()) return given.status();
    sizes = *given;
  }
  const int64_t parts = n.num_outputs(), extent = x.shape[axis];
  if (sizes.empty()) {
    if (parts == 0 || extent % parts != 0)
      return n.Error(StrCat("axis ", axis, " of extent ", extent, " does not split into ", parts, " equal parts"));
    sizes.assign(parts, extent / parts);
  }
  int64_t total = 0;
  bool in_range = true;
  for (int64_t size : sizes)
    in_range = in_range && size >= 0 && size <= extent && !__builtin_add_overflow(total, size, &total);
  if (static_cast<int64_t>(sizes.size()) != parts || !in_range || total != extent)
    return n.Error(StrCat("split sizes [", StrJoin(sizes, ","), "] do not cover axis ", axis, " (extent ", extent,
                          ") in ", parts, " outputs"));
  int64_t start = 0;
  for (int64_t i = 0; i < parts; ++i) {
    Attrs slice;
    slice.Set("starts", Shape{start});
    slice.Set("ends", Shape{start + sizes[i]});
    slice.Set("axes", Shape{axis});
    start += sizes[i];
    if (!n.HasOutput(static_cast<int>(i))) continue;
    const std::string& out = n.output(static_cast<int>(i));
    TF_RETURN_IF_ERROR(n.Emit("Slice", {n.input(0)}, std::move(slice), {out}, n.UniqueName(StrCat(out, ".part", i))));
  }
  return absl::OkStatus();
}

// Expand's shape and Tile's repeats, inputs since opsets 8 and 6.
absl::Status ConvertExpandOrTile(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(2));
  const char* what = n.op() == "Expand" ? "shape" : "repeats";
  auto v = n.ConstInts(1, what);
  if (!v.ok()) return v.status();
  Attrs attrs = n.attrs();
  attrs.Set(what, *v);
  return n.Emit(n.op(), {n.input(0)}, std::move(attrs), {n.output(0)});
}

// Since opset 11, pads and the constant value are inputs.
absl::Status ConvertPad(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  Attrs attrs = n.attrs();
  TF_RETURN_IF_ERROR(n.IntsInputToAttr(1, "pads", &attrs));
  TF_RETURN_IF_ERROR(n.ScalarInputToAttr(2, "value", &attrs, "constant_value"));
  if (n.HasInput(3)) return n.Error("the axes input is not supported");
  return n.Emit("Pad", {n.input(0)}, std::move(attrs), {n.output(0)});
}

absl::Status ConvertCast(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  auto to = n.DTypeFromOnnxCode(n.attrs().GetInt("to", -1));
  if (!to.ok()) return n.Error(StrCat("unsupported op: ", std::string(to.status().message())));
  Attrs attrs = n.attrs();
  attrs.Set("to", std::string(te::DTypeName(*to)));
  attrs.Erase("saturate");
  return n.Emit("Cast", {n.input(0)}, std::move(attrs), {n.output(0)});
}

// Inputs with no elements add nothing to a Concat, and kernels take no empty tensors: they are
// dropped, unless every input is empty (the output is then empty too, of the full shape).
absl::Status ConvertConcat(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  std::vector<std::string> all, kept;
  std::vector<TensorType> types;
  for (int i = 0; i < n.num_inputs(); ++i) {
    if (!n.HasInput(i)) return n.Error(StrCat("input ", i, " is left empty"));
    all.push_back(n.input(i));
    types.push_back(n.InputType(i));
    if (n.InputType(i).NumElements() > 0) kept.push_back(n.input(i));
  }
  // The empty inputs must still fit (dtype, rank, other extents): checked with all of them.
  Node whole;
  whole.name = n.output(0);
  whole.op = "Concat";
  whole.attrs = n.attrs();
  TF_RETURN_IF_ERROR(PrepareNode(&whole, types));
  return n.Emit("Concat", kept.empty() ? all : kept, n.attrs(), {n.output(0)});
}

// A Cast to input 1's dtype; input 1's values are never read.
absl::Status ConvertCastLike(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(2));
  Attrs attrs = n.attrs();
  attrs.Erase("saturate");
  attrs.Set("to", std::string(te::DTypeName(n.InputType(1).dtype)));
  return n.Emit("Cast", {n.input(0)}, std::move(attrs), {n.output(0)});
}

// x -> Reshape(split) -> Transpose(perm) -> Reshape(merged): how DepthToSpace and SpaceToDepth
// move channels to pixels and back.
absl::Status EmitBlockShuffle(OnnxNode& n, const Shape& split, const Shape& perm, const Shape& merged) {
  const std::string& out = n.output(0);
  const std::string a = n.UniqueName(StrCat(out, ".split")), t = n.UniqueName(StrCat(out, ".shuffled"));
  Attrs reshape_split, transpose, reshape_merged;
  reshape_split.Set("shape", split);
  transpose.Set("perm", perm);
  reshape_merged.Set("shape", merged);
  TF_RETURN_IF_ERROR(n.Emit("Reshape", {n.input(0)}, std::move(reshape_split), {a}, a));
  TF_RETURN_IF_ERROR(n.Emit("Transpose", {a}, std::move(transpose), {t}, t));
  return n.Emit("Reshape", {t}, std::move(reshape_merged), {out});
}

// The 4-D input and a positive blocksize, or an error.
absl::StatusOr<int64_t> BlockSizeOf(OnnxNode& n) {
  if (n.InputType(0).shape.size() != 4) return n.Error(StrCat("input must be 4-D, got ", n.InputType(0).ToString()));
  const int64_t block = n.attrs().GetInt("blocksize", 0);
  if (block <= 0) return n.Error(StrCat("blocksize ", block, " is not positive"));
  // Bounded by the channels, so block * block and every product below stay far from overflow
  // (fuzz-style: a blocksize of 2^32 squared wrapped to 0 and divided by it).
  const std::vector<int64_t>& x = n.InputType(0).shape;
  if (block > x[1] && block > x[2] && block > x[3])
    return n.Error(StrCat("blocksize ", block, " exceeds the input's dims ", ShapeToString(x)));
  int64_t square = 0;
  if (__builtin_mul_overflow(block, block, &square) ||
      std::max({x[1], x[2], x[3]}) > (int64_t{1} << 40) / square)
    return n.Error(StrCat("blocksize ", block, " is too large for input ", ShapeToString(x)));
  return block;
}

// DepthToSpace: DCR (default) reads channels as [block, block, C'], CRD as [C', block, block].
absl::Status ConvertDepthToSpace(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  auto block = BlockSizeOf(n);
  if (!block.ok()) return block.status();
  const int64_t b = *block;
  const Shape& x = n.InputType(0).shape;
  if (x[1] % (b * b) != 0) return n.Error(StrCat("channels ", x[1], " are not a multiple of blocksize^2 ", b * b));
  const int64_t c = x[1] / (b * b);
  const Shape merged{x[0], c, x[2] * b, x[3] * b};
  const std::string mode = n.attrs().GetString("mode", "DCR");
  if (mode == "DCR") return EmitBlockShuffle(n, {x[0], b, b, c, x[2], x[3]}, {0, 3, 4, 1, 5, 2}, merged);
  if (mode == "CRD") return EmitBlockShuffle(n, {x[0], c, b, b, x[2], x[3]}, {0, 1, 4, 2, 5, 3}, merged);
  return n.Error(StrCat("unknown mode '", mode, "'"));
}

absl::Status ConvertSpaceToDepth(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  auto block = BlockSizeOf(n);
  if (!block.ok()) return block.status();
  const int64_t b = *block;
  const Shape& x = n.InputType(0).shape;
  if (x[2] % b != 0 || x[3] % b != 0)
    return n.Error(StrCat("height ", x[2], " and width ", x[3], " must be multiples of blocksize ", b));
  return EmitBlockShuffle(n, {x[0], x[1], x[2] / b, b, x[3] / b, b}, {0, 3, 5, 1, 2, 4},
                          {x[0], x[1] * b * b, x[2] / b, x[3] / b});
}

}  // namespace

void RegisterShapeFamily(OpRegistry* r) {
  r->Register({"Reshape", 1, 1, 1, {Required("shape", AttrKind::kInts), Int("allowzero", 0)}, InferReshape,
               OpPattern::kInjective});
  r->Register({"Flatten", 1, 1, 1, {Int("axis", 1)}, InferFlatten, OpPattern::kInjective});
  r->Register({"Transpose", 1, 1, 1, {IntList("perm")}, InferTranspose, OpPattern::kInjective});
  r->Register({"Concat", 1, -1, 1, {Required("axis", AttrKind::kInt)}, InferConcat, OpPattern::kInjective});
  r->Register({"Slice", 1, 1, 1,
               {Required("starts", AttrKind::kInts), Required("ends", AttrKind::kInts), IntList("axes"),
                IntList("steps")},
               InferSlice, OpPattern::kInjective});
  r->Register({"Unsqueeze", 1, 1, 1, {Required("axes", AttrKind::kInts)}, InferUnsqueeze, OpPattern::kInjective});
  r->Register({"Squeeze", 1, 1, 1, {IntList("axes")}, InferSqueeze, OpPattern::kInjective});
  r->Register({"Expand", 1, 1, 1, {Required("shape", AttrKind::kInts)}, InferExpand, OpPattern::kBroadcast});
  r->Register({"Pad", 1, 1, 1, {Required("pads", AttrKind::kInts), Str("mode", "constant"), Float("value", 0.0)},
               InferPad, OpPattern::kInjective});
  r->Register({"Tile", 1, 1, 1, {Required("repeats", AttrKind::kInts)}, InferTile, OpPattern::kInjective});
  // Only for graphs built by hand: the frontend folds Shape of a statically shaped value.
  r->Register({"Shape", 1, 1, 1, {}, InferShape, OpPattern::kOpaque});

  r->RegisterOnnx({"Constant", 1, -1, ConvertConstant});
  r->RegisterOnnx({"Shape", 1, -1, ConvertShape});
  r->RegisterOnnx({"Size", 1, -1, ConvertSize});
  r->RegisterOnnx({"ConstantOfShape", 9, -1, ConvertConstantOfShape});
  r->RegisterOnnx({"Identity", 1, -1, ConvertIdentity});
  r->RegisterOnnx({"Dropout", 1, -1, ConvertIdentity});
  r->RegisterOnnx({"Reshape", 5, -1, ConvertReshape});
  r->RegisterOnnx({"Unsqueeze", 1, -1, ConvertSqueezeAxes});
  r->RegisterOnnx({"Squeeze", 1, -1, ConvertSqueezeAxes});
  r->RegisterOnnx({"Slice", 1, -1, ConvertSlice});
  r->RegisterOnnx({"Split", 1, -1, ConvertSplit});
  r->RegisterOnnx({"Concat", 1, -1, ConvertConcat});
  r->RegisterOnnx({"DepthToSpace", 1, -1, ConvertDepthToSpace});
  r->RegisterOnnx({"SpaceToDepth", 1, -1, ConvertSpaceToDepth});
  r->RegisterOnnx({"Expand", 8, -1, ConvertExpandOrTile});
  r->RegisterOnnx({"Tile", 6, -1, ConvertExpandOrTile});
  r->RegisterOnnx({"Pad", 1, -1, ConvertPad});
  r->RegisterOnnx({"Cast", 1, -1, ConvertCast});
  r->RegisterOnnx({"CastLike", 15, -1, ConvertCastLike});

  for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}) Set(r, op, ReshapeToOutput);
  Set(r, "Transpose", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Transpose(b, in[0], ops::TransposeParams{n.attrs.GetInts("perm")}, n.name));
  });
  Set(r, "Concat", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Concat(b, in, n.attrs.GetInt("axis"), n.name));
  });
  Set(r, "Slice", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    ops::SliceParams p{n.attrs.GetInts("starts"), n.attrs.GetInts("ends"), n.attrs.GetInts("axes"),
                       n.attrs.GetInts("steps")};
    return One(ops::Slice(b, in[0], p, n.name));
  });
  Set(r, "Expand", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Expand(b, in[0], n.attrs.GetInts("shape"), n.name));
  });
  Set(r, "Tile", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Tile(b, in[0], n.attrs.GetInts("repeats"), n.name));
  });
  Set(r, "Pad", PadCompute);
  Set(r, "Shape", ShapeCompute);
}

}  // namespace tunefarm::graph
