#include "compiler/passes/dense_weights.h"

#include <cstring>
#include <map>

#include "common/log.h"
#include "common/strings.h"
#include "compiler/passes/graph_rewriter.h"

namespace tunefarm::passes {
namespace {

using graph::HostTensor;
using graph::Node;
using graph::NodeEntry;

// [rows, cols] -> [cols, rows], any dtype.
HostTensor Transposed(const HostTensor& t) {
  const int64_t rows = t.shape[0], cols = t.shape[1];
  const size_t width = static_cast<size_t>(te::DTypeBytes(t.dtype));
  HostTensor out = t;
  out.shape = {cols, rows};
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(out.bytes.data() + (c * rows + r) * width, t.bytes.data() + (r * cols + c) * width, width);
  return out;
}

bool IsTransposedParamGemm(const graph::Graph& g, const Node& n) {
  if (n.op != "Gemm" || n.attrs.GetInt("transB", 0) == 0 || n.inputs.size() < 2) return false;
  const Node& b = g.node(n.inputs[1].node);
  return b.IsParam() && g.type(n.inputs[1]).shape.size() == 2;
}

}  // namespace

absl::StatusOr<graph::Graph> PretransposeDenseWeights(const graph::Graph& g) {
  GraphRewriter rw(g);
  std::map<NodeEntry, NodeEntry> transposed;  // old param -> its new transpose (shared weights once)
  int rewritten = 0;
  for (int id = 0; id < static_cast<int>(g.nodes().size()); ++id) {
    const Node& n = g.node(id);
    if (!IsTransposedParamGemm(g, n)) {
      if (absl::Status s = rw.Copy(id); !s.ok()) return s;
      continue;
    }
    const NodeEntry b = n.inputs[1];
    auto it = transposed.find(b);
    if (it == transposed.end()) {
      const Node& param = g.node(b.node);
      auto t = rw.AddParam(StrCat(param.name, ".T"), Transposed(g.params().at(param.name)));
      if (!t.ok()) return t.status();
      it = transposed.emplace(b, *t).first;
    }
    std::vector<NodeEntry> inputs = rw.LookupInputs(id);
    inputs[1] = it->second;
    graph::Attrs attrs = n.attrs;
    attrs.Set("transB", int64_t{0});
    auto out = rw.AddNode("Gemm", n.name, std::move(inputs), std::move(attrs));
    if (!out.ok()) return out.status();
    rw.Map({id, 0}, *out);
    ++rewritten;
    TF_LOG(DEBUG, "passes") << "dense-weights: transposed B of Gemm '" << n.name << "' at compile time";
  }
  TF_LOG(INFO, "passes") << "dense-weights: " << rewritten << " Gemm weights transposed";
  return rw.Finish();
}

}  // namespace tunefarm::passes
