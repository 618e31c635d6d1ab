// The fused graph as the runtime will execute it: every tensor the runtime touches (a value in
// the arena or in the parameter blob), the kernel calls in order, and the tasks (one compute
// DAG per distinct workload; groups with equal DAGs share a kernel). Planning needs no code
// generation, so `tunefarm inspect model.onnx` shows all of it in a fraction of a second.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"
#include "compiler/passes/fusion.h"
#include "compiler/passes/memory_plan.h"
#include "compiler/te/compute_dag.h"

namespace tunefarm::build {

enum class ValueSpace { kArena, kParam };

struct PlanValue {
  std::string name;
  graph::TensorType type;
  ValueSpace space = ValueSpace::kArena;
  int64_t offset = 0;  // bytes into the arena or the parameter blob
  int alias_of = -1;   // a view: the value whose bytes it shares
  int64_t alias_offset = 0;  // where its bytes start in alias_of's: a part of a concat computed in place
};

struct Task {
  std::shared_ptr<const te::ComputeDag> dag;
  std::string kernel_name;  // "tf_k<index>"
  int weight = 0;           // calls that run this kernel
  std::string schedule;     // "default" or the ScheduleSource's origin; set when kernels are built
};

struct KernelCall {
  int task = -1;
  std::vector<int> args;  // value ids: the kernel's inputs, then its outputs
  int num_inputs = 0;
  std::string group;              // the anchor node's name
  std::vector<std::string> ops;   // the fused ops, in order ("Copy" for an output copy)
};

struct ExecutionPlan {
  std::vector<PlanValue> values;
  std::vector<int> inputs, outputs;  // value ids, in the graph's order
  std::vector<std::string> output_names;
  std::vector<KernelCall> calls;
  std::vector<Task> tasks;
  std::string params;  // the parameter blob; every parameter at a 64-byte-aligned offset
  passes::MemoryPlan memory;
};

// `fusion` must be FuseOps(g). View groups become aliases unless a kernel would then see the
// same bytes through two arguments, or the view is a graph output; then they are kernels.
absl::StatusOr<ExecutionPlan> PlanExecution(const graph::Graph& g, const passes::FusionPlan& fusion);

}  // namespace tunefarm::build
