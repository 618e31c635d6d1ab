// Task extraction: the kernels of a model the tuner works on. A task is one compute DAG (one
// workload key) and its weight, the number of calls that run it in the model, so a kernel
// called twelve times matters twelve times as much as one called once.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/build/model_builder.h"
#include "compiler/te/compute_dag.h"
#include "db/tuning_database.h"

namespace tunefarm::tuner {

struct TuningTask {
  std::shared_ptr<const te::ComputeDag> dag;
  std::string workload_key;
  double weight = 1;
};

// The tasks of an imported graph, as the compiler would build them for `options` (target and
// threads shape the graph passes, e.g. the NCHWc layout).
absl::StatusOr<std::vector<TuningTask>> ExtractTasks(const graph::Graph& graph,
                                                     const build::BuildOptions& options);

// Imports MODEL.onnx, with `binds` ("NAME=FILE", as --bind takes them) fixing graph inputs at
// compile time, and extracts its tasks.
absl::StatusOr<std::vector<TuningTask>> ExtractTasksFromModel(const std::string& model_path,
                                                              const std::vector<std::string>& binds,
                                                              const build::BuildOptions& options);

// A task from its workload key and (optionally) its canonical DAG text. Without the text the
// database must hold it (RegisterWorkload); the key must match the text's own key.
absl::StatusOr<TuningTask> TaskFromKey(const std::string& workload_key, const std::string& dag_text,
                                       double weight, db::TuningDatabase* database);

}  // namespace tunefarm::tuner
