#include "compiler/passes/batch_norm_folding.h"

#include <cmath>
#include <map>
#include <optional>

#include "common/log.h"
#include "common/strings.h"
#include "compiler/passes/graph_rewriter.h"

namespace tunefarm::passes {
namespace {

using graph::HostTensor;
using graph::Node;
using graph::NodeEntry;

const HostTensor* ParamOf(const graph::Graph& g, NodeEntry e) {
  const Node& n = g.node(e.node);
  return n.IsParam() ? &g.params().at(n.name) : nullptr;
}

// Per-channel scale s and shift t of a BatchNormalization whose four statistics are params:
// BN(x) = x · s + t.
struct Affine {
  std::vector<double> scale, shift;
};

std::optional<Affine> BatchNormAffine(const graph::Graph& g, const Node& bn) {
  const HostTensor* stats[4];
  for (int i = 0; i < 4; ++i) {
    stats[i] = ParamOf(g, bn.inputs[i + 1]);
    if (stats[i] == nullptr || !te::IsFloat(stats[i]->dtype)) return std::nullopt;
  }
  double eps = bn.attrs.GetFloat("epsilon");
  Affine a;
  for (int64_t c = 0; c < stats[0]->NumElements(); ++c) {
    double s = stats[0]->GetDouble(c) / std::sqrt(stats[3]->GetDouble(c) + eps);
    a.scale.push_back(s);
    a.shift.push_back(stats[1]->GetDouble(c) - stats[2]->GetDouble(c) * s);
  }
  return a;
}

// The Conv feeding `bn` when the pair can fold into one Conv, else -1.
int FoldableConv(const graph::Graph& g, const ValueUses& uses, const Node& bn) {
  NodeEntry x = bn.inputs[0];
  const Node& conv = g.node(x.node);
  if (conv.op != "Conv" || uses.NumConsumers(x) != 1 || uses.IsOutput(x)) return -1;
  for (size_t i = 1; i < conv.inputs.size(); ++i)
    if (ParamOf(g, conv.inputs[i]) == nullptr) return -1;
  if (!te::IsFloat(g.type(conv.inputs[1]).dtype)) return -1;
  return x.node;
}

HostTensor Filled(te::DType dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
  HostTensor t = *HostTensor::Zeros(dtype, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.SetDouble(static_cast<int64_t>(i), values[i]);
  return t;
}

absl::Status EmitFoldedConv(GraphRewriter& rw, int conv_id, const Affine& a) {
  const graph::Graph& g = rw.src();
  const Node& conv = g.node(conv_id);
  const HostTensor& w = *ParamOf(g, conv.inputs[1]);
  HostTensor folded_w = w;
  int64_t per_channel = w.NumElements() / w.shape[0];
  for (int64_t i = 0; i < w.NumElements(); ++i) folded_w.SetDouble(i, w.GetDouble(i) * a.scale[i / per_channel]);
  std::vector<double> bias(a.shift);
  if (conv.inputs.size() == 3) {
    const HostTensor& b = *ParamOf(g, conv.inputs[2]);
    for (size_t c = 0; c < bias.size(); ++c) bias[c] += b.GetDouble(static_cast<int64_t>(c)) * a.scale[c];
  }
  auto new_w = rw.AddParam(StrCat(conv.name, ".weight_bn"), std::move(folded_w));
  if (!new_w.ok()) return new_w.status();
  auto new_b = rw.AddParam(StrCat(conv.name, ".bias_bn"), Filled(w.dtype, {w.shape[0]}, bias));
  if (!new_b.ok()) return new_b.status();
  auto out = rw.AddNode("Conv", conv.name, {rw.Lookup(conv.inputs[0]), *new_w, *new_b}, conv.attrs);
  if (!out.ok()) return out.status();
  rw.Map({conv_id, 0}, *out);
  return absl::OkStatus();
}

absl::Status EmitMulAdd(GraphRewriter& rw, int id, const Node& bn, const Affine& a) {
  const graph::TensorType& x = rw.src().type(bn.inputs[0]);
  std::vector<int64_t> shape = {static_cast<int64_t>(a.scale.size())};
  for (size_t d = 2; d < x.shape.size(); ++d) shape.push_back(1);
  auto scale = rw.AddParam(StrCat(bn.name, ".scale"), Filled(x.dtype, shape, a.scale));
  if (!scale.ok()) return scale.status();
  auto shift = rw.AddParam(StrCat(bn.name, ".shift"), Filled(x.dtype, shape, a.shift));
  if (!shift.ok()) return shift.status();
  auto mul = rw.AddNode("Mul", StrCat(bn.name, "_mul"), {rw.Lookup(bn.inputs[0]), *scale}, {});
  if (!mul.ok()) return mul.status();
  auto add = rw.AddNode("Add", bn.name, {*mul, *shift}, {});
  if (!add.ok()) return add.status();
  rw.Map({id, 0}, *add);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<graph::Graph> FoldBatchNorm(const graph::Graph& g) {
  ValueUses uses = ComputeUses(g);
  // Decide first: a Conv is emitted (folded) before its BatchNormalization is reached.
  std::map<int, int> bn_of_conv;  // conv id → bn id
  std::map<int, Affine> affine;   // bn id → its affine form
  for (int id = 0; id < static_cast<int>(g.nodes().size()); ++id) {
    const Node& n = g.node(id);
    if (n.op != "BatchNormalization") continue;
    auto a = BatchNormAffine(g, n);
    if (!a) continue;
    affine[id] = std::move(*a);
    if (int conv = FoldableConv(g, uses, n); conv >= 0) bn_of_conv[conv] = id;
  }
  GraphRewriter rw(g);
  int into_conv = 0, to_mul_add = 0;
  for (int id = 0; id < static_cast<int>(g.nodes().size()); ++id) {
    const Node& n = g.node(id);
    if (auto it = bn_of_conv.find(id); it != bn_of_conv.end()) {
      const Node& bn = g.node(it->second);
      if (absl::Status s = EmitFoldedConv(rw, id, affine.at(it->second)); !s.ok()) return s;
      rw.Map({it->second, 0}, rw.Lookup({id, 0}));
      ++into_conv;
      TF_LOG(DEBUG, "passes") << "bn-fold: folded BatchNormalization '" << bn.name << "' into Conv '" << n.name << "'";
      continue;
    }
    if (rw.IsMapped({id, 0})) continue;  // a BatchNormalization folded into its Conv
    if (auto it = affine.find(id); it != affine.end()) {
      if (absl::Status s = EmitMulAdd(rw, id, n, it->second); !s.ok()) return s;
      ++to_mul_add;
      TF_LOG(DEBUG, "passes") << "bn-fold: BatchNormalization '" << n.name << "' became Mul + Add";
      continue;
    }
    if (n.op == "BatchNormalization")
      TF_LOG(DEBUG, "passes") << "bn-fold: kept BatchNormalization '" << n.name << "' (statistics are not params)";
    if (absl::Status s = rw.Copy(id); !s.ok()) return s;
  }
  TF_LOG(INFO, "passes") << "bn-fold: " << into_conv << " folded into Conv, " << to_mul_add << " became Mul + Add";
  return rw.Finish();
}

}  // namespace tunefarm::passes
