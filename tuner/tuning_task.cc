#include "tuner/tuning_task.h"

#include "common/strings.h"
#include "compiler/frontend/bound_input.h"
#include "compiler/frontend/onnx_importer.h"

namespace tunefarm::tuner {

absl::StatusOr<std::vector<TuningTask>> ExtractTasks(const graph::Graph& graph,
                                                     const build::BuildOptions& options) {
  auto plan = build::PlanModel(graph, options);
  if (!plan.ok()) return plan.status();
  std::vector<TuningTask> tasks;
  for (const build::Task& t : plan->exec.tasks) {
    tasks.push_back({t.dag, t.dag->WorkloadKey(), static_cast<double>(t.weight)});
  }
  return tasks;
}

absl::StatusOr<std::vector<TuningTask>> ExtractTasksFromModel(const std::string& model_path,
                                                              const std::vector<std::string>& binds,
                                                              const build::BuildOptions& options) {
  frontend::ImportOptions import;
  import.strict_input_shapes = true;  // the bindings are the user's: check them against the model
  if (absl::Status s = frontend::ReadBoundInputs(binds, &import); !s.ok()) return s;
  auto graph = frontend::ImportOnnxFile(model_path, import);
  if (!graph.ok()) {
    const std::string message(graph.status().message());  // the importer's errors name the file
    if (message.find(model_path) != std::string::npos) return graph.status();
    return absl::Status(graph.status().code(), StrCat(model_path, ": ", message));
  }
  return ExtractTasks(*graph, options);
}

absl::StatusOr<TuningTask> TaskFromKey(const std::string& workload_key, const std::string& dag_text,
                                       double weight, db::TuningDatabase* database) {
  std::string text = dag_text;
  if (text.empty()) {
    auto stored = database->WorkloadDagText(workload_key);
    if (!stored.ok()) return stored.status();
    if (stored->empty()) {
      return absl::NotFoundError(StrCat("workload ", workload_key,
                                        ": the database has no DAG text for it (tune its model instead)"));
    }
    text = *stored;
  }
  auto dag = te::ComputeDag::Parse(text);
  if (!dag.ok()) {
    return absl::InvalidArgumentError(StrCat("workload ", workload_key, ": bad DAG text: ",
                                             std::string(dag.status().message())));
  }
  if ((*dag)->WorkloadKey() != workload_key) {
    return absl::InvalidArgumentError(StrCat("workload ", workload_key, ": the DAG text's key is ",
                                             (*dag)->WorkloadKey()));
  }
  return TuningTask{*dag, workload_key, weight};
}

}  // namespace tunefarm::tuner
