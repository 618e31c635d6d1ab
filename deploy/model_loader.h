// Loads a model artifact onto the device its kernels are for: an artifact of CPU kernels runs on
// this host (ModelExecutor, `num_threads` threads), one built for a CUDA GPU (it embeds PTX) on
// the GPU (GpuModelExecutor). The GPU is device $TUNEFARM_CUDA_DEVICE (default 0) through the
// driver library $TUNEFARM_CUDA_DRIVER (default libcuda.so.1).
#ifndef TUNEFARM_DEPLOY_MODEL_LOADER_H_
#define TUNEFARM_DEPLOY_MODEL_LOADER_H_

#include <memory>
#include <string>

#include "deploy/model_runner.h"
#include "deploy/status.h"

namespace tunefarm::deploy {

Result<std::unique_ptr<ModelRunner>> LoadModel(const std::string& path, int32_t num_threads);

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_MODEL_LOADER_H_
