// The text family: ONNX TfIdfVectorizer (opset 9 on) over integer tokens. The converter turns
// the attribute pool into constant tables with one row per output column (its n-gram's tokens,
// length and weight), so the kernel (ops/tfidf.h) only compares tokens with table rows. String
// tokens are refused: tunefarm has no string tensors.
#include <algorithm>

#include "compiler/graph/family_common.h"
#include "compiler/ops/tfidf.h"

namespace tunefarm::graph {
namespace {
using namespace family;
using Shape = std::vector<int64_t>;

// Output columns beyond this would make the tables larger than any vocabulary needs.
constexpr int64_t kMaxColumns = int64_t{1} << 22;

absl::Status ConvertTfIdfVectorizer(OnnxNode& n) {
  TF_RETURN_IF_ERROR(n.NeedInputs(1));
  const Attrs& a = n.attrs();
  const TensorType& x = n.InputType(0);
  if (a.Has("pool_strings") || !te::IsInt(x.dtype) || (x.dtype != te::DType::kInt32 && x.dtype != te::DType::kInt64))
    return n.Error(StrCat("string tokens are not supported (tunefarm has no string tensors); the input is ", x.ToString(),
                          ", int32 or int64 tokens with pool_int64s are"));
  const std::string mode = a.GetString("mode");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") return n.Error(StrCat("mode '", mode, "' is not TF, IDF or TFIDF"));
  const int64_t min_n = a.GetInt("min_gram_length"), max_n = a.GetInt("max_gram_length"), skip = a.GetInt("max_skip_count");
  if (min_n < 1 || max_n < min_n || skip < 0 || skip > 1024)
    return n.Error(StrCat("gram lengths [", min_n, ", ", max_n, "] and max_skip_count ", skip, " are not usable"));
  const Shape pool = a.GetInts("pool_int64s"), starts = a.GetInts("ngram_counts"), columns = a.GetInts("ngram_indexes");
  const std::vector<double> given_weights = a.GetFloats("weights");
  // The pool holds the 1-grams from starts[0], the 2-grams from starts[1], and so on.
  std::vector<std::pair<int64_t, int64_t>> grams;  // (first pool entry, length) per n-gram
  for (size_t k = 0; k < starts.size(); ++k) {
    const int64_t length = static_cast<int64_t>(k) + 1;
    const int64_t end = k + 1 < starts.size() ? starts[k + 1] : static_cast<int64_t>(pool.size());
    if (starts[k] < 0 || end < starts[k] || end > static_cast<int64_t>(pool.size()) || (end - starts[k]) % length != 0)
      return n.Error(StrCat("ngram_counts [", StrJoin(starts, ","), "] does not split the pool of ", pool.size(), " tokens into ",
                            "whole n-grams"));
    for (int64_t at = starts[k]; at < end; at += length) grams.emplace_back(at, length);
  }
  if (columns.size() != grams.size())
    return n.Error(StrCat("ngram_indexes has ", columns.size(), " entries for the pool's ", grams.size(), " n-grams"));
  if (!given_weights.empty() && given_weights.size() != grams.size())
    return n.Error(StrCat("weights has ", given_weights.size(), " entries for the pool's ", grams.size(), " n-grams"));
  int64_t J = 0;
  for (int64_t c : columns) {
    if (c < 0 || c >= kMaxColumns) return n.Error(StrCat("ngram_indexes entry ", c, " is not in [0, ", kMaxColumns, ")"));
    J = std::max(J, c + 1);
  }
  if (J == 0) return n.Error("the pool holds no n-gram");
  const int64_t G = std::max<int64_t>(1, static_cast<int64_t>(starts.size()));
  auto tokens = HostTensor::Zeros(x.dtype, {J, G});
  if (!tokens.ok()) return n.Error(std::string(tokens.status().message()));
  std::vector<int64_t> lengths(J, 0);
  std::vector<float> weights(J, 1.0f);
  for (size_t g = 0; g < grams.size(); ++g) {
    const int64_t column = columns[g];
    if (lengths[column] != 0) return n.Error(StrCat("ngram_indexes gives two n-grams the output column ", column));
    const auto [first, length] = grams[g];
    // An n-gram outside [min_gram_length, max_gram_length] keeps its column but counts nothing.
    lengths[column] = length >= min_n && length <= max_n ? length : 0;
    for (int64_t k = 0; k < length; ++k) tokens->SetInt(column * G + k, pool[first + k]);
    if (!given_weights.empty()) weights[column] = static_cast<float>(given_weights[g]);
  }
  const std::string stem = n.UniqueName(StrCat(n.output(0), ".pool"));
  n.BindConstant(stem + ".tokens", std::move(*tokens));
  n.BindConstant(stem + ".lengths", HostTensor::FromInt64s(lengths, {J}));
  n.BindConstant(stem + ".weights", HostTensor::FromFloats(weights, {J}));
  Attrs attrs;
  attrs.Set("max_skip_count", skip);
  attrs.Set("mode", mode);
  return n.Emit("TfIdf", {n.input(0), stem + ".tokens", stem + ".lengths", stem + ".weights"}, std::move(attrs),
                {n.output(0)});
}

absl::Status InferTfIdf(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  const TensorType &x = in[0], &tokens = in[1];
  if ((x.dtype != te::DType::kInt32 && x.dtype != te::DType::kInt64) || (x.shape.size() != 1 && x.shape.size() != 2))
    return Error(StrCat("input ", x.ToString(), " is not int32 or int64 [C] or [N, C]"));
  if (tokens.dtype != x.dtype || tokens.shape.size() != 2 || in[2].shape != Shape{tokens.shape[0]} ||
      in[3].shape != Shape{tokens.shape[0]} || in[2].dtype != te::DType::kInt64 || in[3].dtype != te::DType::kFloat32)
    return Error("the pool tables do not match the input");
  const std::string mode = n.attrs.GetString("mode");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") return Error(StrCat("mode '", mode, "' is not TF, IDF or TFIDF"));
  Shape shape = x.shape.size() == 2 ? Shape{x.shape[0], tokens.shape[0]} : Shape{tokens.shape[0]};
  *out = {TensorType{te::DType::kFloat32, shape}};
  return absl::OkStatus();
}

Outputs ComputeTfIdf(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  ops::TfIdfParams p;
  p.max_skip = n.attrs.GetInt("max_skip_count");
  const std::string mode = n.attrs.GetString("mode");
  p.mode = mode == "IDF" ? ops::TfIdfMode::kIdf : mode == "TFIDF" ? ops::TfIdfMode::kTfIdf : ops::TfIdfMode::kTf;
  return One(ops::TfIdf(b, in[0], in[1], in[2], in[3], p, n.name));
}

}  // namespace

void RegisterTextFamily(OpRegistry* r) {
  r->Register({"TfIdf", 4, 4, 1, {Int("max_skip_count", 0), Str("mode", "TF")}, InferTfIdf, OpPattern::kOpaque});
  Set(r, "TfIdf", ComputeTfIdf);
  r->RegisterOnnx({"TfIdfVectorizer", 9, -1, ConvertTfIdfVectorizer});
}

}  // namespace tunefarm::graph
