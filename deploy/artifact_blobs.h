// The blobs a model artifact embeds beside its kernels (docs/model-artifact.md): the plan, the
// parameters, and, in an artifact for a GPU, the PTX kernel library its plan calls. Each blob
// is a symbol with a `<symbol>_size` uint64 beside it.
#ifndef TUNEFARM_DEPLOY_ARTIFACT_BLOBS_H_
#define TUNEFARM_DEPLOY_ARTIFACT_BLOBS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "deploy/kernel_library.h"
#include "deploy/model_plan.h"
#include "deploy/status.h"

namespace tunefarm::deploy {

inline constexpr char kModelPlanSymbol[] = "tunefarm_model_plan";
inline constexpr char kModelParamsSymbol[] = "tunefarm_model_params";
inline constexpr char kModelPtxSymbol[] = "tunefarm_model_ptx";

// Checks the artifact's integrity trailer (before dlopen: a damaged shared object can crash the
// loader itself), then loads it as a kernel library.
Result<std::unique_ptr<KernelLibrary>> LoadArtifactLibrary(const std::string& path);

// The blob's bytes inside the library's mapping, or nullopt when the artifact has none.
std::optional<std::string_view> FindBlob(const KernelLibrary& library, const std::string& symbol);

// The parsed plan (kLoadFailed without one, kBadPlan when it does not parse). Errors start with
// `name`, the artifact's path.
Result<ModelPlan> ReadPlan(const KernelLibrary& library, const std::string& name);

// The parameters, 64-byte aligned and as long as the plan says (null when the plan has none
// and the blob is absent).
Result<const uint8_t*> ReadParams(const KernelLibrary& library, const ModelPlan& plan, const std::string& name);

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_ARTIFACT_BLOBS_H_
