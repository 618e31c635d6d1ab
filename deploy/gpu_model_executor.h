// Runs a model artifact built for a CUDA GPU (`tunefarm compile --target "cuda -arch=sm_90"`):
// a host shared object that embeds the plan, the parameters and the PTX library whose entries
// the plan calls (docs/model-artifact.md). At load it checks the plan against the PTX's
// metadata, opens the GPU, JIT-loads the PTX, binds every call's launches against the device's
// limits, uploads the parameters and allocates the arena and workspace in GPU memory, so that
// Run only queues launches and waits for them.
//
// A kernel that faults loses the CUDA context for this process: that run fails naming the
// call and the driver's error, and so does every later call on this executor.
#ifndef TUNEFARM_DEPLOY_GPU_MODEL_EXECUTOR_H_
#define TUNEFARM_DEPLOY_GPU_MODEL_EXECUTOR_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "deploy/cuda_device.h"
#include "deploy/kernel_library.h"
#include "deploy/model_runner.h"

namespace tunefarm::deploy {

struct GpuOptions {
  std::string driver = "libcuda.so.1";  // the CUDA driver library
  int device = 0;                       // the GPU's ordinal
};

class GpuModelExecutor final : public ModelRunner {
 public:
  static Result<std::unique_ptr<GpuModelExecutor>> Load(const std::string& path, const GpuOptions& options);
  // The same with the artifact at `path` already checked and loaded (LoadArtifactLibrary).
  static Result<std::unique_ptr<GpuModelExecutor>> FromLibrary(const std::string& path,
                                                               std::unique_ptr<KernelLibrary> library,
                                                               const GpuOptions& options);
  ~GpuModelExecutor() override;

  const ModelPlan& plan() const override { return plan_; }
  Status SetInput(size_t index, const void* data, size_t bytes) override;
  // The times, with `seconds`, are each call's GPU time between CUDA events.
  Status RunTimed(std::vector<double>* seconds) override;
  Status GetOutput(size_t index, void* data, size_t bytes) const override;

 private:
  GpuModelExecutor() = default;
  Status Prepare(const std::string& path, std::unique_ptr<KernelLibrary> library, const GpuOptions& options);
  Status BindCalls(const KernelMetadata& metadata);
  cuda::CUdeviceptr ValueAddress(int32_t id) const;
  // Remembers a failure that lost the context: every later call reports it.
  Status Keep(Status status) const;

  struct BoundCall {
    const cuda::EntryLaunches* launches = nullptr;
    std::vector<cuda::CUdeviceptr> args;
    cuda::CUdeviceptr workspace = 0;
  };

  std::string name_;
  std::unique_ptr<KernelLibrary> library_;  // the host object holding the blobs
  ModelPlan plan_;
  std::unique_ptr<cuda::Context> context_;
  std::unique_ptr<cuda::Module> module_;
  std::map<std::string, std::unique_ptr<cuda::EntryLaunches>> entries_;
  cuda::DeviceBuffer arena_, params_, workspace_;
  std::vector<BoundCall> calls_;
  mutable std::mutex mutex_;
  mutable Status lost_;
};

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_GPU_MODEL_EXECUTOR_H_
