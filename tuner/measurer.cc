#include "tuner/measurer.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

#include "common/strings.h"
#include "common/unix_time.h"
#include "tuner/parallel_work.h"

namespace tunefarm::tuner {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

void FillOutcome(const v1::MeasureResult& r, db::TuningRecord* rec) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  rec->costs_sec.assign(r.costs_sec().begin(), r.costs_sec().end());
  rec->error_message = r.message();
  rec->max_abs_error = nan;
  rec->max_rel_error = nan;
  switch (r.error_kind()) {
    case v1::ERROR_KIND_NONE:
      rec->error_kind = db::ErrorKind::kNone;
      break;
    case v1::ERROR_KIND_BUILD:
      rec->error_kind = db::ErrorKind::kBuild;
      break;
    case v1::ERROR_KIND_LOAD:
      rec->error_kind = db::ErrorKind::kLoad;
      break;
    case v1::ERROR_KIND_CRASH:
      rec->error_kind = db::ErrorKind::kCrash;
      rec->error_code = r.signal() != 0 ? r.signal() : r.exit_code();
      break;
    case v1::ERROR_KIND_TIMEOUT:
      rec->error_kind = db::ErrorKind::kTimeout;
      break;
    case v1::ERROR_KIND_WRONG_RESULT:
      rec->error_kind = db::ErrorKind::kWrongResult;
      break;
    case v1::ERROR_KIND_RUNTIME_ERROR:
      rec->error_kind = db::ErrorKind::kRuntimeError;
      rec->error_code = r.exit_code();
      break;
    case v1::ERROR_KIND_OUT_OF_MEMORY:
      rec->error_kind = db::ErrorKind::kOutOfMemory;
      rec->error_code = r.signal();
      break;
    default:
      rec->error_kind = db::ErrorKind::kRuntimeError;
      rec->error_message = StrCat("agent reported error kind ", static_cast<int>(r.error_kind()), ": ", r.message());
      break;
  }
  // The error figures exist when the outputs were compared.
  if (r.error_kind() == v1::ERROR_KIND_NONE || r.error_kind() == v1::ERROR_KIND_WRONG_RESULT) {
    rec->max_abs_error = r.max_abs_error();
    rec->max_rel_error = r.max_rel_error();
  }
  if (rec->error_kind != db::ErrorKind::kNone) rec->costs_sec.clear();
  rec->measured_unix_ms = r.finished_unix_us() > 0 ? r.finished_unix_us() / 1000 : UnixMillisNow();
}

Measurer::BuiltPart Measurer::Build(const std::vector<Candidate>& candidates, size_t begin, size_t end) {
  auto start = std::chrono::steady_clock::now();
  std::vector<absl::StatusOr<KernelObject>> objects(end - begin, absl::UnknownError("not built"));
  RunOnWorkers(end - begin, build_threads_, [&](size_t i) {
    const Candidate& c = candidates[begin + i];
    objects[i] = CompileKernel(c.state, target_, c.lowered.get(), BatchEntry(i));
  });
  BuiltPart part;
  std::vector<const KernelObject*> compiled;
  std::vector<size_t> compiled_index;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (objects[i].ok()) {
      compiled.push_back(&*objects[i]);
      compiled_index.push_back(i);
    } else {
      part.errors.push_back({begin + i, std::string(objects[i].status().message())});
    }
  }
  // One library for the part (one per program should they not link together).
  LinkedObjects linked = LinkObjects(compiled, target_);
  for (size_t k = 0; k < compiled.size(); ++k) {
    const size_t i = compiled_index[k];
    if (linked.library_of[k] == nullptr) {
      part.errors.push_back({begin + i, std::move(linked.errors[k])});
    } else {
      part.programs.push_back({begin + i, linked.library_of[k], BatchEntry(i)});
    }
  }
  counters_.libraries += static_cast<int64_t>(linked.libraries.size());
  part.libraries = std::move(linked.libraries);
  counters_.build_seconds += SecondsSince(start);
  return part;
}

absl::Status Measurer::MeasurePart(const BuiltKernel& reference, BuiltPart& part, double best_cost_sec,
                                   const OnOutcome& on_outcome) {
  counters_.built += static_cast<int64_t>(part.programs.size());
  counters_.build_errors += static_cast<int64_t>(part.errors.size());
  for (auto& [index, message] : part.errors) {
    db::TuningRecord outcome;
    outcome.error_kind = db::ErrorKind::kBuild;
    outcome.error_message = std::move(message);
    outcome.max_abs_error = outcome.max_rel_error = std::numeric_limits<double>::quiet_NaN();
    outcome.measured_unix_ms = UnixMillisNow();
    if (absl::Status s = on_outcome(index, std::move(outcome)); !s.ok()) return s;
  }
  if (stopping_() || part.programs.empty()) return absl::OkStatus();

  // One farm call for the part; each result is handed on as it arrives.
  auto measure_start = std::chrono::steady_clock::now();
  absl::Status outcome_error;
  v1::MeasureOptions options = options_;
  options.set_stop_above_sec(best_cost_sec > 0 ? kSlowCandidateFactor * best_cost_sec : 0);
  absl::Status measured = farm_->Measure(options, reference, part.programs, [&](const v1::MeasureResult& r) {
    ++counters_.measured;
    const bool ours = std::any_of(part.programs.begin(), part.programs.end(),
                                  [&](const FarmSession::Program& p) { return p.id == r.id(); });
    if (!ours || !outcome_error.ok()) return;
    if (r.error_kind() == v1::ERROR_KIND_NOT_FOUND) return;  // evicted twice: not a trial
    db::TuningRecord outcome;
    FillOutcome(r, &outcome);
    outcome_error = on_outcome(r.id(), std::move(outcome));
  });
  counters_.measure_seconds += SecondsSince(measure_start);
  if (!outcome_error.ok()) return outcome_error;
  return measured;
}

bool Measurer::Pipelined() const {
  if (pipelining_ != Pipelining::kAuto) return pipelining_ == Pipelining::kOn;
  return !farm_->AnyDeviceOnThisHost();
}

absl::Status Measurer::Measure(const BuiltKernel& reference, const std::vector<Candidate>& candidates,
                               double best_cost_sec, const OnOutcome& on_outcome, size_t part_size) {
  const bool pipelined = Pipelined();
  const size_t n = candidates.size();
  if (part_size == 0) part_size = std::max<size_t>(n, 1);
  if (n == 0 || stopping_()) return absl::OkStatus();
  BuiltPart current = Build(candidates, 0, std::min(n, part_size));
  for (size_t begin = 0; begin < n; begin += part_size) {
    const size_t next = begin + part_size;
    BuiltPart upcoming;
    std::thread builder;
    if (pipelined && next < n)
      builder = std::thread([&] { upcoming = Build(candidates, next, std::min(n, next + part_size)); });
    absl::Status measured = MeasurePart(reference, current, best_cost_sec, on_outcome);
    if (builder.joinable()) builder.join();
    if (!measured.ok()) return measured;
    if (next >= n || stopping_()) break;
    current = pipelined ? std::move(upcoming) : Build(candidates, next, std::min(n, next + part_size));
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::tuner
