#include "compiler/build/task_lowering.h"

#include "common/log.h"
#include "common/strings.h"
#include "compiler/codegen/nvptx_codegen.h"
#include "compiler/schedule/default_rules.h"
#include "compiler/schedule/gpu_thread_per_point.h"
#include "compiler/tir/gpu_barriers.h"
#include "compiler/tir/lower.h"

namespace tunefarm::build {
namespace {

// Stored schedules tried per task before the default rules.
constexpr int kMaxStoredCandidates = 8;

struct LoweredChoice {
  tir::PrimFunc func;
  std::optional<schedule::State> state;  // for the rewritten params
  std::string origin;
};

// The first stored schedule that replays on the task's DAG and lowers, best first. One that
// does not (the DAG or the step semantics changed since it was tuned, or an imported record is
// bad) is reported with its record and reason and skipped: a stale database must not break a
// build, nor push every kernel back to the default because its best record is broken.
std::optional<LoweredChoice> LowerStored(const Task& task, const BuildOptions& options) {
  if (options.schedules == nullptr) return std::nullopt;
  const std::string key = task.dag->WorkloadKey();
  for (const ScheduleChoice& choice :
       options.schedules->Candidates(key, options.target.ToString(), options.threads, kMaxStoredCandidates)) {
    auto state = schedule::State::FromJson(task.dag, choice.schedule_json);
    if (!state.ok()) {
      TF_LOG(WARN, "build") << "kernel " << task.kernel_name << ": skipping " << choice.origin
                            << ", it does not replay (" << state.status().message() << ")";
      continue;
    }
    auto func = tir::Lower(*state, task.kernel_name);
    if (!func.ok()) {
      TF_LOG(WARN, "build") << "kernel " << task.kernel_name << ": skipping " << choice.origin
                            << ", it does not lower (" << func.status().message() << ")";
      continue;
    }
    return LoweredChoice{std::move(*func), std::move(*state), choice.origin};
  }
  return std::nullopt;
}

// The caller's default schedule (BuildOptions::default_schedule), where it builds, lowers and,
// on a GPU, plans its launches.
std::optional<LoweredChoice> LowerCallersDefault(const Task& task, const BuildOptions& options) {
  if (!options.default_schedule) return std::nullopt;
  absl::StatusOr<schedule::State> s = options.default_schedule(task.dag);
  absl::StatusOr<tir::PrimFunc> func =
      s.ok() ? tir::Lower(*s, task.kernel_name) : absl::StatusOr<tir::PrimFunc>(s.status());
  if (func.ok() && options.target.IsCuda())
    if (absl::Status launches = tir::CheckGpuLaunches(*func, codegen::GpuLimitsOf(options.target)); !launches.ok())
      func = launches;
  if (!func.ok()) {
    TF_LOG(WARN, "build") << "kernel " << task.kernel_name << ": falling back to the built-in rules, as its default"
                          << " schedule does not build (" << func.status().message() << ")";
    return std::nullopt;
  }
  return LoweredChoice{std::move(*func), std::move(*s), "default"};
}

// The caller's default schedule, else the target's default rules: a GPU's bind each stage to
// blocks and threads, a CPU's vectorize and parallelize.
absl::StatusOr<LoweredChoice> LowerDefault(const Task& task, const BuildOptions& options) {
  if (std::optional<LoweredChoice> chosen = LowerCallersDefault(task, options)) return std::move(*chosen);
  absl::StatusOr<schedule::State> s = [&] {
    if (options.target.IsCuda()) return schedule::ApplyGpuThreadPerPointSchedule(task.dag, schedule::GpuRuleContext{});
    schedule::RuleContext ctx;
    ctx.vector_lanes = options.target.VectorLanes(te::DType::kFloat32);
    ctx.vector_registers = options.target.VectorRegisters();
    ctx.num_threads = options.threads;
    return schedule::ApplyDefaultSchedule(task.dag, ctx);
  }();
  if (!s.ok()) {
    return absl::Status(s.status().code(),
                        StrCat("kernel ", task.kernel_name, ": default schedule: ", std::string(s.status().message())));
  }
  auto func = tir::Lower(*s, task.kernel_name);
  if (!func.ok()) {
    return absl::Status(func.status().code(),
                        StrCat("kernel ", task.kernel_name, " (default): ", std::string(func.status().message())));
  }
  return LoweredChoice{std::move(*func), std::move(*s), "default"};
}

}  // namespace

absl::StatusOr<tir::PrimFunc> LowerTask(Task* task, const BuildOptions& options,
                                        std::vector<tir::RewrittenParam>* rewritten) {
  std::optional<LoweredChoice> chosen = LowerStored(*task, options);
  if (!chosen) {
    auto lowered = LowerDefault(*task, options);
    if (!lowered.ok()) return lowered.status();
    chosen = std::move(*lowered);
  }
  task->schedule = chosen->origin;
  // TUNEFARM_LOG=debug: every kernel's loop nest, to see what a schedule became.
  TF_LOG(DEBUG, "build") << "kernel " << task->kernel_name << " (" << chosen->origin << "):\n"
                         << tir::PrimFuncToString(chosen->func);
  if (rewritten) *rewritten = tir::RewrittenParams(*chosen->state);
  return std::move(chosen->func);
}

}  // namespace tunefarm::build
