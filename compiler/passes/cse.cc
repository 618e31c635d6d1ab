#include "compiler/passes/cse.h"

#include <functional>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "common/log.h"
#include "common/strings.h"
#include "compiler/passes/graph_rewriter.h"

namespace tunefarm::passes {
namespace {

using graph::HostTensor;
using graph::Node;
using graph::NodeEntry;

bool SameTensor(const HostTensor& a, const HostTensor& b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.bytes == b.bytes;
}

bool SameValue(const graph::AttrValue& a, const graph::AttrValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, HostTensor>) return SameTensor(x, std::get<T>(b));  // no operator==
        else return x == std::get<T>(b);
      },
      a);
}

bool SameAttrs(const graph::Attrs& a, const graph::Attrs& b) {
  if (a.values().size() != b.values().size()) return false;
  for (auto ia = a.values().begin(), ib = b.values().begin(); ia != a.values().end(); ++ia, ++ib)
    if (ia->first != ib->first || !SameValue(ia->second, ib->second)) return false;
  return true;
}

// A hash bucket key; candidates in a bucket are compared exactly.
std::string NodeKey(const Node& n, const std::vector<NodeEntry>& inputs) {
  std::string key = StrCat(n.op, "(");
  for (NodeEntry e : inputs) StrAppend(&key, e.node, ":", e.index, ",");
  StrAppend(&key, ")", n.attrs.ToString());
  return key;
}

std::string ParamKey(const HostTensor& t) {
  size_t h = std::hash<std::string_view>()(
      std::string_view(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size()));
  return StrCat("param ", te::DTypeName(t.dtype), graph::ShapeToString(t.shape), " ", h);
}

}  // namespace

absl::StatusOr<graph::Graph> EliminateCommonSubexpressions(const graph::Graph& g) {
  GraphRewriter rw(g);
  // key → old node ids already emitted under that key
  std::unordered_map<std::string, std::vector<int>> seen;
  int merged_nodes = 0, merged_params = 0;
  for (int id = 0; id < static_cast<int>(g.nodes().size()); ++id) {
    const Node& n = g.node(id);
    if (n.IsInput()) {
      if (absl::Status s = rw.Copy(id); !s.ok()) return s;
      continue;
    }
    std::vector<NodeEntry> inputs = rw.LookupInputs(id);
    const HostTensor* data = n.IsParam() ? &g.params().at(n.name) : nullptr;
    std::string key = data ? ParamKey(*data) : NodeKey(n, inputs);
    int twin = -1;
    for (int other : seen[key]) {
      const Node& o = g.node(other);
      bool same = data ? SameTensor(*data, g.params().at(o.name))
                       : o.op == n.op && rw.LookupInputs(other) == inputs && SameAttrs(o.attrs, n.attrs);
      if (same) {
        twin = other;
        break;
      }
    }
    if (twin >= 0) {
      for (int i = 0; i < static_cast<int>(n.outputs.size()); ++i) rw.Map({id, i}, rw.Lookup({twin, i}));
      ++(data ? merged_params : merged_nodes);
      TF_LOG(DEBUG, "passes") << "cse: merged " << n.op << " '" << n.name << "' into '" << g.node(twin).name << "'";
      continue;
    }
    seen[key].push_back(id);
    if (absl::Status s = rw.Copy(id); !s.ok()) return s;
  }
  TF_LOG(INFO, "passes") << "cse: merged " << merged_nodes << " nodes and " << merged_params << " params";
  return rw.Finish();
}

}  // namespace tunefarm::passes
