#include "device_agent/measure_session.h"

#include <algorithm>
#include <cstdio>

#include "device_agent/elf_check.h"
#include "device_agent/input_generator.h"
#include "device_agent/kernel_timing.h"
#include "device_agent/output_compare.h"

namespace tunefarm::agent {
namespace {

std::string Quoted(const std::string& text) { return "\"" + text + "\""; }

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string ArgText(const deploy::ArgInfo& arg) {
  return arg.name + " " + arg.dtype + ShapeText(arg.shape) + " " + deploy::ArgRoleName(arg.role);
}

}  // namespace

MeasureSession::MeasureSession(MeasureSpec spec, std::function<void(const char*)> report_stage)
    : spec_(std::move(spec)), report_stage_(std::move(report_stage)) {}

bool MeasureSession::Fail(OutcomeKind kind, std::string message, int32_t kernel_code) {
  outcome_.kind = kind;
  outcome_.message = std::move(message);
  outcome_.kernel_code = kernel_code;
  return false;
}

MeasureOutcome MeasureSession::Run() {
  outcome_ = MeasureOutcome();
  report_stage_(kStageCheck);
  if (!CheckFiles()) return outcome_;

  report_stage_(kStageLoad);
  pool_ = std::make_unique<deploy::ThreadPool>(std::max(spec_.threads, 1));
  if (!Load(spec_.kernel_path, spec_.entry, pool_.get(), &candidate_)) return outcome_;
  // The reference runs inline: its speed does not matter and it needs no second pool.
  if (checking() && (!Load(spec_.reference_path, spec_.reference_entry, nullptr, &reference_) ||
                     !CheckSameSignature())) {
    return outcome_;
  }

  report_stage_(kStageAllocate);
  if (!Allocate(&candidate_, /*with_inputs=*/true)) return outcome_;
  if (checking() && !Allocate(&reference_, /*with_inputs=*/false)) return outcome_;

  if (checking()) {
    report_stage_(kStageReference);
    if (!RunOnce(reference_, "the reference")) return outcome_;
  }
  report_stage_(kStageRun);
  if (!RunOnce(candidate_, "the candidate")) return outcome_;
  if (checking()) {
    Compare();
    // A wrong kernel is recorded as wrong, never as fast: no timing.
    if (outcome_.kind != OutcomeKind::kOk) return outcome_;
  }
  report_stage_(kStageTime);
  Time();
  return outcome_;
}

bool MeasureSession::CheckFiles() {
  std::vector<std::string> paths = {spec_.kernel_path};
  // Often one library holds both the candidate and its reference: read it once.
  if (checking() && spec_.reference_path != spec_.kernel_path) {
    paths.push_back(spec_.reference_path);
  }
  for (const std::string& path : paths) {
    deploy::Result<ElfFacts> facts = ReadElfFacts(path);
    if (!facts.ok()) return Fail(OutcomeKind::kLoadError, facts.status().message());
    const std::string why = WhyNotLoadable(path, *facts);
    if (!why.empty()) return Fail(OutcomeKind::kLoadError, "refused before loading: " + why);
  }
  return true;
}

bool MeasureSession::Load(const std::string& path, const std::string& entry,
                          deploy::ThreadPool* pool, Bound* bound) {
  deploy::Result<std::unique_ptr<deploy::KernelLibrary>> library =
      deploy::KernelLibrary::Load(path, pool);
  if (!library.ok()) return Fail(OutcomeKind::kLoadError, library.status().message());
  bound->library = std::move(library).value();
  bound->info = bound->library->metadata().FindEntry(entry);
  bound->fn = bound->library->FindFunction(entry);
  bound->pool = pool;
  if (bound->info == nullptr || bound->fn == nullptr) {
    std::string known;
    for (const deploy::EntryInfo& e : bound->library->metadata().entries) {
      known += (known.empty() ? "" : ", ") + e.name;
    }
    return Fail(OutcomeKind::kLoadError,
                path + ": no entry " + Quoted(entry) + " (entries: " + known + ")");
  }
  return true;
}

bool MeasureSession::CheckSameSignature() {
  const auto& mine = candidate_.info->args;
  const auto& theirs = reference_.info->args;
  const std::string what = "entry " + Quoted(spec_.entry) + " and reference entry " +
                           Quoted(spec_.reference_entry);
  if (mine.size() != theirs.size()) {
    return Fail(OutcomeKind::kLoadError, what + " take " + std::to_string(mine.size()) + " and " +
                                             std::to_string(theirs.size()) + " arguments");
  }
  for (size_t i = 0; i < mine.size(); ++i) {
    if (mine[i].dtype != theirs[i].dtype || mine[i].shape != theirs[i].shape ||
        mine[i].role != theirs[i].role) {
      return Fail(OutcomeKind::kLoadError, what + " differ in argument " + std::to_string(i) +
                                               ": " + ArgText(mine[i]) + " vs " +
                                               ArgText(theirs[i]));
    }
  }
  return true;
}

bool MeasureSession::Allocate(Bound* bound, bool with_inputs) {
  const auto too_large = [&](const std::string& what, uint64_t bytes) {
    std::string limit = spec_.memory_limit_bytes > 0
                            ? " within the memory limit of " +
                                  std::to_string(spec_.memory_limit_bytes) + " bytes"
                            : "";
    return Fail(OutcomeKind::kOutOfMemory, "cannot allocate " + what + " of entry " +
                                               Quoted(bound->info->name) + " (" +
                                               std::to_string(bytes) + " bytes)" + limit);
  };
  const std::vector<deploy::ArgInfo>& args = bound->info->args;
  for (size_t i = 0; i < args.size(); ++i) {
    const deploy::ArgInfo& arg = args[i];
    const bool is_output = arg.role == deploy::ArgRole::kOut;
    if (!is_output && !with_inputs) {
      bound->args.push_back(inputs_[i].data());  // the candidate's inputs, shared
      continue;
    }
    deploy::Result<deploy::AlignedBuffer> buffer =
        deploy::AlignedBuffer::Allocate(static_cast<size_t>(arg.NumBytes()));
    if (!buffer.ok()) return too_large("argument " + Quoted(arg.name), arg.NumBytes());
    if (is_output) {
      FillPoison(arg, buffer->data());
      bound->outputs.push_back(std::move(buffer).value());
      bound->args.push_back(bound->outputs.back().data());
      if (with_inputs) inputs_.emplace_back();  // keeps inputs_ indexed by argument
    } else {
      FillInput(arg, static_cast<int32_t>(i), spec_.seed, buffer->data());
      inputs_.push_back(std::move(buffer).value());
      bound->args.push_back(inputs_.back().data());
    }
  }
  const uint64_t workspace_bytes = bound->info->workspace_bytes;
  deploy::Result<deploy::AlignedBuffer> workspace =
      deploy::AlignedBuffer::Allocate(static_cast<size_t>(workspace_bytes));
  if (!workspace.ok()) return too_large("the workspace", workspace_bytes);
  bound->workspace = std::move(workspace).value();
  return true;
}

bool MeasureSession::RunOnce(Bound& bound, const char* what) {
  deploy::ScopedCurrentPool bind(bound.pool);
  const int32_t code = bound.fn(bound.args.data(), static_cast<int32_t>(bound.args.size()),
                                bound.workspace.empty() ? nullptr : bound.workspace.data());
  if (code == 0) return true;
  return Fail(OutcomeKind::kRuntimeError,
              std::string(what) + " entry " + Quoted(bound.info->name) + " of " +
                  bound.library->name() + " returned error " + std::to_string(code),
              code);
}

void MeasureSession::Compare() {
  Comparison comparison;
  const double atol = spec_.atol, rtol = spec_.rtol;
  size_t output = 0;
  for (const deploy::ArgInfo& arg : candidate_.info->args) {
    if (arg.role != deploy::ArgRole::kOut) continue;
    CompareOutput(arg, candidate_.outputs[output].data(), reference_.outputs[output].data(), atol,
                  rtol, &comparison);
    ++output;
  }
  outcome_.checked = true;
  outcome_.correct = comparison.correct;
  outcome_.max_abs_error = comparison.max_abs_error;
  outcome_.max_rel_error = comparison.max_rel_error;
  if (!comparison.correct) {
    Fail(OutcomeKind::kWrongResult,
         std::to_string(comparison.mismatches) + " of " + std::to_string(comparison.elements) +
             " output elements differ from the reference beyond atol " + Number(atol) +
             " + rtol " + Number(rtol) + " * |ref|; first: " + comparison.first_mismatch);
  }
}

void MeasureSession::Time() {
  Bound& c = candidate_;
  void* workspace = c.workspace.empty() ? nullptr : c.workspace.data();
  const int32_t num_args = static_cast<int32_t>(c.args.size());
  deploy::ScopedCurrentPool bind(c.pool);
  const Timing timing = TimeRuns([&] { return c.fn(c.args.data(), num_args, workspace); },
                                 spec_.number, spec_.repeat, spec_.min_repeat_ms);
  outcome_.number = timing.number;
  outcome_.costs_sec = timing.costs_sec;
  if (timing.error_code != 0) {
    Fail(OutcomeKind::kRuntimeError,
         "the candidate entry " + Quoted(c.info->name) + " of " + c.library->name() +
             " returned error " + std::to_string(timing.error_code) + " in a timed run",
         timing.error_code);
  }
}

}  // namespace tunefarm::agent
