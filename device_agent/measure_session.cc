#include "device_agent/measure_session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>

#include "device_agent/batch_inputs.h"
#include "device_agent/elf_check.h"
#include "device_agent/input_generator.h"
#include "device_agent/cache_eviction.h"
#include "device_agent/kernel_timing.h"
#include "device_agent/output_compare.h"
#include "device_agent/reference_outputs.h"

namespace tunefarm::agent {

MeasureSession::~MeasureSession() { Unload(); }

void MeasureSession::Unload() {
  candidate_ = Bound();  // dlclose before the pool it may still name goes
  pool_.reset();
}

bool MeasureSession::CheckBeforeLoading() {
  std::vector<std::string> paths = {job_.kernel_path};
  // Often one library holds both the candidate and its reference: read it once.
  if (checking() && !reference_ready_ && spec_.reference_path != job_.kernel_path) {
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

bool MeasureSession::LoadCandidate() {
  pool_ = std::make_unique<deploy::ThreadPool>(std::max(spec_.threads, 1));
  return Load(job_.kernel_path, job_.entry, pool_.get(), &candidate_);
}

bool MeasureSession::AllocateCandidate() {
  return MakeInputs(candidate_.info->name, SourceArgs(candidate_)) && Allocate(&candidate_);
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

// The arguments a caller provides: a prepared argument's source in its place.
std::vector<deploy::ArgInfo> MeasureSession::SourceArgs(const Bound& bound) const {
  std::vector<deploy::ArgInfo> args = bound.info->args;
  for (deploy::ArgInfo& arg : args) {
    if (arg.prepared_by.empty()) continue;
    // The metadata parser checked that this entry exists and takes [source, prepared].
    arg = bound.library->metadata().FindEntry(arg.prepared_by)->args[0];
  }
  return args;
}

std::string MeasureSession::ArgNote(size_t i) const {
  return candidate_.info->args[i].prepared_by.empty() ? "" : " (the source of its prepared argument)";
}

// Loads, runs and unloads the reference the first time a candidate needs it; later candidates
// are compared with its kept outputs. The stages are reported as the candidate's, so that a
// reference that dies is named in that candidate's error.
bool MeasureSession::RunReference() {
  if (reference_ready_) return CheckSameSignature(SourceArgs(candidate_), reference_args_);
  Bound reference;
  if (!Load(spec_.reference_path, spec_.reference_entry, nullptr, &reference) ||
      !CheckSameSignature(SourceArgs(candidate_), reference.info->args)) {
    return false;
  }
  // An earlier batch's helper may have saved them (reference_outputs.h).
  if (std::optional<std::vector<FrozenBuffer>> saved =
          LoadReferenceOutputs(spec_.reference_outputs_path, spec_.seed, reference.info->args)) {
    reference_args_ = reference.info->args;
    reference_outputs_ = std::move(*saved);
    reference_ready_ = true;
    return true;
  }
  report_stage_(kStageAllocate);
  if (!MakeInputs(reference.info->name, reference.info->args) || !Allocate(&reference)) return false;
  report_stage_(kStageReference);
  if (!RunOnce(reference, "the reference")) return false;
  std::vector<FrozenBuffer> outputs(reference.args.size());
  for (size_t i = 0; i < reference.args.size(); ++i) {
    if (reference.info->args[i].role != deploy::ArgRole::kOut) continue;
    deploy::Result<FrozenBuffer> kept =
        FrozenBuffer::Copy(reference.buffers[i].data(), reference.buffers[i].size());
    if (!kept.ok()) {
      return TooLarge("a copy of output " + Quoted(reference.info->args[i].name),
                      reference.info->name, reference.buffers[i].size());
    }
    outputs[i] = std::move(kept).value();
  }
  reference_args_ = reference.info->args;
  reference_outputs_ = std::move(outputs);
  reference_ready_ = true;
  SaveReferenceOutputs(spec_.reference_outputs_path, spec_.seed, reference_args_, reference_outputs_);
  return true;  // `reference` is unloaded here
}

bool MeasureSession::TooLarge(const std::string& what, const std::string& entry,
                              uint64_t bytes) {
  const std::string limit = spec_.memory_limit_bytes > 0
                                ? " within the memory limit of " +
                                      std::to_string(spec_.memory_limit_bytes) + " bytes"
                                : "";
  return Fail(OutcomeKind::kOutOfMemory, "cannot allocate " + what + " of entry " +
                                             Quoted(entry) + " (" + std::to_string(bytes) +
                                             " bytes)" + limit);
}

bool MeasureSession::MakeInputs(const std::string& entry, const std::vector<deploy::ArgInfo>& args) {
  const int failed = inputs_.Make(args, spec_.seed);
  return failed < 0 || TooLarge("argument " + Quoted(args[failed].name), entry, args[failed].NumBytes());
}

bool MeasureSession::Allocate(Bound* bound) {
  const std::vector<deploy::ArgInfo>& args = bound->info->args;
  for (size_t i = 0; i < args.size(); ++i) {
    const deploy::ArgInfo& arg = args[i];
    deploy::Result<deploy::AlignedBuffer> buffer =
        deploy::AlignedBuffer::Allocate(static_cast<size_t>(arg.NumBytes()));
    if (!buffer.ok()) {
      return TooLarge("argument " + Quoted(arg.name), bound->info->name, arg.NumBytes());
    }
    // A copy of the inputs each time: a kernel that writes its inputs changes only its own.
    if (arg.role == deploy::ArgRole::kOut) {
      FillPoison(arg, buffer->data());
    } else if (!arg.prepared_by.empty()) {
      if (!Prepare(*bound, arg.prepared_by, inputs_[i], buffer->data())) return false;
    } else if (inputs_[i].size() > 0) {
      std::memcpy(buffer->data(), inputs_[i].data(), inputs_[i].size());
    }
    bound->buffers.push_back(std::move(buffer).value());
    bound->args.push_back(bound->buffers.back().data());
  }
  const uint64_t workspace_bytes = bound->info->workspace_bytes;
  deploy::Result<deploy::AlignedBuffer> workspace =
      deploy::AlignedBuffer::Allocate(static_cast<size_t>(workspace_bytes));
  if (!workspace.ok()) return TooLarge("the workspace", bound->info->name, workspace_bytes);
  bound->workspace = std::move(workspace).value();
  return true;
}

// Runs `entry` of the bound library on a copy of `source`, writing `out`: untimed, once per
// candidate, like the compiler's build-time rewrite of the model's weights.
bool MeasureSession::Prepare(const Bound& bound, const std::string& entry, const FrozenBuffer& source, void* out) {
  const deploy::EntryInfo* info = bound.library->metadata().FindEntry(entry);
  tunefarm_kernel_fn fn = bound.library->FindFunction(entry);
  if (fn == nullptr) return Fail(OutcomeKind::kLoadError, bound.library->name() + ": no function " + Quoted(entry));
  deploy::Result<deploy::AlignedBuffer> in = deploy::AlignedBuffer::Allocate(source.size());
  deploy::Result<deploy::AlignedBuffer> workspace =
      deploy::AlignedBuffer::Allocate(static_cast<size_t>(info->workspace_bytes));
  if (!in.ok()) return TooLarge("argument " + Quoted(info->args[0].name), entry, source.size());
  if (!workspace.ok()) return TooLarge("the workspace", entry, info->workspace_bytes);
  if (source.size() > 0) std::memcpy(in->data(), source.data(), source.size());
  void* args[2] = {in->data(), out};
  deploy::ScopedCurrentPool bind(bound.pool);
  const int32_t code = fn(args, 2, workspace->empty() ? nullptr : workspace->data());
  if (code == 0) return true;
  return Fail(OutcomeKind::kRuntimeError,
              "the layout entry " + Quoted(entry) + " of " + bound.library->name() + " returned error " +
                  std::to_string(code),
              code);
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

bool MeasureSession::CompareOutputs(Comparison* comparison) {
  const std::vector<deploy::ArgInfo>& args = candidate_.info->args;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].role != deploy::ArgRole::kOut) continue;
    CompareOutput(args[i], candidate_.buffers[i].data(), reference_outputs_[i].data(), spec_.atol, spec_.rtol,
                  comparison);
  }
  return true;
}

void MeasureSession::Time() {
  Bound& c = candidate_;
  void* workspace = c.workspace.empty() ? nullptr : c.workspace.data();
  const int32_t num_args = static_cast<int32_t>(c.args.size());
  deploy::ScopedCurrentPool bind(c.pool);
  std::function<void()> flush;
  if (spec_.flush_cache) {
    // Outputs too: inside a model a kernel's output lands in arena bytes last used several
    // kernels ago, which the weights streaming through have long evicted, so every store first
    // reads its line from memory. With the output left warm from the previous timed run, the
    // agent timed resnet18's convs 12-20% faster than they ran in the model.
    flush = [&] {
      for (size_t i = 0; i < c.args.size(); ++i) EvictFromCaches(c.buffers[i].data(), c.buffers[i].size());
    };
  }
  const Timing timing = TimeRuns([&] { return c.fn(c.args.data(), num_args, workspace); },
                                 spec_.number, spec_.repeat, spec_.min_repeat_ms, flush, spec_.stop_above_sec);
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
