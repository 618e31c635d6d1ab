#include "compiler/passes/graph_rewriter.h"

#include "common/check.h"
#include "common/strings.h"

namespace tunefarm::passes {

using graph::NodeEntry;

absl::Status GraphRewriter::Copy(int id) {
  const graph::Node& n = src_.node(id);
  if (n.IsInput()) {
    auto e = dst_.AddInput(n.name, n.outputs[0]);
    if (!e.ok()) return e.status();
    Map({id, 0}, *e);
    return absl::OkStatus();
  }
  if (n.IsParam()) {
    auto e = dst_.AddParam(dst_.UniqueName(n.name), src_.params().at(n.name));
    if (!e.ok()) return e.status();
    Map({id, 0}, *e);
    return absl::OkStatus();
  }
  // A name a pass gave to a new node earlier may collide; inputs keep theirs (callers bind by name).
  auto outs = dst_.AddNode(n.op, dst_.UniqueName(n.name), LookupInputs(id), n.attrs);
  if (!outs.ok()) return outs.status();
  for (size_t i = 0; i < outs->size(); ++i) Map({id, static_cast<int>(i)}, (*outs)[i]);
  return absl::OkStatus();
}

absl::StatusOr<NodeEntry> GraphRewriter::AddParam(const std::string& name, graph::HostTensor value) {
  return dst_.AddParam(dst_.UniqueName(name), std::move(value));
}

absl::StatusOr<NodeEntry> GraphRewriter::AddNode(const std::string& op, const std::string& name,
                                                 std::vector<NodeEntry> inputs, graph::Attrs attrs) {
  auto outs = dst_.AddNode(op, dst_.UniqueName(name), std::move(inputs), std::move(attrs));
  if (!outs.ok()) return outs.status();
  return (*outs)[0];
}

NodeEntry GraphRewriter::Lookup(NodeEntry e) const {
  auto it = map_.find(e);
  TF_CHECK(it != map_.end(), "a rewritten node reads a value that was not rewritten yet");
  return it->second;
}

std::vector<NodeEntry> GraphRewriter::LookupInputs(int id) const {
  std::vector<NodeEntry> inputs;
  for (NodeEntry e : src_.node(id).inputs) inputs.push_back(Lookup(e));
  return inputs;
}

const graph::HostTensor* GraphRewriter::ParamData(NodeEntry e) const {
  const graph::Node& n = dst_.node(e.node);
  if (!n.IsParam()) return nullptr;
  return &dst_.params().at(n.name);
}

absl::StatusOr<graph::Graph> GraphRewriter::Finish() {
  for (size_t i = 0; i < src_.outputs().size(); ++i) {
    NodeEntry e = src_.outputs()[i];
    if (!IsMapped(e))
      return absl::InternalError(StrCat("graph output '", src_.output_names()[i], "' was dropped by a rewrite"));
    dst_.AddOutput(src_.output_names()[i], Lookup(e));
  }
  if (absl::Status s = dst_.Verify(); !s.ok()) return s;
  return std::move(dst_);
}

int ValueUses::NumConsumers(NodeEntry e) const {
  auto it = consumers.find(e);
  return it == consumers.end() ? 0 : static_cast<int>(it->second.size());
}

ValueUses ComputeUses(const graph::Graph& g) {
  ValueUses uses;
  for (size_t i = 0; i < g.nodes().size(); ++i) {
    const graph::Node& n = g.node(static_cast<int>(i));
    for (NodeEntry e : n.inputs) {
      std::vector<int>& c = uses.consumers[e];
      if (c.empty() || c.back() != static_cast<int>(i)) c.push_back(static_cast<int>(i));
    }
  }
  for (NodeEntry e : g.outputs()) uses.is_output[e] = true;
  return uses;
}

std::string OpCountsString(const graph::Graph& g) {
  std::vector<std::string> parts;
  for (const auto& [op, count] : g.OpCounts()) parts.push_back(StrCat(op, "=", count));
  return StrJoin(parts, " ");
}

}  // namespace tunefarm::passes
