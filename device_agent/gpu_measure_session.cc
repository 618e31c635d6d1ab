#include "device_agent/gpu_measure_session.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "deploy/aligned_buffer.h"
#include "device_agent/input_generator.h"
#include "device_agent/kernel_timing.h"
#include "device_agent/output_compare.h"
#include "device_agent/reference_outputs.h"

namespace tunefarm::agent {
namespace {

namespace cuda = deploy::cuda;

// Kernel libraries are at most a few MiB of PTX; anything far larger is not one.
constexpr size_t kMaxPtxBytes = size_t{256} << 20;

// GPU time of the runs between Start and StopSeconds, from a pair of CUDA events.
class EventClock final : public IntervalClock {
 public:
  explicit EventClock(std::unique_ptr<cuda::EventTimer> timer) : timer_(std::move(timer)) {}
  void Start() override {
    if (deploy::Status s = timer_->Start(); !s.ok() && error_.ok()) error_ = s;
  }
  double StopSeconds() override {
    deploy::Result<double> seconds = timer_->StopSeconds();
    if (seconds.ok() && error_.ok()) return *seconds;
    if (error_.ok()) error_ = seconds.status();
    return -1;
  }
  const deploy::Status& error() const { return error_; }

 private:
  std::unique_ptr<cuda::EventTimer> timer_;
  deploy::Status error_;
};

}  // namespace

bool GpuMeasureSession::FailWith(const deploy::Status& status, OutcomeKind kind) {
  if (status.code() == deploy::StatusCode::kOutOfMemory) return Fail(OutcomeKind::kOutOfMemory, status.message());
  if (status.code() == deploy::StatusCode::kKernelError) {
    if (cuda::LosesContext(status.kernel_code())) {
      retire_reason_ = "the CUDA context was lost: " + status.message();
    }
    return Fail(OutcomeKind::kRuntimeError, status.message(), status.kernel_code());
  }
  return Fail(kind, status.message());
}

bool GpuMeasureSession::OpenDevice() {
  if (context_ != nullptr) return true;
  deploy::Result<std::shared_ptr<const cuda::DriverApi>> api = cuda::LoadDriverApi(spec_.cuda_driver);
  if (!api.ok()) return Fail(OutcomeKind::kLoadError, api.status().message());
  deploy::Result<std::unique_ptr<cuda::Context>> context =
      cuda::Context::Open(*api, std::atoi(spec_.device.c_str() + 5));
  if (!context.ok()) return Fail(OutcomeKind::kLoadError, context.status().message());
  // The helper's one thread uses this context for good.
  if (deploy::Status s = context.value()->MakeCurrent(); !s.ok()) return Fail(OutcomeKind::kLoadError, s.message());
  context_ = std::move(context).value();
  return true;
}

// A farm call's candidates share one library (tuner/kernel_build.h), often with their reference:
// each is JIT-compiled for the GPU once per helper, not once per candidate.
bool GpuMeasureSession::LoadLibrary(const std::string& path, const LoadedLibrary** loaded) {
  for (const LoadedLibrary& kept : libraries_) {
    if (kept.path != path) continue;
    *loaded = &kept;
    return true;
  }
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  if (!file || !(text << file.rdbuf())) return Fail(OutcomeKind::kLoadError, "cannot read " + path);
  const std::string ptx = text.str();
  if (ptx.size() > kMaxPtxBytes) return Fail(OutcomeKind::kLoadError, path + ": too large to be a PTX library");
  deploy::Result<deploy::PtxLibrary> library = deploy::ReadPtxLibrary(ptx);
  if (!library.ok()) return Fail(OutcomeKind::kLoadError, path + ": " + library.status().message());
  const int needs = deploy::SmVersion(library->arch);
  const int has = context_->ComputeCapability();
  if (needs < 0 || needs > has) {
    return Fail(OutcomeKind::kLoadError, "refused before loading: " + path + " is PTX for " + library->arch +
                                             ", this GPU has compute capability " + std::to_string(has / 10) + "." +
                                             std::to_string(has % 10));
  }
  deploy::Result<std::unique_ptr<cuda::Module>> module = cuda::Module::Load(*context_, ptx);
  if (!module.ok()) return FailWith(module.status(), OutcomeKind::kLoadError);
  // A few libraries are kept: the call's, its reference's, and the one before.
  if (libraries_.size() == kKeptLibraries) libraries_.erase(libraries_.begin());
  libraries_.push_back({path, std::move(library).value(), std::shared_ptr<cuda::Module>(std::move(module).value())});
  *loaded = &libraries_.back();
  return true;
}

// Reads and loads the library (LoadLibrary) and binds `entry`'s launches.
bool GpuMeasureSession::Load(const std::string& path, const std::string& entry, Bound* bound) {
  const LoadedLibrary* loaded = nullptr;
  if (!LoadLibrary(path, &loaded)) return false;
  const deploy::EntryInfo* info = loaded->library.metadata.FindEntry(entry);
  if (info == nullptr) return Fail(OutcomeKind::kLoadError, path + ": no entry " + Quoted(entry));
  for (const deploy::ArgInfo& arg : info->args) {
    if (!arg.prepared_by.empty()) {
      return Fail(OutcomeKind::kLoadError, "entry " + Quoted(entry) + " rewrites the layout of argument " +
                                               Quoted(arg.name) + "; a GPU agent does not measure layout rewriting");
    }
  }
  bound->info = *info;
  bound->module = loaded->module;
  deploy::Result<cuda::EntryLaunches> launches = cuda::EntryLaunches::Bind(*context_, *bound->module, bound->info);
  if (!launches.ok()) return FailWith(launches.status(), OutcomeKind::kLoadError);
  bound->launches = std::make_unique<cuda::EntryLaunches>(std::move(launches).value());
  return true;
}

// Runs the reference the first time a candidate needs it, on the same generated inputs, and
// keeps its outputs on the host for the rest of the batch (and for later helpers).
bool GpuMeasureSession::RunReference() {
  if (reference_ready_) return CheckSameSignature(candidate_.info.args, reference_args_);
  Bound reference;
  if (!Load(spec_.reference_path, spec_.reference_entry, &reference) ||
      !CheckSameSignature(candidate_.info.args, reference.info.args)) {
    return false;
  }
  if (std::optional<std::vector<FrozenBuffer>> saved =
          LoadReferenceOutputs(spec_.reference_outputs_path, spec_.seed, reference.info.args)) {
    reference_args_ = reference.info.args;
    reference_outputs_ = std::move(*saved);
    reference_ready_ = true;
    return true;
  }
  report_stage_(kStageAllocate);
  if (!Allocate(&reference)) return false;
  report_stage_(kStageReference);
  if (!RunOnce(reference, "the reference")) return false;
  std::vector<FrozenBuffer> outputs(reference.args.size());
  for (size_t i = 0; i < reference.args.size(); ++i) {
    if (reference.info.args[i].role != deploy::ArgRole::kOut) continue;
    deploy::Status copied;
    deploy::Result<FrozenBuffer> kept = FrozenBuffer::Make(
        reference.buffers[i].size(), [&](void* data) { copied = reference.buffers[i].Download(data); });
    if (!kept.ok()) return Fail(OutcomeKind::kOutOfMemory, "cannot keep the reference's output " +
                                                               Quoted(reference.info.args[i].name));
    if (!copied.ok()) return FailWith(copied, OutcomeKind::kRuntimeError);
    outputs[i] = std::move(kept).value();
  }
  reference_args_ = reference.info.args;
  reference_outputs_ = std::move(outputs);
  reference_ready_ = true;
  SaveReferenceOutputs(spec_.reference_outputs_path, spec_.seed, reference_args_, reference_outputs_);
  return true;
}

bool GpuMeasureSession::Allocate(Bound* bound) {
  const std::vector<deploy::ArgInfo>& args = bound->info.args;
  if (const int failed = inputs_.Make(args, spec_.seed); failed >= 0) {
    return Fail(OutcomeKind::kOutOfMemory, "cannot generate argument " + Quoted(args[failed].name));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const size_t bytes = static_cast<size_t>(args[i].NumBytes());
    deploy::Result<cuda::DeviceBuffer> buffer = cuda::DeviceBuffer::Allocate(*context_, bytes);
    if (!buffer.ok()) return FailWith(buffer.status(), OutcomeKind::kOutOfMemory);
    // Fresh copies of the inputs each time, and outputs poisoned as on a CPU (NaN, all ones),
    // so that an element the kernel never writes cannot pass.
    deploy::Status copied;
    if (args[i].role == deploy::ArgRole::kOut) {
      deploy::Result<deploy::AlignedBuffer> poison = deploy::AlignedBuffer::Allocate(bytes);
      if (!poison.ok()) return Fail(OutcomeKind::kOutOfMemory, "cannot poison output " + Quoted(args[i].name));
      FillPoison(args[i], poison->data());
      copied = buffer->Upload(poison->data());
    } else {
      copied = buffer->Upload(inputs_[i].data());
    }
    if (!copied.ok()) return FailWith(copied, OutcomeKind::kRuntimeError);
    bound->args.push_back(buffer->get());
    bound->buffers.push_back(std::move(buffer).value());
  }
  deploy::Result<cuda::DeviceBuffer> workspace = cuda::DeviceBuffer::Allocate(*context_, bound->info.workspace_bytes);
  if (!workspace.ok()) return FailWith(workspace.status(), OutcomeKind::kOutOfMemory);
  bound->workspace = std::move(workspace).value();
  return true;
}

bool GpuMeasureSession::RunOnce(Bound& bound, const char* what) {
  deploy::Status status = bound.launches->Launch(bound.args, bound.workspace.get());
  if (status.ok()) status = cuda::Synchronize(*context_, std::string("running ") + what + " entry " + Quoted(bound.info.name));
  return status.ok() || FailWith(status, OutcomeKind::kRuntimeError);
}

bool GpuMeasureSession::CompareOutputs(Comparison* comparison) {
  const std::vector<deploy::ArgInfo>& args = candidate_.info.args;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].role != deploy::ArgRole::kOut) continue;
    deploy::Result<deploy::AlignedBuffer> out = deploy::AlignedBuffer::Allocate(candidate_.buffers[i].size());
    if (!out.ok()) return Fail(OutcomeKind::kOutOfMemory, "cannot copy back output " + Quoted(args[i].name));
    if (deploy::Status s = candidate_.buffers[i].Download(out->data()); !s.ok()) {
      return FailWith(s, OutcomeKind::kRuntimeError);
    }
    CompareOutput(args[i], out->data(), reference_outputs_[i].data(), spec_.atol, spec_.rtol, comparison);
  }
  return true;
}

