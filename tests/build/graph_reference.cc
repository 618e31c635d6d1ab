#include "tests/build/graph_reference.h"

#include <map>

#include "compiler/graph/op_compute.h"
#include "tests/common/dag_evaluator.h"

namespace tunefarm::testing {

std::vector<std::vector<double>> EvaluateGraph(const graph::Graph& g, const std::vector<std::vector<double>>& inputs) {
  std::map<graph::NodeEntry, std::vector<double>> values;
  size_t next_input = 0;
  for (int id = 0; id < static_cast<int>(g.nodes().size()); ++id) {
    const graph::Node& node = g.node(id);
    if (node.IsInput()) {
      values[{id, 0}] = inputs.at(next_input++);
      continue;
    }
    if (node.IsParam()) {
      const graph::HostTensor& t = g.params().at(node.name);
      std::vector<double> v(t.NumElements());
      for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = t.GetDouble(i);
      values[{id, 0}] = std::move(v);
      continue;
    }
    te::DagBuilder b;
    std::vector<te::DagBuilder::Tensor> in;
    std::vector<std::vector<double>> in_values;
    for (const graph::NodeEntry& e : node.inputs) {
      in.push_back(b.Placeholder("in", g.type(e).dtype, g.type(e).shape));
      in_values.push_back(values.at(e));
    }
    auto outs = graph::ComputeNode(b, node, in);
    TF_CHECK(outs.ok(), "reference compute failed");
    // An op may return its input unchanged (Identity): copy it into a stage.
    std::vector<te::DagBuilder::Tensor> stages;
    for (const auto& t : *outs) {
      stages.push_back(b.Compute("copy", t.shape, [&](const te::DagBuilder::Axes& a) { return t(a); }));
    }
    auto dag = b.Build(stages);
    std::vector<std::vector<double>> result = DagEvaluator(*dag).Run(in_values);
    for (size_t i = 0; i < result.size(); ++i) values[{id, static_cast<int>(i)}] = std::move(result[i]);
  }
  std::vector<std::vector<double>> out;
  for (const graph::NodeEntry& e : g.outputs()) out.push_back(values.at(e));
  return out;
}

}  // namespace tunefarm::testing
