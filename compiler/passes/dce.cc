#include "compiler/passes/dce.h"

#include "common/log.h"
#include "compiler/passes/graph_rewriter.h"

namespace tunefarm::passes {

absl::StatusOr<graph::Graph> EliminateDeadCode(const graph::Graph& g) {
  int num = static_cast<int>(g.nodes().size());
  std::vector<bool> live(num, false);
  for (graph::NodeEntry e : g.outputs()) live[e.node] = true;
  // Nodes only read earlier nodes, so one backward sweep finds everything outputs depend on.
  for (int id = num - 1; id >= 0; --id) {
    if (g.node(id).IsInput()) live[id] = true;
    if (!live[id]) continue;
    for (graph::NodeEntry e : g.node(id).inputs) live[e.node] = true;
  }
  GraphRewriter rw(g);
  int dropped_nodes = 0, dropped_params = 0;
  for (int id = 0; id < num; ++id) {
    const graph::Node& n = g.node(id);
    if (live[id]) {
      if (absl::Status s = rw.Copy(id); !s.ok()) return s;
      continue;
    }
    ++(n.IsParam() ? dropped_params : dropped_nodes);
    if (!n.IsParam()) TF_LOG(DEBUG, "passes") << "dce: dropped " << n.op << " '" << n.name << "'";
  }
  TF_LOG(INFO, "passes") << "dce: dropped " << dropped_nodes << " nodes and " << dropped_params << " params";
  return rw.Finish();
}

}  // namespace tunefarm::passes
