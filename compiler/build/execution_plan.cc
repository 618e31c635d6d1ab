#include "compiler/build/execution_plan.h"

#include <map>
#include <set>

#include "compiler/build/group_dag.h"
#include "common/strings.h"
#include "compiler/passes/graph_rewriter.h"

namespace tunefarm::build {
namespace {

using graph::NodeEntry;

constexpr int64_t kAlignment = 64;

int64_t AlignUp(int64_t v) { return (v + kAlignment - 1) / kAlignment * kAlignment; }

int64_t TypeBytes(const graph::TensorType& t) { return t.NumElements() * te::DTypeBytes(t.dtype); }

// Values a group's nodes read that the group does not produce, in first-read order.
std::vector<NodeEntry> ExternalInputs(const graph::Graph& g, const passes::FusedGroup& group) {
  std::set<int> members(group.nodes.begin(), group.nodes.end());
  std::vector<NodeEntry> out;
  std::set<NodeEntry> seen;
  for (int id : group.nodes) {
    for (const NodeEntry& e : g.node(id).inputs) {
      if (!members.count(e.node) && seen.insert(e).second) out.push_back(e);
    }
  }
  return out;
}

class Planner {
 public:
  Planner(const graph::Graph& g, passes::FusionPlan fusion)
      : g_(g), groups_(std::move(fusion.groups)), uses_(passes::ComputeUses(g)) {}

  absl::StatusOr<ExecutionPlan> Run() {
    DecideViews();
    for (const graph::Node& node : g_.nodes()) {
      if (!node.IsInput()) continue;
      int id = AddValue(node.name, node.outputs[0], ValueSpace::kArena);
      value_of_[{IndexOf(node), 0}] = id;
      graph_inputs_.insert(id);
      plan_.inputs.push_back(id);
    }
    for (const passes::FusedGroup& group : groups_) {
      absl::Status s = group.is_view              ? PlanView(group)
                       : ConcatsInPlace(group) ? PlanConcatInPlace(group)
                                               : PlanKernel(group);
      if (!s.ok()) return s;
    }
    for (size_t i = 0; i < g_.outputs().size(); ++i) {
      absl::Status s = PlanOutput(g_.output_names()[i], g_.outputs()[i]);
      if (!s.ok()) return s;
    }
    // Every output empty: nothing to call, but a kernel library holds at least one kernel
    // (codegen refuses an empty module), so the artifact carries one tiny copy never called.
    if (plan_.tasks.empty()) {
      TaskFor(CopyDag(graph::TensorType{te::DType::kFloat32, {1}}));
      plan_.tasks[0].weight = 0;
    }
    return PlaceValues();
  }

 private:
  int IndexOf(const graph::Node& node) const { return static_cast<int>(&node - g_.nodes().data()); }

  // The value a view's bytes come from: follow view groups back to a non-view producer.
  NodeEntry Root(NodeEntry e) const {
    for (auto it = view_source_.find(e); it != view_source_.end(); it = view_source_.find(e)) e = it->second;
    return e;
  }

  // Keeps a view group a view only where that is safe: same byte size, not a graph output, and
  // no kernel reads the same bytes through two different arguments (kernel args never alias).
  void DecideViews() {
    std::set<NodeEntry> graph_outputs(g_.outputs().begin(), g_.outputs().end());
    for (passes::FusedGroup& group : groups_) {
      if (!group.is_view) continue;
      const graph::Node& node = g_.node(group.anchor);
      NodeEntry out{group.anchor, 0};
      if (graph_outputs.count(out) || node.inputs.empty() || TypeBytes(g_.type(node.inputs[0])) != TypeBytes(g_.type(out))) {
        group.is_view = false;
      }
    }
    for (bool changed = true; changed;) {
      changed = false;
      view_source_.clear();
      std::map<NodeEntry, size_t> view_group_of;
      for (size_t i = 0; i < groups_.size(); ++i) {
        if (!groups_[i].is_view) continue;
        view_source_[{groups_[i].anchor, 0}] = g_.node(groups_[i].anchor).inputs[0];
        view_group_of[{groups_[i].anchor, 0}] = i;
      }
      for (const passes::FusedGroup& group : groups_) {
        if (group.is_view) continue;
        std::map<NodeEntry, NodeEntry> first_by_root;
        for (const NodeEntry& e : ExternalInputs(g_, group)) {
          auto [it, inserted] = first_by_root.emplace(Root(e), e);
          if (inserted) continue;
          for (const NodeEntry& alias : {it->second, e}) {
            auto v = view_group_of.find(alias);
            if (v != view_group_of.end()) {
              groups_[v->second].is_view = false;
              changed = true;
            }
          }
        }
      }
    }
  }

  int AddValue(std::string name, graph::TensorType type, ValueSpace space) {
    PlanValue v;
    v.name = std::move(name);
    v.type = std::move(type);
    v.space = space;
    plan_.values.push_back(std::move(v));
    return static_cast<int>(plan_.values.size()) - 1;
  }

