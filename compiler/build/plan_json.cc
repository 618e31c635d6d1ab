// The plan JSON of docs/model-artifact.md. nlohmann's objects keep keys sorted, so the same
// plan prints the same bytes in every process (the artifact is reproducible).
#include <nlohmann/json.hpp>

#include "compiler/build/model_builder.h"

namespace tunefarm::build {

std::string PlanToJson(const ModelPlan& plan, const BuildOptions& options) {
  const ExecutionPlan& exec = plan.exec;
  nlohmann::json values = nlohmann::json::array();
  for (const PlanValue& v : exec.values) {
    values.push_back({{"name", v.name},
                      {"dtype", std::string(te::DTypeName(v.type.dtype))},
                      {"shape", v.type.shape},
                      {"space", v.space == ValueSpace::kArena ? "arena" : "param"},
                      {"offset", v.offset}});
  }
  nlohmann::json calls = nlohmann::json::array();
  for (const KernelCall& c : exec.calls) {
    const Task& task = exec.tasks[c.task];
    calls.push_back({{"kernel", task.kernel_name},
                     {"args", c.args},
                     {"num_inputs", c.num_inputs},
                     {"group", c.group},
                     {"ops", c.ops},
                     {"workload", task.dag->WorkloadKey()},
                     {"schedule", task.schedule.empty() ? "default" : task.schedule}});
  }
  nlohmann::json j = {{"format", 1},
                      {"target", options.target.ToString()},
                      {"threads", options.threads},
                      {"arena_bytes", exec.memory.arena_bytes},
                      {"peak_live_bytes", exec.memory.peak_live_bytes},
                      {"naive_bytes", exec.memory.naive_bytes},
                      {"params_bytes", static_cast<int64_t>(exec.params.size())},
                      {"values", std::move(values)},
                      {"inputs", exec.inputs},
                      {"outputs", exec.outputs},
                      {"calls", std::move(calls)}};
  return j.dump();
}

}  // namespace tunefarm::build
