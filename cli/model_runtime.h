// The commands' view of a compiled model: the deploy runtime's C API (deploy/tunefarm_runtime.h)
// behind a small RAII class with Status errors, so `run` and `bench` exercise exactly what a
// device program calls.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/frontend/tensor_file.h"

struct tunefarm_model;

namespace tunefarm::cli {

struct TensorInfo {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  size_t bytes = 0;
};

std::string ShapeText(const std::vector<int64_t>& shape);  // "[1,3,224,224]"

// One kernel call of the model's plan.
struct CallInfo {
  std::string kernel, group, ops;
};

class LoadedModel {
 public:
  // threads 0: what the model was compiled for.
  static absl::StatusOr<std::unique_ptr<LoadedModel>> Load(const std::string& path, int threads);
  ~LoadedModel();

  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }
  // Checks the file's dtype and shape (when it has them) and byte count against the input.
  absl::Status SetInput(int index, const frontend::TensorFile& file);
  absl::Status Run();
  // The plan's calls in run order, and a run that returns each call's wall time in seconds.
  const std::vector<CallInfo>& calls() const { return calls_; }
  absl::StatusOr<std::vector<double>> RunProfiled();
  absl::StatusOr<std::string> GetOutput(int index) const;

 private:
  explicit LoadedModel(tunefarm_model* model) : model_(model) {}
  tunefarm_model* model_;
  std::vector<TensorInfo> inputs_, outputs_;
  std::vector<CallInfo> calls_;
};

// Deterministic inputs: floats in [-1, 1), integers 0 or 1 (a model's integer inputs are
// usually indices); input i from seed + i.
absl::Status SetPseudoRandomInputs(LoadedModel& model, uint64_t seed);

// Each call's median wall time over `runs` profiled runs, in call order.
absl::StatusOr<std::vector<double>> CallMedians(LoadedModel& model, int64_t runs);

double Median(std::vector<double> v);

}  // namespace tunefarm::cli
