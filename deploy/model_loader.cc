#include "deploy/model_loader.h"

#include <cstdlib>

#include "deploy/artifact_blobs.h"
#include "deploy/gpu_model_executor.h"
#include "deploy/model_executor.h"

namespace tunefarm::deploy {

Result<std::unique_ptr<ModelRunner>> LoadModel(const std::string& path, int32_t num_threads) {
  Result<std::unique_ptr<KernelLibrary>> library = LoadArtifactLibrary(path);
  if (!library.ok()) return library.status();
  if (!FindBlob(**library, kModelPtxSymbol).has_value()) {
    Result<std::unique_ptr<ModelExecutor>> cpu = ModelExecutor::FromLibrary(path, std::move(library).value(), num_threads);
    if (!cpu.ok()) return cpu.status();
    return std::unique_ptr<ModelRunner>(std::move(cpu).value());
  }
  GpuOptions options;
  if (const char* driver = std::getenv("TUNEFARM_CUDA_DRIVER"); driver != nullptr && *driver != '\0') {
    options.driver = driver;
  }
  if (const char* device = std::getenv("TUNEFARM_CUDA_DEVICE"); device != nullptr && *device != '\0') {
    char* end = nullptr;
    options.device = static_cast<int>(std::strtol(device, &end, 10));
    if (*end != '\0' || options.device < 0) {
      return Status(StatusCode::kInvalidArgument,
                    std::string("TUNEFARM_CUDA_DEVICE=") + device + ": expected a device ordinal (0, 1, ...)");
    }
  }
  Result<std::unique_ptr<GpuModelExecutor>> gpu = GpuModelExecutor::FromLibrary(path, std::move(library).value(), options);
  if (!gpu.ok()) return gpu.status();
  return std::unique_ptr<ModelRunner>(std::move(gpu).value());
}

}  // namespace tunefarm::deploy
