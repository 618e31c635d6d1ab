#include "device_agent/candidate_measurer.h"

#include <chrono>

namespace tunefarm::agent {

bool CandidateMeasurer::Fail(OutcomeKind kind, std::string message, int32_t kernel_code) {
  outcome_.kind = kind;
  outcome_.message = std::move(message);
  outcome_.kernel_code = kernel_code;
  return false;
}

bool CandidateMeasurer::CheckSameSignature(const std::vector<deploy::ArgInfo>& mine,
                                           const std::vector<deploy::ArgInfo>& theirs) {
  const std::string what = "entry " + Quoted(job_.entry) + " and reference entry " + Quoted(spec_.reference_entry);
  if (mine.size() != theirs.size()) {
    return Fail(OutcomeKind::kLoadError,
                what + " take " + std::to_string(mine.size()) + " and " + std::to_string(theirs.size()) + " arguments");
  }
  for (size_t i = 0; i < mine.size(); ++i) {
    if (!SameArg(mine[i], theirs[i])) {
      return Fail(OutcomeKind::kLoadError, what + " differ in argument " + std::to_string(i) + ArgNote(i) + ": " +
                                               ArgText(mine[i]) + " vs " + ArgText(theirs[i]));
    }
  }
  return true;
}

MeasureOutcome CandidateMeasurer::Measure(const CandidateJob& job) {
  Unload();
  job_ = job;
  outcome_ = MeasureOutcome();
  report_stage_(kStageCheck);
  if (!CheckBeforeLoading()) return outcome_;

  report_stage_(kStageLoad);
  if (!LoadCandidate()) return outcome_;
  if (checking() && !RunReference()) return outcome_;
  report_stage_(kStageAllocate);
  if (!AllocateCandidate()) return outcome_;

  report_stage_(kStageRun);
  const auto run_start = std::chrono::steady_clock::now();
  if (!RunCandidate()) return outcome_;
  const double run_sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  if (checking()) {
    Comparison comparison;
    if (!CompareOutputs(&comparison)) return outcome_;
    outcome_.checked = true;
    outcome_.correct = comparison.correct;
    outcome_.max_abs_error = comparison.max_abs_error;
    outcome_.max_rel_error = comparison.max_rel_error;
    // A wrong kernel is recorded as wrong, never as fast: no timing.
    if (!comparison.correct) {
      Fail(OutcomeKind::kWrongResult,
           std::to_string(comparison.mismatches) + " of " + std::to_string(comparison.elements) +
               " output elements differ from the reference beyond atol " + NumberText(spec_.atol) + " + rtol " +
               NumberText(spec_.rtol) + " * |ref|; first: " + comparison.first_mismatch);
      return outcome_;
    }
  }
  if (spec_.stop_above_sec > 0 && run_sec > kUntimedStopFactor * spec_.stop_above_sec) {
    // So slow already (its caches not flushed, its first run) that no timed run could make it
    // worth more: that run is its one cost.
    outcome_.number = 1;
    outcome_.costs_sec = {run_sec};
    return outcome_;
  }
  report_stage_(kStageTime);
  Time();
  return outcome_;
}

}  // namespace tunefarm::agent
