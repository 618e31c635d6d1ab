#include "compiler/passes/graph_memory.h"

#include "common/strings.h"

namespace tunefarm::passes {

absl::StatusOr<GraphMemoryProblem> BuildMemoryProblem(const graph::Graph& g, const FusionPlan& plan) {
  GraphMemoryProblem p;
  auto add = [&](graph::NodeEntry e, PlanValue v) {
    const graph::TensorType& t = g.type(e);
    v.bytes = t.NumElements() * te::DTypeBytes(t.dtype);
    p.value_of[e] = static_cast<int>(p.values.size());
    p.values.push_back(v);
    p.value_entries.push_back(e);
  };
  for (int id = 0; id < static_cast<int>(g.nodes().size()); ++id) {
    const graph::Node& n = g.node(id);
    if (n.IsInput()) add({id, 0}, {.pinned = true});
    if (n.IsParam()) add({id, 0}, {.external = true});
  }
  for (size_t gi = 0; gi < plan.groups.size(); ++gi) {
    const FusedGroup& group = plan.groups[gi];
    std::vector<graph::NodeEntry> inputs = GroupInputs(g, group);
    PlanCall call;
    for (graph::NodeEntry e : inputs) {
      auto it = p.value_of.find(e);
      if (it == p.value_of.end())
        return absl::InvalidArgumentError(
            StrCat("group ", gi, " reads %", e.node, " before a group produces it (plan out of order)"));
      call.args.push_back(it->second);
    }
    for (graph::NodeEntry e : group.outputs) {
      PlanValue v;
      if (group.is_view) {
        // The view's bytes are its input's: share the input's root, and its externality.
        const PlanValue& in = p.values[call.args.at(0)];
        v.alias_of = in.alias_of >= 0 ? in.alias_of : call.args[0];
        v.external = in.external;
      }
      add(e, v);
      call.args.push_back(p.value_of[e]);
    }
    if (group.is_view) continue;
    p.calls.push_back(std::move(call));
    p.call_group.push_back(static_cast<int>(gi));
  }
  for (graph::NodeEntry e : g.outputs()) {
    auto it = p.value_of.find(e);
    if (it == p.value_of.end()) return absl::InvalidArgumentError("a graph output is produced by no group");
    p.values[it->second].pinned = true;
  }
  return p;
}

}  // namespace tunefarm::passes
