#include "tests/conformance/reference_executor.h"

#include <map>

#include "common/strings.h"
#include "compiler/graph/op_compute.h"
#include "compiler/schedule/default_rules.h"
#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"

namespace tunefarm::conformance {
namespace {

using graph::Node;
using graph::NodeEntry;

absl::Status NodeError(const Node& n, absl::StatusCode code, const std::string& why) {
  return absl::Status(code, StrCat("node '", n.name, "' (op ", n.op, "): ", why));
}

// One operator node as its own kernel: build, schedule, lower, interpret.
absl::StatusOr<std::vector<HostTensor>> RunNode(const Node& n, const std::vector<const HostTensor*>& in) {
  std::vector<HostTensor> outs;
  bool empty_output = false;
  for (const graph::TensorType& t : n.outputs) {
    auto z = HostTensor::Zeros(t.dtype, t.shape);
    if (!z.ok()) return z.status();
    empty_output = empty_output || z->NumElements() == 0;
    outs.push_back(std::move(*z));
  }
  // A zero-sized output has no elements to compute (the op library rejects such tensors).
  if (empty_output) {
    if (n.outputs.size() == 1) return outs;
    return NodeError(n, absl::StatusCode::kUnimplemented, "zero-sized output among several");
  }
  for (const HostTensor* t : in)
    if (t->NumElements() == 0) return NodeError(n, absl::StatusCode::kUnimplemented, "zero-sized input");
  te::DagBuilder b;
  std::vector<graph::TeTensor> placeholders;
  for (size_t i = 0; i < in.size(); ++i)
    placeholders.push_back(b.Placeholder(StrCat(n.name, ".in", i), in[i]->dtype, in[i]->shape));
  auto tensors = graph::ComputeNode(b, n, placeholders);
  if (!tensors.ok()) return tensors.status();
  auto dag = b.Build(*tensors);
  auto state = schedule::ApplyDefaultSchedule(dag, schedule::RuleContext{8, 1});
  if (!state.ok()) return NodeError(n, absl::StatusCode::kInternal, StrCat("schedule: ", std::string(state.status().message())));
  auto f = tir::Lower(*state, "node");
  if (!f.ok()) return NodeError(n, absl::StatusCode::kInternal, StrCat("lower: ", std::string(f.status().message())));
  if (f->num_args != static_cast<int>(in.size() + outs.size()))
    return NodeError(n, absl::StatusCode::kInternal, StrCat("kernel has ", f->num_args, " arguments"));
  std::vector<void*> args;
  for (const HostTensor* t : in) args.push_back(const_cast<uint8_t*>(t->bytes.data()));
  for (HostTensor& t : outs) args.push_back(t.bytes.data());
  if (absl::Status s = tir::Interpret(*f, args); !s.ok())
    return NodeError(n, absl::StatusCode::kInternal, StrCat("interpret: ", std::string(s.message())));
  return outs;
}

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
    auto outs = RunNode(n, in);
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
