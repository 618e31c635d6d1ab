// libFuzzer target for what the deploy runtime reads from a model artifact before it runs
// anything: the integrity trailer, the kernel metadata JSON and the plan JSON, and the plan
// checked against the metadata. Any input must give a value or a clean Status, never a crash,
// a sanitizer report or a hang. Run it with `fuzz/run_fuzz.sh SECONDS artifact_loader`.
//
// Input layout: METADATA_JSON '\0' PLAN_JSON. Without a NUL the whole input is tried as both,
// so that a seed of either kind alone is useful too.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "deploy/artifact_checksum.h"
#include "deploy/kernel_metadata.h"
#include "deploy/model_plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tunefarm::deploy;
  (void)VerifyArtifactBytes(data, size, "fuzz.so");
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view metadata_text = nul == std::string_view::npos ? input : input.substr(0, nul);
  const std::string_view plan_text = nul == std::string_view::npos ? input : input.substr(nul + 1);
  Result<KernelMetadata> metadata = ParseKernelMetadata(metadata_text);
  Result<ModelPlan> plan = ParseModelPlan(plan_text);
  if (metadata.ok() && plan.ok()) (void)CheckPlanAgainstKernels(*plan, *metadata);
  return 0;
}
