// Runs a model artifact (docs/model-artifact.md): a kernel library that also embeds the plan
// (`tunefarm_model_plan`) and the parameters (`tunefarm_model_params`).
//
//   auto model = ModelExecutor::Load("model.so", /*num_threads=*/4);
//   if (!model.ok()) return model.status();
//   (*model)->SetInput(0, image, image_bytes);
//   (*model)->Run();
//   (*model)->GetOutput(0, logits, logits_bytes);
//
// Everything is checked and allocated at load (the plan against the kernels' metadata, the
// arena, the largest workspace, every call's argument pointers), so Run only calls kernels.
#ifndef TUNEFARM_DEPLOY_MODEL_EXECUTOR_H_
#define TUNEFARM_DEPLOY_MODEL_EXECUTOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "deploy/aligned_buffer.h"
#include "deploy/kernel_library.h"
#include "deploy/model_plan.h"
#include "deploy/model_runner.h"
#include "deploy/status.h"
#include "deploy/thread_pool.h"

namespace tunefarm::deploy {

class ModelExecutor final : public ModelRunner {
 public:
  // Loads the artifact at `path` (as KernelLibrary::Load) and prepares it to run on a pool of
  // `num_threads` threads; 0 takes the plan's "threads", or the machine's core count when the
  // plan gives none. Every error names the file and, for a plan error (kBadPlan), the value or
  // call at fault.
  static Result<std::unique_ptr<ModelExecutor>> Load(const std::string& path, int32_t num_threads);
  // The same with the artifact at `path` already checked and loaded (LoadArtifactLibrary).
  static Result<std::unique_ptr<ModelExecutor>> FromLibrary(const std::string& path,
                                                            std::unique_ptr<KernelLibrary> library,
                                                            int32_t num_threads);

  ModelExecutor(const ModelExecutor&) = delete;
  ModelExecutor& operator=(const ModelExecutor&) = delete;
  ~ModelExecutor() override;

  const ModelPlan& plan() const override { return plan_; }
  int32_t num_threads() const { return pool_->num_threads(); }

  Status SetInput(size_t index, const void* data, size_t bytes) override;
  // A kernel's non-zero return stops the run with kKernelError naming the call and the code;
  // the times are wall times.
  Status RunTimed(std::vector<double>* seconds) override;
  Status GetOutput(size_t index, void* data, size_t bytes) const override;

  // For diagnosing where a call's time goes (bench/models/call_context_bench): runs plan call
  // `call` alone on what the arena holds now, and names the bytes its arguments occupy.
  Status RunCall(size_t call);
  struct ArgBytes {
    const void* data;
    size_t bytes;
  };
  std::vector<ArgBytes> CallArgBytes(size_t call) const;

 private:
  // Calls plan call `c` (the caller holds mutex_ and binds the pool); a non-zero return is a
  // KernelError naming the call.
  Status InvokeCall(size_t c);

  // One plan call, resolved at load.
  struct BoundCall {
    tunefarm_kernel_fn fn = nullptr;
    std::vector<void*> args;
    void* workspace = nullptr;
  };

  ModelExecutor() = default;
  Status Prepare(const std::string& path, std::unique_ptr<KernelLibrary> library, int32_t num_threads);
  Status FindPlanAndParams();
  Status BindCalls();
  uint8_t* ValueData(int32_t id);
  const uint8_t* ValueData(int32_t id) const;
  Status Error(StatusCode code, const std::string& what) const;

  std::string name_;
  // Declared before library_, so destroyed after it: the library holds a pointer to it.
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<KernelLibrary> library_;
  ModelPlan plan_;
  const uint8_t* params_ = nullptr;  // read-only, inside the library's mapping
  AlignedBuffer arena_;
  AlignedBuffer workspace_;  // the largest any called kernel needs, shared by all calls
  std::vector<BoundCall> calls_;
  mutable std::mutex mutex_;  // one run (or input/output copy) at a time: they share the arena
};

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_MODEL_EXECUTOR_H_
