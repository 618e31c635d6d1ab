// The dense family: Gemm (with transposes, alpha, beta and the bias), MatMul (batched, with
// NumPy broadcasting of the batch dims), Einsum (any sum of products, one stage) and Det (small
// matrices).
#include "compiler/graph/family_common.h"
#include "compiler/ops/det.h"
#include "compiler/ops/einsum.h"
#include "compiler/ops/matmul.h"

namespace tunefarm::graph {
namespace {
using namespace family;
using Axes = te::DagBuilder::Axes;

absl::Status InferGemm(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(NeedRank(in[0], 2, "A"));
  TF_RETURN_IF_ERROR(NeedRank(in[1], 2, "B"));
  TF_RETURN_IF_ERROR(SameDType(in, 0, 1));
  bool ta = n.attrs.GetInt("transA") != 0, tb = n.attrs.GetInt("transB") != 0;
  int64_t m = in[0].shape[ta ? 1 : 0], k = in[0].shape[ta ? 0 : 1];
  int64_t kb = in[1].shape[tb ? 1 : 0], nn = in[1].shape[tb ? 0 : 1];
  if (k != kb) return Error(StrCat("inner dims differ: A ", in[0].ToString(), ", B ", in[1].ToString()));
  std::vector<int64_t> shape = {m, nn};
  if (in.size() == 3) {
    auto s = BroadcastShapes(in[2].shape, shape);
    if (!s.ok() || *s != shape) return Error(StrCat("C ", in[2].ToString(), " does not broadcast to [", m, ",", nn, "]"));
  }
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferMatMul(const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  TF_RETURN_IF_ERROR(SameDType(in, 0, 1));
  std::vector<int64_t> a = in[0].shape, b = in[1].shape;
  if (a.empty() || b.empty()) return Error("MatMul inputs must have rank >= 1");
  bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  if (a.back() != b[b.size() - 2])
    return Error(StrCat("inner dims differ: ", in[0].ToString(), " x ", in[1].ToString()));
  auto batch = BroadcastShapes(std::vector<int64_t>(a.begin(), a.end() - 2), std::vector<int64_t>(b.begin(), b.end() - 2));
  if (!batch.ok()) return batch.status();
  std::vector<int64_t> shape = *batch;
  if (!a_vec) shape.push_back(a[a.size() - 2]);
  if (!b_vec) shape.push_back(b.back());
  *out = {TensorType{in[0].dtype, shape}};
  return absl::OkStatus();
}

absl::Status InferEinsum(const Node& n, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < in.size(); ++i) {
    TF_RETURN_IF_ERROR(SameDType(in, 0, i));
    shapes.push_back(in[i].shape);
  }
  auto plan = ops::PlanEinsum(n.attrs.GetString("equation"), shapes);
  if (!plan.ok()) return Error(std::string(plan.status().message()));
  *out = {TensorType{in[0].dtype, plan->output_shape}};
  return absl::OkStatus();
}

Outputs GemmCompute(te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
  double alpha = n.attrs.GetFloat("alpha"), beta = n.attrs.GetFloat("beta");
  bool epilogue = alpha != 1.0 || (in.size() == 3 && beta != 0.0);
  ops::MatmulParams p{n.attrs.GetInt("transA") != 0, n.attrs.GetInt("transB") != 0};
  auto mm = ops::BatchMatmul(b, in[0], in[1], p, epilogue ? StrCat(n.name, ".matmul") : n.name);
  if (!mm.ok() || !epilogue) return One(std::move(mm));
  te::Expr a = te::Const(mm->dtype, alpha), c = te::Const(mm->dtype, beta);
  TeTensor y = *mm;
  return std::vector<TeTensor>{b.Compute(n.name, y.shape, [&](const Axes& i) {
    te::Expr v = y(i);
    if (alpha != 1.0) v = v * a;
    if (in.size() == 3 && beta != 0.0) v = v + ops::BroadcastRead(in[2], i) * c;
    return v;
  })};
}

}  // namespace

void RegisterMatmulFamily(OpRegistry* r) {
  r->Register({"Gemm", 2, 3, 1, {Float("alpha", 1.0), Float("beta", 1.0), Int("transA", 0), Int("transB", 0)},
               InferGemm, OpPattern::kOutElementwiseFusable});
  r->Register({"MatMul", 2, 2, 1, {}, InferMatMul, OpPattern::kOutElementwiseFusable});
  r->Register({"Det", 1, 1, 1, {},
               [](const Node&, const std::vector<TensorType>& in, std::vector<TensorType>* out) {
                 TF_RETURN_IF_ERROR(NeedFloat(in[0], "X"));
                 const auto& x = in[0].shape;
                 if (x.size() < 2 || x[x.size() - 1] != x[x.size() - 2])
                   return Error(StrCat("X ", in[0].ToString(), " is not [..., n, n]"));
                 if (x.back() > ops::kMaxDetOrder)
                   return Error(StrCat("a ", x.back(), "x", x.back(), " determinant is larger than the ",
                                       ops::kMaxDetOrder, "x", ops::kMaxDetOrder, " supported"));
                 *out = {TensorType{in[0].dtype, std::vector<int64_t>(x.begin(), x.end() - 2)}};
                 return absl::OkStatus();
               },
               OpPattern::kOpaque});
  r->Register({"Einsum", 1, -1, 1, {Required("equation", AttrKind::kString)}, InferEinsum, OpPattern::kOpaque});

  Set(r, "Gemm", GemmCompute);
  Set(r, "MatMul", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::BatchMatmul(b, in[0], in[1], ops::MatmulParams{}, n.name));
  });
  Set(r, "Det", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Det(b, in[0], n.name));
  });
  Set(r, "Einsum", [](te::DagBuilder& b, const Node& n, const std::vector<TeTensor>& in) {
    return One(ops::Einsum(b, in, n.attrs.GetString("equation"), n.name));
  });
}

}  // namespace tunefarm::graph
