#include "compiler/build/task_lowering.h"

#include "compiler/common/log.h"
#include "compiler/common/strings.h"
#include "compiler/schedule/default_rules.h"
#include "compiler/tir/lower.h"

namespace tunefarm::build {
namespace {

// A stored schedule that no longer replays (the DAG or the step semantics changed since it was
// tuned) is reported and replaced by the default: a stale database must not break a build.
std::optional<schedule::State> TunedState(const Task& task, const BuildOptions& options, std::string* origin) {
  if (options.schedules == nullptr) return std::nullopt;
  auto choice = options.schedules->Find(task.dag->WorkloadKey(), options.target.ToString(), options.threads);
  if (!choice) return std::nullopt;
  auto state = schedule::State::FromJson(task.dag, choice->schedule_json);
  if (!state.ok()) {
    TF_LOG(WARN, "build") << "schedule " << choice->origin << " for " << task.dag->WorkloadKey()
                          << " does not replay (" << state.status().message() << "); using the default rules";
    return std::nullopt;
  }
  *origin = choice->origin;
  return std::move(*state);
}

}  // namespace

absl::StatusOr<tir::PrimFunc> LowerTask(Task* task, const BuildOptions& options,
                                        std::vector<tir::RewrittenParam>* rewritten) {
  std::string origin = "default";
  std::optional<schedule::State> state = TunedState(*task, options, &origin);
  if (!state) {
    schedule::RuleContext ctx;
    ctx.vector_lanes = options.target.VectorLanes(te::DType::kFloat32);
    ctx.num_threads = options.threads;
    auto s = schedule::ApplyDefaultSchedule(task->dag, ctx);
    if (!s.ok()) {
      return absl::Status(s.status().code(), StrCat("kernel ", task->kernel_name, ": default schedule: ", std::string(s.status().message())));
    }
    state = std::move(*s);
  }
  auto func = tir::Lower(*state, task->kernel_name);
  if (!func.ok()) {
    return absl::Status(func.status().code(), StrCat("kernel ", task->kernel_name, " (", origin, "): ", std::string(func.status().message())));
  }
  task->schedule = origin;
  if (rewritten) *rewritten = tir::RewrittenParams(*state);
  return func;
}

}  // namespace tunefarm::build
