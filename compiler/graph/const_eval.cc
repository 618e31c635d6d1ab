#include "compiler/graph/const_eval.h"

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "common/strings.h"
#include "compiler/graph/op_registry.h"

namespace tunefarm::graph {
namespace {

using Shape = std::vector<int64_t>;

Shape RowMajorStrides(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

// Strides of `in` read at the indices of `out` under broadcasting (0 on broadcast axes).
Shape BroadcastStrides(const Shape& in, const Shape& out) {
  Shape s(out.size(), 0);
  Shape own = RowMajorStrides(in);
  size_t off = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) s[off + i] = in[i] == 1 ? 0 : own[i];
  return s;
}

// Calls fn(out_index, in_offset...) over every element of `out_shape`.
template <typename Fn>
void ForEachIndex(const Shape& out_shape, const std::vector<Shape>& in_strides, Fn fn) {
  int64_t total = 1;
  for (int64_t d : out_shape) total *= d;
  Shape idx(out_shape.size(), 0);
  std::vector<int64_t> offsets(in_strides.size(), 0);
  for (int64_t o = 0; o < total; ++o) {
    fn(o, offsets);
    for (int64_t d = static_cast<int64_t>(out_shape.size()) - 1; d >= 0; --d) {
      ++idx[d];
      for (size_t k = 0; k < in_strides.size(); ++k) offsets[k] += in_strides[k][d];
      if (idx[d] < out_shape[d]) break;
      for (size_t k = 0; k < in_strides.size(); ++k) offsets[k] -= in_strides[k][d] * idx[d];
      idx[d] = 0;
    }
  }
}

void CopyElement(const HostTensor& src, int64_t i, HostTensor* dst, int64_t j) {
  int b = te::DTypeBytes(src.dtype);
  std::memcpy(dst->bytes.data() + j * b, src.bytes.data() + i * b, b);
}

absl::StatusOr<HostTensor> Binary(const std::string& op, const HostTensor& a, const HostTensor& b,
                                  const TensorType& out_type) {
  auto out = HostTensor::Zeros(out_type.dtype, out_type.shape);
  if (!out.ok()) return out.status();
  bool fp = te::IsFloat(a.dtype);
  absl::Status error;
  ForEachIndex(out_type.shape, {BroadcastStrides(a.shape, out_type.shape), BroadcastStrides(b.shape, out_type.shape)},
               [&](int64_t o, const std::vector<int64_t>& off) {
                 if (fp) {
                   double x = a.GetDouble(off[0]), y = b.GetDouble(off[1]), r = 0;
                   if (op == "Add") r = x + y;
                   else if (op == "Sub") r = x - y;
                   else if (op == "Mul") r = x * y;
                   else if (op == "Div") r = x / y;
                   else if (op == "Pow") r = std::pow(x, y);
                   else if (op == "Max") r = std::max(x, y);
                   else if (op == "Min") r = std::min(x, y);
                   else if (op == "Equal") r = x == y;
                   else if (op == "Less") r = x < y;
                   else if (op == "Greater") r = x > y;
                   out->SetDouble(o, r);
                 } else {
                   int64_t x = a.GetInt(off[0]), y = b.GetInt(off[1]), r = 0;
                   if (op == "Add") r = static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
                   else if (op == "Sub") r = static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
                   else if (op == "Mul") r = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
                   else if (op == "Div") {
                     if (y == 0 || (x == INT64_MIN && y == -1)) error = absl::InvalidArgumentError("integer division by zero");
                     else r = x / y;
                   } else if (op == "Max") r = std::max(x, y);
                   else if (op == "Min") r = std::min(x, y);
                   else if (op == "Equal") r = x == y;
                   else if (op == "Less") r = x < y;
                   else if (op == "Greater") r = x > y;
                   else if (op == "Pow") r = static_cast<int64_t>(std::pow(static_cast<double>(x), static_cast<double>(y)));
                   out->SetInt(o, r);
                 }
               });
  if (!error.ok()) return error;
  return out;
}

const std::set<std::string> kBinary = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less", "Greater"};
// Float-only unary ops the folding pass meets on weights (e.g. Exp of a log-scale parameter).
const std::map<std::string, double (*)(double)> kFloatUnary = {
    {"Relu", [](double x) { return x > 0 ? x : 0.0; }},
    {"Exp", [](double x) { return std::exp(x); }},
    {"Log", [](double x) { return std::log(x); }},
    {"Reciprocal", [](double x) { return 1.0 / x; }},
    {"Sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
    {"Tanh", [](double x) { return std::tanh(x); }},
    {"Erf", [](double x) { return std::erf(x); }},
};
const std::set<std::string> kViews = {"Identity", "Reshape", "Flatten", "Unsqueeze", "Squeeze"};

}  // namespace

absl::StatusOr<std::optional<std::vector<HostTensor>>> EvaluateConstant(const Node& node,
                                                                        const std::vector<const HostTensor*>& in,
                                                                        int64_t max_elements) {
  const std::string& op = node.op;
  const TensorType& type = node.outputs[0];
  if (type.NumElements() > max_elements || node.outputs.size() != 1) return std::nullopt;
  auto fail = [&](std::string_view reason) {
    return absl::InvalidArgumentError(StrCat("node '", node.name, "' (op ", op, "): ", reason));
  };
  auto make = [&]() { return HostTensor::Zeros(type.dtype, type.shape); };
  using Result = std::optional<std::vector<HostTensor>>;

  if (kViews.count(op)) {
    HostTensor t = *in[0];
    t.shape = type.shape;
    return Result(std::vector<HostTensor>{std::move(t)});
  }
  auto out = make();
  if (!out.ok()) return out.status();
  HostTensor& r = *out;
  // Left to the kernels: the folding arithmetic is int64 or double, which is not uint64's, and
  // the kernels reject arithmetic on float16/bfloat16 with a clear error.
  auto foldable = [](const HostTensor* t) { return t->dtype != te::DType::kUInt64 && !te::IsStorageFloat(t->dtype); };
  if (kBinary.count(op) && in.size() == 2 && foldable(in[0]) && foldable(in[1])) {
    auto v = Binary(op, *in[0], *in[1], type);
    if (!v.ok()) return fail(std::string(v.status().message()));
    return Result(std::vector<HostTensor>{std::move(*v)});
  }
  if (op == "Cast" || op == "Neg" || op == "Abs" || op == "Sqrt" || op == "Floor" || op == "Ceil") {
    const HostTensor& x = *in[0];
    for (int64_t i = 0; i < r.NumElements(); ++i) {
      auto any_float = [](te::DType t) { return te::IsFloat(t) || te::IsStorageFloat(t); };
      if (any_float(x.dtype) || any_float(r.dtype)) {
        double v = x.GetDouble(i);
        if (op == "Neg") v = -v;
        else if (op == "Abs") v = std::fabs(v);
        else if (op == "Sqrt") v = std::sqrt(v);
        else if (op == "Floor") v = std::floor(v);
        else if (op == "Ceil") v = std::ceil(v);
        r.SetDouble(i, v);
      } else {
        int64_t v = x.GetInt(i);
        if (op == "Neg") v = -v;
        else if (op == "Abs") v = v < 0 ? -v : v;
        r.SetInt(i, v);
      }
    }
    return Result(std::vector<HostTensor>{std::move(r)});
  }
  if (auto fn = kFloatUnary.find(op); fn != kFloatUnary.end() && te::IsFloat(r.dtype)) {
    for (int64_t i = 0; i < r.NumElements(); ++i) r.SetDouble(i, fn->second(in[0]->GetDouble(i)));
    return Result(std::vector<HostTensor>{std::move(r)});
  }
  if (op == "Expand") {
    ForEachIndex(type.shape, {BroadcastStrides(in[0]->shape, type.shape)},
                 [&](int64_t o, const std::vector<int64_t>& off) { CopyElement(*in[0], off[0], &r, o); });
    return Result(std::vector<HostTensor>{std::move(r)});
  }
  if (op == "Where") {
    ForEachIndex(type.shape,
                 {BroadcastStrides(in[0]->shape, type.shape), BroadcastStrides(in[1]->shape, type.shape),
                  BroadcastStrides(in[2]->shape, type.shape)},
                 [&](int64_t o, const std::vector<int64_t>& off) {
                   if (in[0]->GetInt(off[0])) CopyElement(*in[1], off[1], &r, o);
                   else CopyElement(*in[2], off[2], &r, o);
                 });
    return Result(std::vector<HostTensor>{std::move(r)});
  }
  if (op == "Transpose") {
    Shape perm = node.attrs.GetInts("perm");
    if (perm.empty())
      for (int64_t i = static_cast<int64_t>(type.shape.size()) - 1; i >= 0; --i) perm.push_back(i);
    Shape own = RowMajorStrides(in[0]->shape), strides;
    for (int64_t p : perm) strides.push_back(own[p]);
    ForEachIndex(type.shape, {strides},
                 [&](int64_t o, const std::vector<int64_t>& off) { CopyElement(*in[0], off[0], &r, o); });
    return Result(std::vector<HostTensor>{std::move(r)});
  }
  if (op == "Slice") {
    auto axes = ResolveSlice(in[0]->shape, node.attrs.GetInts("starts"), node.attrs.GetInts("ends"),
                                    node.attrs.GetInts("axes"), node.attrs.GetInts("steps"));
    if (!axes.ok()) return fail(std::string(axes.status().message()));
    Shape own = RowMajorStrides(in[0]->shape), strides;
    int64_t base = 0;
    for (size_t i = 0; i < axes->size(); ++i) {
      base += (*axes)[i].start * own[i];
      strides.push_back((*axes)[i].step * own[i]);
    }
    ForEachIndex(type.shape, {strides},
                 [&](int64_t o, const std::vector<int64_t>& off) { CopyElement(*in[0], base + off[0], &r, o); });
    return Result(std::vector<HostTensor>{std::move(r)});
  }
  if (op == "Concat") {
    int64_t rank = static_cast<int64_t>(type.shape.size());
    int64_t axis = node.attrs.GetInt("axis");
    if (axis < 0) axis += rank;
    int64_t outer = 1, inner_out = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= type.shape[d];
    for (int64_t d = axis; d < rank; ++d) inner_out *= type.shape[d];
    int64_t offset = 0;
    for (const HostTensor* t : in) {
      int64_t inner = 1;
      for (int64_t d = axis; d < rank; ++d) inner *= t->shape[d];
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) CopyElement(*t, o * inner + i, &r, o * inner_out + offset + i);
      offset += inner;
    }
    return Result(std::vector<HostTensor>{std::move(r)});
  }
  if (op == "Gather") {
    const HostTensor& data = *in[0];
    const HostTensor& idx = *in[1];
    int64_t axis = node.attrs.GetInt("axis");
    if (axis < 0) axis += static_cast<int64_t>(data.shape.size());
    int64_t outer = 1, inner = 1, dim = data.shape[axis];
    for (int64_t d = 0; d < axis; ++d) outer *= data.shape[d];
    for (size_t d = axis + 1; d < data.shape.size(); ++d) inner *= data.shape[d];
    int64_t n = idx.NumElements();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < n; ++k) {
        int64_t j = idx.GetInt(k);
        if (j < -dim || j >= dim) return fail(StrCat("index ", j, " out of range for axis of size ", dim));
        if (j < 0) j += dim;
        for (int64_t i = 0; i < inner; ++i) CopyElement(data, (o * dim + j) * inner + i, &r, (o * n + k) * inner + i);
      }
    return Result(std::vector<HostTensor>{std::move(r)});
  }
  return std::nullopt;
}

}  // namespace tunefarm::graph