  // The value holding `e`; parameters enter the blob the first time something reads them.
  absl::StatusOr<int> ValueOf(NodeEntry e) {
    auto it = value_of_.find(e);
    if (it != value_of_.end()) return it->second;
    const graph::Node& producer = g_.node(e.node);
    if (!producer.IsParam()) {
      return absl::InternalError(StrCat("value '", producer.name, "' is read before any kernel produces it"));
    }
    const auto& params = g_.params();
    auto p = params.find(producer.name);
    if (p == params.end()) return absl::InternalError(StrCat("param '", producer.name, "' has no data"));
    int id = AddValue(producer.name, producer.outputs[0], ValueSpace::kParam);
    plan_.params.resize(AlignUp(static_cast<int64_t>(plan_.params.size())), '\0');
    plan_.values[id].offset = static_cast<int64_t>(plan_.params.size());
    plan_.params.append(reinterpret_cast<const char*>(p->second.bytes.data()), p->second.bytes.size());
    value_of_[e] = id;
    return id;
  }

  absl::Status PlanView(const passes::FusedGroup& group) {
    const graph::Node& node = g_.node(group.anchor);
    auto src = ValueOf(node.inputs[0]);
    if (!src.ok()) return src.status();
    int root = plan_.values[*src].alias_of >= 0 ? plan_.values[*src].alias_of : *src;
    int id = AddValue(node.name, node.outputs[0], plan_.values[root].space);
    plan_.values[id].alias_of = root;
    plan_.values[id].offset = plan_.values[root].offset;
    value_of_[{group.anchor, 0}] = id;
    return absl::OkStatus();
  }

  // A concat whose parts only it reads, each written by a kernel, is computed in place: each
  // part's producer writes straight into its range of the result, and the concat is no call
  // (squeezenet's fire modules copied 8 concats' worth of activations, 10% of the model). Only
  // where every part is one contiguous range of the result (every dim before the axis is 1: a
  // channel concat of one image, NCHW or NCHW[x]c) starting 64-byte aligned.
  bool ConcatsInPlace(const passes::FusedGroup& group) const {
    if (group.nodes.size() != 1) return false;
    const graph::Node& n = g_.node(group.nodes[0]);
    if (n.op != "Concat" || n.inputs.size() < 2 || n.outputs.size() != 1) return false;
    const std::vector<int64_t>& shape = n.outputs[0].shape;
    int64_t axis = n.attrs.GetInt("axis");
    if (axis < 0) axis += static_cast<int64_t>(shape.size());
    for (int64_t d = 0; d < axis; ++d)
      if (shape[d] != 1) return false;
    std::set<int> parts;
    int64_t offset = 0;
    for (const NodeEntry& e : n.inputs) {
      auto it = value_of_.find(e);
      if (it == value_of_.end() || !parts.insert(it->second).second) return false;
      const PlanValue& part = plan_.values[it->second];
      if (part.space != ValueSpace::kArena || part.alias_of >= 0 || graph_inputs_.count(it->second)) return false;
      if (uses_.NumConsumers(e) != 1 || uses_.IsOutput(e) || offset % kAlignment != 0) return false;
      offset += TypeBytes(part.type);
    }
    return true;
  }

  absl::Status PlanConcatInPlace(const passes::FusedGroup& group) {
    const graph::Node& n = g_.node(group.nodes[0]);
    const int id = AddValue(n.name, n.outputs[0], ValueSpace::kArena);
    int64_t offset = 0;
    for (const NodeEntry& e : n.inputs) {
      PlanValue& part = plan_.values[value_of_.at(e)];
      part.alias_of = id;
      part.alias_offset = offset;
      offset += TypeBytes(part.type);
    }
    value_of_[{group.nodes[0], 0}] = id;
    return absl::OkStatus();
  }

  int TaskFor(std::shared_ptr<const te::ComputeDag> dag) {
    auto [it, inserted] = task_by_key_.emplace(dag->WorkloadKey(), static_cast<int>(plan_.tasks.size()));
    if (inserted) {
      Task t;
      t.kernel_name = StrCat("tf_k", plan_.tasks.size());
      t.dag = std::move(dag);
      plan_.tasks.push_back(std::move(t));
    }
    plan_.tasks[it->second].weight++;
    return it->second;
  }

  // Zero-sized tensors: the op library rejects them, and a group whose outputs are all empty
  // has nothing to compute, so it costs no kernel (its values take no bytes). A group that
  // mixes empty and non-empty tensors would need each op's empty-input rule: Unimplemented.
  absl::StatusOr<bool> AllOutputsEmpty(const passes::FusedGroup& group) const {
    bool any_empty = false, all_out_empty = !group.outputs.empty();
    for (int id : group.nodes) {
      const graph::Node& node = g_.node(id);
      for (const graph::TensorType& t : node.outputs) any_empty = any_empty || t.NumElements() == 0;
      for (const NodeEntry& e : node.inputs) any_empty = any_empty || g_.type(e).NumElements() == 0;
    }
    for (const NodeEntry& e : group.outputs) all_out_empty = all_out_empty && g_.type(e).NumElements() == 0;
    if (all_out_empty || !any_empty) return all_out_empty;
    const graph::Node& anchor = g_.node(group.anchor);
    return absl::UnimplementedError(StrCat("node '", anchor.name, "' (op ", anchor.op,
                                           "): a zero-sized tensor in a kernel with non-empty outputs"));
  }

