#include "compiler/build/group_dag.h"

#include <map>
#include <set>

#include "common/strings.h"
#include "compiler/graph/op_compute.h"

namespace tunefarm::build {
namespace {

using TeTensor = te::DagBuilder::Tensor;

// A stage that copies `t`: a DAG output must be a compute stage, and each output its own.
TeTensor CopyStage(te::DagBuilder& b, const TeTensor& t, const std::string& name) {
  return b.Compute(name, t.shape, [&](const te::DagBuilder::Axes& axes) { return t(axes); });
}

}  // namespace

absl::StatusOr<GroupDag> BuildGroupDag(const graph::Graph& g, const passes::FusedGroup& group) {
  te::DagBuilder b;
  GroupDag result;
  std::map<graph::NodeEntry, TeTensor> tensors;
  std::set<int> placeholder_ids;
  std::set<int> in_group(group.nodes.begin(), group.nodes.end());

  for (int id : group.nodes) {
    const graph::Node& node = g.node(id);
    std::vector<TeTensor> inputs;
    for (const graph::NodeEntry& e : node.inputs) {
      auto it = tensors.find(e);
      if (it == tensors.end()) {
        if (in_group.count(e.node)) {
          return absl::InternalError(StrCat("fused group of '", node.name, "': reads '", g.node(e.node).name,
                                            "' before the group computes it"));
        }
        const graph::Node& producer = g.node(e.node);
        const graph::TensorType& type = g.type(e);
        TeTensor t = b.Placeholder(producer.name, type.dtype, type.shape, producer.IsParam());
        placeholder_ids.insert(t.id);
        result.inputs.push_back(e);
        it = tensors.emplace(e, t).first;
      }
      inputs.push_back(it->second);
    }
    auto outs = graph::ComputeNode(b, node, inputs);
    if (!outs.ok()) return outs.status();
    if (outs->size() != node.outputs.size()) {
      return absl::InternalError(StrCat("node '", node.name, "' (op ", node.op, "): compute gave ", outs->size(),
                                        " outputs, the op has ", node.outputs.size()));
    }
    for (size_t i = 0; i < outs->size(); ++i) tensors[{id, static_cast<int>(i)}] = (*outs)[i];
  }

  std::vector<TeTensor> outputs;
  std::set<int> used;
  for (const graph::NodeEntry& e : group.outputs) {
    TeTensor t = tensors.at(e);
    if (placeholder_ids.count(t.id) || used.count(t.id)) t = CopyStage(b, t, StrCat(g.node(e.node).name, ".copy"));
    used.insert(t.id);
    outputs.push_back(t);
    result.outputs.push_back(e);
  }
  result.dag = b.Build(outputs);
  return result;
}

std::shared_ptr<const te::ComputeDag> CopyDag(const graph::TensorType& type) {
  te::DagBuilder b;
  TeTensor in = b.Placeholder("src", type.dtype, type.shape);
  return b.Build({CopyStage(b, in, "copy")});
}

}  // namespace tunefarm::build
