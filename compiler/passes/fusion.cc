#include "compiler/passes/fusion.h"

#include <algorithm>
#include <set>

#include "common/log.h"
#include "common/strings.h"
#include "compiler/passes/graph_rewriter.h"

namespace tunefarm::passes {
namespace {

using graph::NodeEntry;
using graph::OpPattern;

OpPattern PatternOf(const std::string& op) {
  const graph::OpSchema* schema = graph::OpRegistry::Global().Find(op);
  return schema == nullptr ? OpPattern::kOpaque : schema->pattern;
}

bool AtMost(OpPattern p, OpPattern limit) { return static_cast<int>(p) <= static_cast<int>(limit); }

bool IsMaster(OpPattern p) { return p == OpPattern::kOutElementwiseFusable || p == OpPattern::kReduction; }

// A group while it is being built.
struct Building {
  std::vector<int> nodes;
  int master = -1;  // the out-elementwise-fusable or reduction node, if any
  bool opaque = false;

  // Whether a node of pattern `p` may join at the end of this group.
  bool Accepts(OpPattern p) const {
    if (opaque) return false;
    return AtMost(p, master >= 0 ? OpPattern::kBroadcast : OpPattern::kInjective);
  }
};

}  // namespace

bool IsViewOp(const std::string& op) {
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity";
}

std::vector<NodeEntry> GroupInputs(const graph::Graph& g, const FusedGroup& group) {
  std::set<int> members(group.nodes.begin(), group.nodes.end());
  std::vector<NodeEntry> inputs;
  for (int id : group.nodes)
    for (NodeEntry e : g.node(id).inputs)
      if (!members.count(e.node) && std::find(inputs.begin(), inputs.end(), e) == inputs.end()) inputs.push_back(e);
  return inputs;
}

absl::StatusOr<FusionPlan> FuseOps(const graph::Graph& g) {
  ValueUses uses = ComputeUses(g);
  std::vector<Building> building;
  std::vector<int> group_of(g.nodes().size(), -1);
  for (int id = 0; id < static_cast<int>(g.nodes().size()); ++id) {
    const graph::Node& n = g.node(id);
    if (n.IsInput() || n.IsParam()) continue;
    OpPattern p = PatternOf(n.op);
    int join = -1;
    if (!IsMaster(p) && p != OpPattern::kOpaque) {
      for (NodeEntry e : n.inputs) {
        int gid = group_of[e.node];
        if (gid < 0 || uses.NumConsumers(e) != 1 || uses.IsOutput(e) || !building[gid].Accepts(p)) continue;
        // Prefer epilogues of a master (conv + bias + relu) over extending an injective chain.
        if (join < 0 || (building[gid].master >= 0 && building[join].master < 0)) join = gid;
      }
    }
    if (p == OpPattern::kReduction) {
      // A reduction reads each element of its input once, so an elementwise chain that only it
      // reads (a layer norm's square) runs inside it at no extra cost: it joins that chain as
      // its master, and its own epilogue follows.
      for (NodeEntry e : n.inputs) {
        int gid = group_of[e.node];
        if (gid < 0 || building[gid].master >= 0 || building[gid].opaque || uses.NumConsumers(e) != 1 ||
            uses.IsOutput(e))
          continue;
        join = gid;
        building[gid].master = id;
        break;
      }
    }
    if (join < 0) {
      join = static_cast<int>(building.size());
      building.push_back({});
      building.back().opaque = p == OpPattern::kOpaque;
      if (IsMaster(p)) building.back().master = id;
    }
    building[join].nodes.push_back(id);
    group_of[id] = join;
  }
  // Only a group's last node can be read by another group (every other member's one consumer is
  // inside), so ordering groups by their last node is a topological order.
  std::sort(building.begin(), building.end(),
            [](const Building& a, const Building& b) { return a.nodes.back() < b.nodes.back(); });
  FusionPlan plan;
  int fused_nodes = 0;
  for (const Building& b : building) {
    FusedGroup group;
    group.nodes = b.nodes;
    group.anchor = b.master >= 0 ? b.master : b.nodes.back();
    group.pattern = PatternOf(g.node(group.anchor).op);
    group.is_view = b.nodes.size() == 1 && IsViewOp(g.node(b.nodes[0]).op);
    std::set<int> members(b.nodes.begin(), b.nodes.end());
    for (int id : b.nodes)
      for (int i = 0; i < static_cast<int>(g.node(id).outputs.size()); ++i) {
        NodeEntry e{id, i};
        bool escapes = uses.IsOutput(e);
        auto it = uses.consumers.find(e);
        if (it != uses.consumers.end())
          for (int c : it->second) escapes = escapes || !members.count(c);
        if (escapes) group.outputs.push_back(e);
      }
    if (b.nodes.size() > 1) fused_nodes += static_cast<int>(b.nodes.size());
    plan.groups.push_back(std::move(group));
  }
  int views = static_cast<int>(std::count_if(plan.groups.begin(), plan.groups.end(),
                                             [](const FusedGroup& gr) { return gr.is_view; }));
  TF_LOG(INFO, "passes") << "fusion: " << plan.groups.size() << " groups (" << views << " views), "
                         << fused_nodes << " nodes in multi-node groups";
  if (log::Enabled(log::Level::kDebug))
    TF_LOG(DEBUG, "passes") << "fusion plan:\n" << FusionPlanToString(g, plan);
  return plan;
}

std::string FusionPlanToString(const graph::Graph& g, const FusionPlan& plan) {
  std::string out;
  for (size_t i = 0; i < plan.groups.size(); ++i) {
    const FusedGroup& group = plan.groups[i];
    std::vector<std::string> ops, outs;
    for (int id : group.nodes) ops.push_back(g.node(id).op);
    for (NodeEntry e : group.outputs) outs.push_back(StrCat("%", e.node, " ", g.type(e).ToString()));
    const graph::Node& anchor = g.node(group.anchor);
    StrAppend(&out, "#", i, " ", StrJoin(ops, "+"), " anchor=", anchor.op, " '", anchor.name, "' (",
              graph::OpPatternName(group.pattern), ")", group.is_view ? " view" : "", " -> ", StrJoin(outs, ", "),
              "\n");
  }
  return out;
}

}  // namespace tunefarm::passes
