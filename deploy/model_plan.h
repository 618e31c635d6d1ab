// The execution plan a model artifact carries as `tunefarm_model_plan` (docs/model-artifact.md,
// format 1), parsed into plain structs and checked: first on its own (ParseModelPlan), then
// against the kernels of the library it came with (CheckPlanAgainstKernels).
#ifndef TUNEFARM_DEPLOY_MODEL_PLAN_H_
#define TUNEFARM_DEPLOY_MODEL_PLAN_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "deploy/kernel_metadata.h"
#include "deploy/status.h"

namespace tunefarm::deploy {

// The only plan "format" this runtime reads.
inline constexpr int32_t kModelPlanFormat = 1;

// Where a value lives: the arena the runtime allocates, or the embedded parameter blob.
enum class ValueSpace { kArena, kParam };
const char* ValueSpaceName(ValueSpace space);

struct PlanValue {
  std::string name;
  std::string dtype;  // a name DTypeBytes knows
  std::vector<int64_t> shape;
  ValueSpace space = ValueSpace::kArena;
  uint64_t offset = 0;  // into its space
  uint64_t bytes = 0;   // elements * dtype size, computed by the parser
};

struct PlanCall {
  std::string kernel;         // an entry of the library's metadata
  std::vector<int32_t> args;  // value ids: the kernel's inputs, then its outputs
  int32_t num_inputs = 0;
  // For `tunefarm inspect`; the runtime ignores them (empty when absent).
  std::string group, workload, schedule;
  std::vector<std::string> ops;
};

struct ModelPlan {
  int32_t format = kModelPlanFormat;
  std::string target;
  int32_t threads = 0;  // the thread count the model was compiled for; 0 when not given
  uint64_t arena_bytes = 0;
  uint64_t params_bytes = 0;
  std::vector<PlanValue> values;
  std::vector<int32_t> inputs;   // value ids, in the model's input order
  std::vector<int32_t> outputs;  // value ids, in the model's output order
  std::vector<PlanCall> calls;   // run in order
};

// Parses the JSON text and checks everything that needs no kernel metadata: the format, known
// dtypes, every value inside its space, inputs and outputs in the arena, every call's value ids
// in range, its outputs in the arena, its arguments 64-byte aligned and pairwise disjoint.
// Errors (kBadPlan) name the JSON path and, where there is one, the value or call, e.g.
// `calls[1] (kernel "tf_k1"): argument 2 (value 7 "h") overlaps argument 0 (value 3 "x")`.
Result<ModelPlan> ParseModelPlan(std::string_view json);

// The per-call part of ParseModelPlan's checks (outputs in the arena, alignment, disjointness),
// for a plan built in code.
Status CheckPlanCalls(const ModelPlan& plan);

// Every call's kernel is an entry of `metadata`, taking as many arguments as the call passes,
// with the same number of inputs, and each argument's dtype and shape equal the value's.
Status CheckPlanAgainstKernels(const ModelPlan& plan, const KernelMetadata& metadata);

// "calls[3] (kernel \"tf_k3\")" and "value 7 \"h\"": how errors name things.
std::string DescribeCall(const ModelPlan& plan, size_t call);
std::string DescribeValue(const ModelPlan& plan, int32_t value);

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_MODEL_PLAN_H_
