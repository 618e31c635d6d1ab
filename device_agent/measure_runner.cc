#include "device_agent/measure_runner.h"

#include <signal.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "absl/status/status.h"
#include "common/strings.h"

namespace tunefarm::agent {
namespace {

std::string SignalName(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev != nullptr ? StrCat("SIG", abbrev) : StrCat("signal ", signal);
}

// Where the helper was, for messages: "while running the candidate".
std::string During(const std::string& stage) {
  if (stage == kStageCheck) return " while checking the kernel files";
  if (stage == kStageLoad) return " while loading the kernels";
  if (stage == kStageAllocate) return " while allocating buffers";
  if (stage == kStageReference) return " while running the reference kernel";
  if (stage == kStageRun) return " while running the candidate";
  if (stage == kStageTime) return " while timing the candidate";
  return " before it reported any stage";
}

v1::ErrorKind KindOf(OutcomeKind kind) {
  switch (kind) {
    case OutcomeKind::kOk: return v1::ERROR_KIND_NONE;
    case OutcomeKind::kLoadError: return v1::ERROR_KIND_LOAD;
    case OutcomeKind::kRuntimeError: return v1::ERROR_KIND_RUNTIME_ERROR;
    case OutcomeKind::kWrongResult: return v1::ERROR_KIND_WRONG_RESULT;
    case OutcomeKind::kOutOfMemory: return v1::ERROR_KIND_OUT_OF_MEMORY;
    case OutcomeKind::kBadRequest: break;
  }
  return v1::ERROR_KIND_LOAD;
}

v1::MeasureResult NotFound(uint64_t id, const std::string& what, const std::string& sha256) {
  v1::MeasureResult result;
  result.set_id(id);
  result.set_error_kind(v1::ERROR_KIND_NOT_FOUND);
  result.set_message(StrCat(what, " ", sha256, " is not in the agent's cache: upload it again"));
  return result;
}

}  // namespace

MeasureSpec MakeMeasureSpec(const v1::MeasureOptions& options, const MeasureLimits& limits,
                            const std::string& reference_path, const std::string& reference_entry,
                            int32_t timeout_ms) {
  MeasureSpec spec;
  spec.reference_path = reference_path;
  spec.reference_entry = reference_entry;
  spec.number = std::max(options.number(), 1);
  spec.repeat = std::max(options.repeat(), 1);
  spec.min_repeat_ms = std::max(options.min_repeat_ms(), 0);
  spec.stop_above_sec = std::max(options.stop_above_sec(), 0.0);
  spec.threads = std::max(options.threads(), 1);
  spec.flush_cache = options.flush_cache();
  spec.seed = options.seed();
  const bool default_tolerance = options.atol() == 0 && options.rtol() == 0;
  spec.atol = default_tolerance ? kDefaultAtol : options.atol();
  spec.rtol = default_tolerance ? kDefaultRtol : options.rtol();
  spec.memory_limit_bytes = limits.memory_limit_bytes;
  // A backstop behind the wall-clock deadline (CPU time adds up over threads); it also holds
  // if the agent dies without killing the helper.
  spec.cpu_limit_sec =
      static_cast<int64_t>(std::ceil(timeout_ms / 1000.0 * spec.threads)) + 1;
  spec.result_fd = kResultFd;
  spec.device = limits.device.cuda;
  spec.cuda_driver = limits.device.cuda_driver;
  return spec;
}

absl::StatusOr<v1::MeasureResult> ResultOfRun(uint64_t id, const HelperRun& run,
                                              int32_t timeout_ms) {
  if (run.cancelled) return absl::CancelledError("measurement cancelled");
  const HelperReport report = ParseHelperReport(run.output);
  v1::MeasureResult result;
  result.set_id(id);
  result.set_started_unix_us(run.started_unix_us);
  result.set_finished_unix_us(run.finished_unix_us);
  const std::string during = During(report.last_stage);

  // An outcome counts even if a library destructor crashed afterwards.
  if (report.outcome && !run.timed_out) {
    const MeasureOutcome& outcome = *report.outcome;
    if (outcome.kind == OutcomeKind::kBadRequest) {
      return absl::InternalError(StrCat("the measure helper refused its arguments: ",
                                        outcome.message));
    }
    result.set_error_kind(KindOf(outcome.kind));
    result.set_exit_code(outcome.kernel_code);
    result.set_message(outcome.message);
    result.set_max_abs_error(outcome.max_abs_error);
    result.set_max_rel_error(outcome.max_rel_error);
    result.set_correct(outcome.checked && outcome.correct);
    result.set_number(outcome.number);
    for (double cost : outcome.costs_sec) result.add_costs_sec(cost);
    return result;
  }
  if (run.timed_out) {
    result.set_error_kind(v1::ERROR_KIND_TIMEOUT);
    result.set_message(StrCat("no result within the timeout of ", timeout_ms, " ms", during,
                              "; the helper was killed"));
  } else if (!run.exited && run.signal == SIGXCPU) {
    result.set_error_kind(v1::ERROR_KIND_TIMEOUT);
    result.set_signal(run.signal);
    result.set_message(StrCat("the helper exceeded its CPU-time limit", during));
  } else if (!run.exited && run.signal == SIGKILL) {
    result.set_error_kind(v1::ERROR_KIND_OUT_OF_MEMORY);
    result.set_signal(run.signal);
    result.set_message(StrCat("the helper was killed by SIGKILL, not by the agent (most likely "
                              "the system's out-of-memory killer)", during));
  } else if (!run.exited) {
    result.set_error_kind(v1::ERROR_KIND_CRASH);
    result.set_signal(run.signal);
    result.set_message(StrCat("crashed with signal ", run.signal, " (", SignalName(run.signal),
                              ")", during));
  } else {
    result.set_error_kind(v1::ERROR_KIND_CRASH);
    result.set_exit_code(run.exit_code);
    result.set_message(StrCat("the helper exited with status ", run.exit_code,
                              " without a result", during, " (did the kernel call exit?)"));
  }
  if (!report.error.empty()) result.set_message(StrCat(result.message(), "; ", report.error));
  return result;
}

absl::Status MeasureRunner::Measure(const v1::MeasureRequest& request,
                                   const std::atomic<bool>* cancelled,
                                   const std::function<void(v1::MeasureResult)>& deliver) {
  const v1::MeasureOptions& options = request.options();
  const int32_t timeout_ms =
      options.timeout_ms() > 0 ? std::min(options.timeout_ms(), limits_.max_timeout_ms)
                               : limits_.default_timeout_ms;
  // Held until the batch is done, so eviction cannot delete a file a helper reads.
  std::shared_ptr<const CachedKernel> reference;
  if (options.check_correctness()) reference = cache_.Find(request.reference().sha256());
  MeasureSpec spec =
      MakeMeasureSpec(options, limits_, reference ? reference->path() : "",
                      reference ? request.reference().entry() : "", timeout_ms);
  if (reference) spec.reference_outputs_path = reference->outputs_path();
  std::unique_ptr<HelperProcess> helper;  // killed when the batch ends, however it ends
  for (int i = 0; i < request.candidates_size(); ++i) {
    if (cancelled != nullptr && cancelled->load()) {
      return absl::CancelledError("measurement cancelled");
    }
    const v1::Candidate& candidate = request.candidates(i);
    if (options.check_correctness() && reference == nullptr) {
      deliver(NotFound(candidate.id(), "reference kernel", request.reference().sha256()));
      continue;
    }
    std::shared_ptr<const CachedKernel> kernel = cache_.Find(candidate.kernel().sha256());
    if (kernel == nullptr) {
      deliver(NotFound(candidate.id(), "kernel", candidate.kernel().sha256()));
      continue;
    }
    absl::StatusOr<v1::MeasureResult> result =
        MeasureCandidate(spec, request.candidates_size() - i,
                         {kernel->path(), candidate.kernel().entry()}, candidate.id(), timeout_ms,
                         cancelled, helper);
    if (!result.ok()) return result.status();
    deliver(std::move(*result));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::MeasureResult> MeasureRunner::MeasureCandidate(
    MeasureSpec spec, int remaining, const CandidateJob& job, uint64_t id, int32_t timeout_ms,
    const std::atomic<bool>* cancelled, std::unique_ptr<HelperProcess>& helper) {
  using Clock = std::chrono::steady_clock;
  while (true) {
    HelperRun run;
    run.started_unix_us = UnixMicrosNow();
    // The deadline includes the start of a fresh helper, as it did with one per candidate.
    const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    const bool fresh = helper == nullptr;
    if (fresh) {
      // The CPU-time backstop of the whole helper: every candidate left may use its share.
      spec.batch_cpu_limit_sec = spec.cpu_limit_sec * remaining;
      absl::StatusOr<std::unique_ptr<HelperProcess>> started =
          HelperProcess::Spawn(limits_.helper_path, MeasureArgs(spec));
      if (!started.ok()) return started.status();
      helper = std::move(*started);
      ++helpers_started_;
    }
    // A helper that is gone takes no job: the wait below finds it ended.
    helper->Send(JobLine(job));
    const HelperProcess::Wait wait = helper->WaitFor(
        deadline, cancelled,
        [](std::string_view output) { return OutcomeEnd(output) != std::string_view::npos; });
    if (wait == HelperProcess::Wait::kDone) {
      run.output = helper->TakeOutput(OutcomeEnd(helper->output()));
      run.exited = true;
      run.finished_unix_us = UnixMicrosNow();
      return ResultOfRun(id, run, timeout_ms);
    }
    // It died, hung or was cancelled: nothing of it may serve another candidate.
    helper->Kill();
    run.finished_unix_us = UnixMicrosNow();
    run.timed_out = wait == HelperProcess::Wait::kTimedOut;
    run.cancelled = wait == HelperProcess::Wait::kCancelled;
    run.output = helper->TakeOutput();
    run.exited = helper->exited();
    run.exit_code = helper->exit_code();
    run.signal = helper->signal();
    helper.reset();
    // A helper that ended before it began this candidate had retired, or died unloading the
    // previous one: this candidate never ran, so it runs again in a fresh helper (once: a fresh
    // helper that dies this early is this candidate's failure).
    const HelperReport report = ParseHelperReport(run.output);
    if (!fresh && wait == HelperProcess::Wait::kEnded && report.last_stage.empty() &&
        !report.outcome) {
      continue;
    }
    return ResultOfRun(id, run, timeout_ms);
  }
}

}  // namespace tunefarm::agent