void GpuMeasureSession::Time() {
  deploy::Result<std::unique_ptr<cuda::EventTimer>> timer = cuda::EventTimer::Create(*context_);
  if (!timer.ok()) {
    FailWith(timer.status(), OutcomeKind::kRuntimeError);
    return;
  }
  EventClock clock(std::move(timer).value());
  std::function<void()> flush;
  deploy::Status flush_error;  // the first failed flush: the timings after it mean nothing
  if (spec_.flush_cache) {
    // Overwriting twice the L2's size evicts the candidate's buffers, as on a CPU.
    if (flush_ == nullptr) {
      const size_t bytes = 2 * static_cast<size_t>(std::max(context_->Get(cuda::kL2CacheSize), 1 << 20));
      deploy::Result<cuda::DeviceBuffer> buffer = cuda::DeviceBuffer::Allocate(*context_, bytes);
      if (buffer.ok()) flush_ = std::make_unique<cuda::DeviceBuffer>(std::move(buffer).value());
    }
    if (flush_ != nullptr)
      flush = [this, &flush_error] {
        if (deploy::Status s = flush_->Fill(0); !s.ok() && flush_error.ok()) flush_error = s;
      };
  }
  deploy::Status launch_error;
  const Timing timing = TimeRuns(
      [&] {
        launch_error = candidate_.launches->Launch(candidate_.args, candidate_.workspace.get());
        return launch_error.ok() ? 0 : kClockFailed;
      },
      spec_.number, spec_.repeat, spec_.min_repeat_ms, flush, spec_.stop_above_sec, &clock);
  outcome_.number = timing.number;
  outcome_.costs_sec = timing.costs_sec;
  if (timing.error_code != 0)
    FailWith(launch_error.ok() ? clock.error() : launch_error, OutcomeKind::kRuntimeError);
  else if (!flush_error.ok())
    FailWith(flush_error, OutcomeKind::kRuntimeError);
}

}  // namespace tunefarm::agent
