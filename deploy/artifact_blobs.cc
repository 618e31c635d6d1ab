#include "deploy/artifact_blobs.h"

#include "deploy/artifact_checksum.h"
#include "deploy/tunefarm_abi.h"

namespace tunefarm::deploy {

Result<std::unique_ptr<KernelLibrary>> LoadArtifactLibrary(const std::string& path) {
  if (Status s = VerifyArtifactFile(path); !s.ok()) return s;
  return KernelLibrary::Load(path);
}

std::optional<std::string_view> FindBlob(const KernelLibrary& library, const std::string& symbol) {
  const auto* data = static_cast<const char*>(library.FindSymbol(symbol));
  const auto* size = static_cast<const uint64_t*>(library.FindSymbol(symbol + "_size"));
  if (data == nullptr || size == nullptr) return std::nullopt;
  return std::string_view(data, *size);
}

Result<ModelPlan> ReadPlan(const KernelLibrary& library, const std::string& name) {
  // The plan is JSON without a terminating NUL; its _size symbol says where it ends.
  std::optional<std::string_view> text = FindBlob(library, kModelPlanSymbol);
  if (!text.has_value()) {
    const bool has_text = library.FindSymbol(kModelPlanSymbol) != nullptr;
    return Status(StatusCode::kLoadFailed, name + ": missing symbol " + kModelPlanSymbol + (has_text ? "_size" : "") +
                                               " (a kernel library, but not a model artifact?)");
  }
  Result<ModelPlan> plan = ParseModelPlan(*text);
  if (!plan.ok()) {
    return Status(StatusCode::kBadPlan, name + ": bad " + kModelPlanSymbol + ": " + plan.status().message());
  }
  return plan;
}

Result<const uint8_t*> ReadParams(const KernelLibrary& library, const ModelPlan& plan, const std::string& name) {
  std::optional<std::string_view> blob = FindBlob(library, kModelParamsSymbol);
  if (!blob.has_value()) {
    if (plan.params_bytes == 0) return static_cast<const uint8_t*>(nullptr);  // a model without parameters may omit it
    return Status(StatusCode::kLoadFailed, name + ": missing symbol " + kModelParamsSymbol + " (the plan has " +
                                               std::to_string(plan.params_bytes) + " params_bytes)");
  }
  if (blob->size() != plan.params_bytes) {
    return Status(StatusCode::kBadPlan, name + ": " + kModelParamsSymbol + " holds " + std::to_string(blob->size()) +
                                            " bytes, the plan says params_bytes " + std::to_string(plan.params_bytes));
  }
  if (reinterpret_cast<uintptr_t>(blob->data()) % TUNEFARM_BUFFER_ALIGNMENT != 0) {
    return Status(StatusCode::kLoadFailed, name + ": " + kModelParamsSymbol + " is not " +
                                               std::to_string(TUNEFARM_BUFFER_ALIGNMENT) + "-byte aligned");
  }
  return reinterpret_cast<const uint8_t*>(blob->data());
}

}  // namespace tunefarm::deploy
