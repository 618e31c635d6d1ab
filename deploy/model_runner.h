// What runs a model artifact, whichever device its kernels are for: ModelExecutor on this
// host's CPU (the kernels are in the artifact), GpuModelExecutor on a CUDA GPU (the artifact
// embeds the PTX its plan launches). LoadModel (model_loader.h) picks one from the artifact.
#ifndef TUNEFARM_DEPLOY_MODEL_RUNNER_H_
#define TUNEFARM_DEPLOY_MODEL_RUNNER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "deploy/model_plan.h"
#include "deploy/status.h"

namespace tunefarm::deploy {

class ModelRunner {
 public:
  virtual ~ModelRunner() = default;

  virtual const ModelPlan& plan() const = 0;
  const PlanValue& input(size_t index) const { return plan().values[plan().inputs[index]]; }
  const PlanValue& output(size_t index) const { return plan().values[plan().outputs[index]]; }

  // Copies `bytes` bytes (exactly the input's size) into input `index`. An input keeps its
  // value across runs.
  virtual Status SetInput(size_t index, const void* data, size_t bytes) = 0;
  // Runs every call of the plan in order. A kernel's failure stops the run with kKernelError
  // naming the call.
  Status Run() { return RunTimed(nullptr); }
  // Run, also storing call c's time in seconds in (*seconds)[c] (resized to the call count);
  // null: no timing.
  virtual Status RunTimed(std::vector<double>* seconds) = 0;
  // Copies output `index` (exactly `bytes` bytes, its size) as the last run left it.
  virtual Status GetOutput(size_t index, void* data, size_t bytes) const = 0;

 protected:
  // kInvalidArgument for an index out of range, a byte count other than the value's, or null
  // data; errors start with `name` (the artifact's path).
  Status CheckInput(const std::string& name, size_t index, const void* data, size_t bytes) const;
  Status CheckOutput(const std::string& name, size_t index, const void* data, size_t bytes) const;
};

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_MODEL_RUNNER_H_
