// Shape ops (injective): every shape-like operand is an attribute, resolved by the frontend.
#include <algorithm>

#include "compiler/graph/ops_common.h"

namespace tunefarm::graph {
namespace {
using namespace ops;

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

}  // namespace

void RegisterShapeOps(OpRegistry* r) {
  r->Register({"Reshape", 1, 1, 1, {Required("shape", AttrKind::kInts), Int("allowzero", 0)}, InferReshape,
               OpPattern::kInjective});
  r->Register({"Flatten", 1, 1, 1, {Int("axis", 1)}, InferFlatten, OpPattern::kInjective});
  r->Register({"Transpose", 1, 1, 1, {IntList("perm")}, InferTranspose, OpPattern::kInjective});
  r->Register({"Concat", 1, -1, 1, {Required("axis", AttrKind::kInt)}, InferConcat, OpPattern::kInjective});
  r->Register({"Slice", 1, 1, 1,
               {Required("starts", AttrKind::kInts), Required("ends", AttrKind::kInts), IntList("axes"),
                IntList("steps")},
               InferSlice, OpPattern::kInjective});
  r->Register({"Gather", 2, 2, 1, {Int("axis", 0)}, InferGather, OpPattern::kInjective});
  r->Register({"Unsqueeze", 1, 1, 1, {Required("axes", AttrKind::kInts)}, InferUnsqueeze, OpPattern::kInjective});
  r->Register({"Squeeze", 1, 1, 1, {IntList("axes")}, InferSqueeze, OpPattern::kInjective});
  r->Register({"Expand", 1, 1, 1, {Required("shape", AttrKind::kInts)}, InferExpand, OpPattern::kBroadcast});
  r->Register({"Pad", 1, 1, 1, {Required("pads", AttrKind::kInts), Str("mode", "constant"), Float("value", 0.0)},
               InferPad, OpPattern::kInjective});
  r->Register({"Tile", 1, 1, 1, {Required("repeats", AttrKind::kInts)}, InferTile, OpPattern::kInjective});
  // Only for graphs built by hand: the frontend folds Shape of a statically shaped value.
  r->Register({"Shape", 1, 1, 1, {}, InferShape, OpPattern::kOpaque});
}

}  // namespace tunefarm::graph