  absl::Status PlanKernel(const passes::FusedGroup& group) {
    auto empty = AllOutputsEmpty(group);
    if (!empty.ok()) return empty.status();
    if (*empty) {
      for (const NodeEntry& e : group.outputs) {
        const graph::Node& node = g_.node(e.node);
        value_of_[e] = AddValue(e.index == 0 ? node.name : StrCat(node.name, ":", e.index), g_.type(e), ValueSpace::kArena);
      }
      return absl::OkStatus();
    }
    auto gd = BuildGroupDag(g_, group);
    if (!gd.ok()) return gd.status();
    KernelCall call;
    call.group = g_.node(group.anchor).name;
    for (int id : group.nodes) call.ops.push_back(g_.node(id).op);
    for (const NodeEntry& e : gd->inputs) {
      auto v = ValueOf(e);
      if (!v.ok()) return v.status();
      call.args.push_back(*v);
    }
    call.num_inputs = static_cast<int>(call.args.size());
    for (const NodeEntry& e : gd->outputs) {
      const graph::Node& node = g_.node(e.node);
      std::string name = e.index == 0 ? node.name : StrCat(node.name, ":", e.index);
      int id = AddValue(name, g_.type(e), ValueSpace::kArena);
      value_of_[e] = id;
      call.args.push_back(id);
    }
    call.task = TaskFor(gd->dag);
    plan_.calls.push_back(std::move(call));
    return absl::OkStatus();
  }

  // A graph output gets its own arena value; one that is an input, a parameter, a view or an
  // earlier output is copied there by a small kernel.
  absl::Status PlanOutput(const std::string& name, NodeEntry e) {
    auto v = ValueOf(e);
    if (!v.ok()) return v.status();
    const PlanValue& value = plan_.values[*v];
    bool owned = value.space == ValueSpace::kArena && value.alias_of < 0 && !graph_inputs_.count(*v) &&
                 !graph_outputs_.count(*v);
    int id = *v;
    if (!owned && TypeBytes(value.type) == 0) {
      id = AddValue(name, value.type, ValueSpace::kArena);  // nothing to copy
    } else if (!owned) {
      id = AddValue(name, value.type, ValueSpace::kArena);
      KernelCall call;
      call.group = name;
      call.ops = {"Copy"};
      call.args = {*v, id};
      call.num_inputs = 1;
      call.task = TaskFor(CopyDag(value.type));
      plan_.calls.push_back(std::move(call));
    }
    plan_.values[id].name = name;
    graph_outputs_.insert(id);
    plan_.outputs.push_back(id);
    plan_.output_names.push_back(name);
    return absl::OkStatus();
  }

  absl::StatusOr<ExecutionPlan> PlaceValues() {
    std::vector<passes::PlanValue> values;
    for (size_t i = 0; i < plan_.values.size(); ++i) {
      const PlanValue& v = plan_.values[i];
      passes::PlanValue pv;
      pv.bytes = TypeBytes(v.type);
      pv.external = v.space == ValueSpace::kParam;
      pv.pinned = graph_inputs_.count(static_cast<int>(i)) || graph_outputs_.count(static_cast<int>(i));
      pv.alias_of = pv.external ? -1 : v.alias_of;
      pv.alias_offset = pv.external ? 0 : v.alias_offset;
      values.push_back(pv);
    }
    std::vector<passes::PlanCall> calls;
    for (const KernelCall& c : plan_.calls) calls.push_back(passes::PlanCall{c.args});
    auto memory = passes::PlanMemory(values, calls);
    if (!memory.ok()) return memory.status();
    for (size_t i = 0; i < plan_.values.size(); ++i) {
      if (plan_.values[i].space == ValueSpace::kArena) plan_.values[i].offset = memory->offsets[i];
    }
    plan_.memory = std::move(*memory);
    return std::move(plan_);
  }

  const graph::Graph& g_;
  std::vector<passes::FusedGroup> groups_;
  const passes::ValueUses uses_;
  ExecutionPlan plan_;
  std::map<NodeEntry, int> value_of_;
  std::map<NodeEntry, NodeEntry> view_source_;
  std::map<std::string, int> task_by_key_;
  std::set<int> graph_inputs_, graph_outputs_;
};

}  // namespace

absl::StatusOr<ExecutionPlan> PlanExecution(const graph::Graph& g, const passes::FusionPlan& fusion) {
  return Planner(g, fusion).Run();
}

}  // namespace tunefarm::build
