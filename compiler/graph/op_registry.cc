#include "compiler/graph/op_registry.h"

#include "common/check.h"
#include "common/strings.h"
#include "compiler/graph/op_compute.h"

namespace tunefarm::graph {

std::string_view OpPatternName(OpPattern p) {
  switch (p) {
    case OpPattern::kElementwise: return "elementwise";
    case OpPattern::kBroadcast: return "broadcast";
    case OpPattern::kInjective: return "injective";
    case OpPattern::kReduction: return "reduction";
    case OpPattern::kOutElementwiseFusable: return "out-elementwise-fusable";
    case OpPattern::kOpaque: return "opaque";
  }
  return "?";
}

OpRegistry& OpRegistry::Global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    RegisterElementwiseFamily(r);
    RegisterShapeFamily(r);
    RegisterConvFamily(r);
    RegisterMatmulFamily(r);
    RegisterNormalizationFamily(r);
    RegisterReduceFamily(r);
    RegisterGenerateFamily(r);
    RegisterQuantizeFamily(r);
    RegisterLayoutFamily(r);
    RegisterResizeFamily(r);
    RegisterIndexFamily(r);
    RegisterRecurrentFamily(r);
    RegisterSignalFamily(r);
    RegisterTextFamily(r);
    return r;
  }();
  return *registry;
}

void OpRegistry::Register(OpSchema schema) {
  TF_CHECK(schema.infer != nullptr, schema.name.c_str());
  TF_CHECK(schemas_.count(schema.name) == 0, schema.name.c_str());
  std::string name = schema.name;
  schemas_.emplace(std::move(name), std::move(schema));
}

const OpSchema* OpRegistry::Find(const std::string& name) const {
  auto it = schemas_.find(name);
  return it == schemas_.end() ? nullptr : &it->second;
}

void OpRegistry::SetCompute(const std::string& name, std::shared_ptr<const OpCompute> compute) {
  auto it = schemas_.find(name);
  TF_CHECK(it != schemas_.end(), name.c_str());
  it->second.compute = std::move(compute);
}

void OpRegistry::RegisterOnnx(OnnxConverter converter) {
  TF_CHECK(converter.convert != nullptr, converter.onnx_op.c_str());
  auto [begin, end] = converters_.equal_range(converter.onnx_op);
  for (auto it = begin; it != end; ++it) {
    const OnnxConverter& c = it->second;
    const bool disjoint = (converter.until != -1 && converter.until < c.since) || (c.until != -1 && c.until < converter.since);
    TF_CHECK(disjoint, converter.onnx_op.c_str());
  }
  std::string name = converter.onnx_op;
  converters_.emplace(std::move(name), std::move(converter));
}

const OnnxConverter* OpRegistry::FindOnnx(const std::string& onnx_op, int opset) const {
  auto [begin, end] = converters_.equal_range(onnx_op);
  for (auto it = begin; it != end; ++it)
    if (it->second.since <= opset && (it->second.until == -1 || opset <= it->second.until)) return &it->second;
  return nullptr;
}

int OpRegistry::FirstOnnxOpset(const std::string& onnx_op) const {
  int first = 0;
  auto [begin, end] = converters_.equal_range(onnx_op);
  for (auto it = begin; it != end; ++it)
    if (first == 0 || it->second.since < first) first = it->second.since;
  return first;
}

std::vector<std::string> OpRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, schema] : schemas_) names.push_back(name);
  return names;
}

absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return absl::InvalidArgumentError(
          StrCat("shapes ", ShapeToString(a), " and ", ShapeToString(b), " do not broadcast"));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return absl::InvalidArgumentError(StrCat("axis ", axis, " out of range for rank ", rank));
  return axis < 0 ? axis + rank : axis;
}

absl::StatusOr<std::vector<SliceAxis>> ResolveSlice(const std::vector<int64_t>& shape, const std::vector<int64_t>& starts,
                                                    const std::vector<int64_t>& ends, std::vector<int64_t> axes,
                                                    std::vector<int64_t> steps) {
  int64_t rank = static_cast<int64_t>(shape.size());
  if (starts.size() != ends.size()) return absl::InvalidArgumentError("starts and ends differ in length");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return absl::InvalidArgumentError("starts, ends, axes and steps differ in length");
  std::vector<SliceAxis> out(shape.size());
  for (int64_t i = 0; i < rank; ++i) out[i] = {0, 1, shape[i]};
  std::vector<bool> seen(shape.size(), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    auto axis = NormalizeAxis(axes[i], rank);
    if (!axis.ok()) return axis.status();
    if (seen[*axis]) return absl::InvalidArgumentError(StrCat("axis ", *axis, " sliced twice"));
    seen[*axis] = true;
    int64_t dim = shape[*axis], step = steps[i];
    if (step == 0) return absl::InvalidArgumentError("slice step is 0");
    auto clamp = [](int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); };
    int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
    if (step > 0) {
      start = clamp(start, 0, dim);
      end = clamp(end, 0, dim);
    } else {
      start = clamp(start, -1, dim - 1);
      end = clamp(end, -1, dim - 1);
    }
    int64_t count = step > 0 ? (end > start ? (end - start + step - 1) / step : 0)
                             : (start > end ? (start - end - step - 1) / (-step) : 0);
    out[*axis] = {start, step, count};
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> ResolveReshape(const std::vector<int64_t>& in, const std::vector<int64_t>& target,
                                                    bool allow_zero) {
  auto total = CheckedNumElements(in);
  if (!total.ok()) return total.status();
  std::vector<int64_t> out = target;
  int infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0 && !allow_zero) {
      if (i >= in.size()) return absl::InvalidArgumentError("reshape target copies a dim (0) beyond the input rank");
      out[i] = in[i];
    }
    if (out[i] == -1) {
      if (infer_at >= 0) return absl::InvalidArgumentError("reshape target has more than one -1");
      infer_at = static_cast<int>(i);
      continue;
    }
    if (out[i] < 0) return absl::InvalidArgumentError(StrCat("reshape target has dim ", out[i]));
    // A hostile target's product can overflow int64 (fuzz); no valid target exceeds the input.
    if (__builtin_mul_overflow(known, out[i], &known))
      return absl::InvalidArgumentError(StrCat("reshape target ", ShapeToString(target), " has too many elements"));
  }
  if (infer_at >= 0) {
    if (known == 0 || *total % known != 0)
      return absl::InvalidArgumentError(
          StrCat("cannot reshape ", ShapeToString(in), " to ", ShapeToString(target)));
    out[infer_at] = *total / known;
  } else if (known != *total) {
    return absl::InvalidArgumentError(StrCat("cannot reshape ", ShapeToString(in), " to ", ShapeToString(target)));
  }
  return out;
}

}  // namespace tunefarm::graph
