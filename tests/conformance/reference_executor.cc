#include "tests/conformance/reference_executor.h"

#include <map>

#include "common/strings.h"
#include "compiler/graph/node_interpreter.h"

namespace tunefarm::conformance {
namespace {

using graph::Node;
using graph::NodeEntry;

}  // namespace

absl::StatusOr<std::vector<HostTensor>> RunReference(const graph::Graph& g, const std::vector<HostTensor>& inputs) {
  std::vector<std::vector<HostTensor>> values(g.nodes().size());
  size_t next_input = 0;
  for (size_t id = 0; id < g.nodes().size(); ++id) {
    const Node& n = g.node(static_cast<int>(id));
    if (n.IsInput()) {
      if (next_input >= inputs.size()) return absl::InvalidArgumentError(StrCat("no data for input '", n.name, "'"));
      const HostTensor& t = inputs[next_input++];
      if (t.dtype != n.outputs[0].dtype || t.shape != n.outputs[0].shape)
        return absl::InvalidArgumentError(StrCat("input '", n.name, "' is ", t.ToString(0), ", the graph wants ",
                                                 n.outputs[0].ToString()));
      values[id] = {t};
      continue;
    }
    if (n.IsParam()) {
      values[id] = {g.params().at(n.name)};
      continue;
    }
    std::vector<const HostTensor*> in;
    for (const NodeEntry& e : n.inputs) in.push_back(&values[e.node][e.index]);
    auto outs = graph::InterpretNode(n, in);
    if (!outs.ok()) return outs.status();
    values[id] = std::move(*outs);
  }
  std::vector<HostTensor> result;
  for (const NodeEntry& e : g.outputs()) result.push_back(values[e.node][e.index]);
  return result;
}

CaseExecutor ReferenceExecutor() {
  return [](const graph::Graph& g, const std::vector<HostTensor>& inputs) { return RunReference(g, inputs); };
}

}  // namespace tunefarm::conformance
