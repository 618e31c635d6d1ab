#include "deploy/gpu_model_executor.h"

#include <algorithm>

#include "deploy/artifact_blobs.h"
#include "deploy/ptx_library.h"

namespace tunefarm::deploy {
namespace {

// `status` with `prefix` before its message, its code and kernel code kept.
Status Prefixed(const std::string& prefix, const Status& status) {
  if (status.code() == StatusCode::kKernelError) return Status::KernelError(status.kernel_code(), prefix + status.message());
  return Status(status.code(), prefix + status.message());
}

}  // namespace

// The members free device memory and unload the module in the context, which must be current
// on this thread (it may not be the one that loaded the model) while they go.
GpuModelExecutor::~GpuModelExecutor() {
  if (context_ == nullptr) return;
  cuda::ScopedCurrent current(*context_);
  if (!current.status().ok()) {  // no driver call without the context: leave them to it
    for (cuda::DeviceBuffer* b : {&arena_, &params_, &workspace_}) b->Abandon();
    (void)module_.release();
    return;
  }
  calls_.clear();
  entries_.clear();
  arena_ = cuda::DeviceBuffer();
  params_ = cuda::DeviceBuffer();
  workspace_ = cuda::DeviceBuffer();
  module_.reset();
}

Result<std::unique_ptr<GpuModelExecutor>> GpuModelExecutor::Load(const std::string& path, const GpuOptions& options) {
  Result<std::unique_ptr<KernelLibrary>> library = LoadArtifactLibrary(path);
  if (!library.ok()) return library.status();
  return FromLibrary(path, std::move(library).value(), options);
}

Result<std::unique_ptr<GpuModelExecutor>> GpuModelExecutor::FromLibrary(const std::string& path,
                                                                        std::unique_ptr<KernelLibrary> library,
                                                                        const GpuOptions& options) {
  return WithoutExceptions([&]() -> Result<std::unique_ptr<GpuModelExecutor>> {
    std::unique_ptr<GpuModelExecutor> model(new GpuModelExecutor());
    if (Status s = model->Prepare(path, std::move(library), options); !s.ok()) return s;
    return model;
  });
}

Status GpuModelExecutor::Prepare(const std::string& path, std::unique_ptr<KernelLibrary> library,
                                 const GpuOptions& options) {
  name_ = path;
  library_ = std::move(library);
  Result<ModelPlan> plan = ReadPlan(*library_, name_);
  if (!plan.ok()) return plan.status();
  plan_ = std::move(plan).value();
  Result<const uint8_t*> params = ReadParams(*library_, plan_, name_);
  if (!params.ok()) return params.status();
  std::optional<std::string_view> ptx_text = FindBlob(*library_, kModelPtxSymbol);
  if (!ptx_text.has_value()) {
    return Status(StatusCode::kLoadFailed, name_ + ": no " + kModelPtxSymbol + ": not a model artifact for a GPU");
  }
  // The driver wants NUL-terminated text.
  const std::string ptx(*ptx_text);
  Result<PtxLibrary> kernels = ReadPtxLibrary(ptx);
  if (!kernels.ok()) return Prefixed(name_ + ": ", kernels.status());
  if (Status s = CheckPlanAgainstKernels(plan_, kernels->metadata); !s.ok()) {
    return Status(StatusCode::kBadPlan, name_ + ": " + s.message());
  }

  Result<std::shared_ptr<const cuda::DriverApi>> api = cuda::LoadDriverApi(options.driver);
  if (!api.ok()) return Prefixed(name_ + ": ", api.status());
  Result<std::unique_ptr<cuda::Context>> context = cuda::Context::Open(*api, options.device);
  if (!context.ok()) return Prefixed(name_ + ": ", context.status());
  context_ = std::move(context).value();
  cuda::ScopedCurrent current(*context_);  // for the loading below; the caller's context after
  if (!current.status().ok()) return Prefixed(name_ + ": ", current.status());
  const int has = context_->ComputeCapability();
  if (SmVersion(kernels->arch) > has) {
    return Status(StatusCode::kLoadFailed, name_ + ": its kernels are for " + kernels->arch + ", CUDA device " +
                                               std::to_string(options.device) + " has compute capability " +
                                               std::to_string(has / 10) + "." + std::to_string(has % 10));
  }
  Result<std::unique_ptr<cuda::Module>> module = cuda::Module::Load(*context_, ptx);
  if (!module.ok()) return Prefixed(name_ + ": ", module.status());
  module_ = std::move(module).value();

  auto allocate = [&](cuda::DeviceBuffer* buffer, uint64_t bytes, const char* what) {
    Result<cuda::DeviceBuffer> allocated = cuda::DeviceBuffer::Allocate(*context_, bytes);
    if (!allocated.ok()) return Prefixed(name_ + ": " + what + ": ", allocated.status());
    *buffer = std::move(allocated).value();
    return Status();
  };
  if (Status s = allocate(&arena_, plan_.arena_bytes, "the arena"); !s.ok()) return s;
  if (Status s = allocate(&params_, plan_.params_bytes, "the parameters"); !s.ok()) return s;
  if (Status s = params_.Upload(*params); !s.ok()) return Prefixed(name_ + ": ", s);
  uint64_t workspace_bytes = 0;
  for (const PlanCall& call : plan_.calls) {
    workspace_bytes = std::max(workspace_bytes, kernels->metadata.FindEntry(call.kernel)->workspace_bytes);
  }
  if (Status s = allocate(&workspace_, workspace_bytes, "the workspace"); !s.ok()) return s;
  return BindCalls(kernels->metadata);
}

cuda::CUdeviceptr GpuModelExecutor::ValueAddress(int32_t id) const {
  const PlanValue& value = plan_.values[id];
  const cuda::DeviceBuffer& space = value.space == ValueSpace::kArena ? arena_ : params_;
  return space.get() == 0 ? 0 : space.get() + value.offset;
}

Status GpuModelExecutor::BindCalls(const KernelMetadata& metadata) {
  for (size_t c = 0; c < plan_.calls.size(); ++c) {
    const PlanCall& call = plan_.calls[c];
    const EntryInfo* entry = metadata.FindEntry(call.kernel);
    std::unique_ptr<cuda::EntryLaunches>& launches = entries_[call.kernel];
    if (launches == nullptr) {
      Result<cuda::EntryLaunches> bound = cuda::EntryLaunches::Bind(*context_, *module_, *entry);
      if (!bound.ok()) {
        return Prefixed(name_ + ": " + DescribeCall(plan_, c) + ": ", bound.status());
      }
      launches = std::make_unique<cuda::EntryLaunches>(std::move(bound).value());
    }
    BoundCall b;
    b.launches = launches.get();
    for (int32_t id : call.args) b.args.push_back(ValueAddress(id));
    if (entry->workspace_bytes > 0) b.workspace = workspace_.get();
    calls_.push_back(std::move(b));
  }
  return Status();
}

Status GpuModelExecutor::Keep(Status status) const {
  if (status.code() == StatusCode::kKernelError && cuda::LosesContext(status.kernel_code()) && lost_.ok()) {
    lost_ = Status::KernelError(status.kernel_code(),
                                status.message() + " (the CUDA context is lost: load the model again in a new process)");
  }
  return status;
}

Status GpuModelExecutor::SetInput(size_t index, const void* data, size_t bytes) {
  if (Status s = CheckInput(name_, index, data, bytes); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!lost_.ok()) return lost_;
  cuda::ScopedCurrent current(*context_);
  if (!current.status().ok()) return Keep(current.status());
  return Keep(arena_.UploadAt(input(index).offset, data, bytes));
}

Status GpuModelExecutor::GetOutput(size_t index, void* data, size_t bytes) const {
  if (Status s = CheckOutput(name_, index, data, bytes); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!lost_.ok()) return lost_;
  cuda::ScopedCurrent current(*context_);
  if (!current.status().ok()) return Keep(current.status());
  return Keep(arena_.DownloadAt(output(index).offset, data, bytes));
}

Status GpuModelExecutor::RunTimed(std::vector<double>* seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!lost_.ok()) return lost_;
  cuda::ScopedCurrent current(*context_);
  if (!current.status().ok()) return Keep(current.status());
  std::unique_ptr<cuda::EventTimer> timer;
  if (seconds != nullptr) {
    seconds->assign(calls_.size(), 0.0);
    Result<std::unique_ptr<cuda::EventTimer>> created = cuda::EventTimer::Create(*context_);
    if (!created.ok()) return Keep(created.status());
    timer = std::move(created).value();
  }
  for (size_t c = 0; c < calls_.size(); ++c) {
    if (timer != nullptr) {
      if (Status s = timer->Start(); !s.ok()) return Keep(s);
    }
    Status status = calls_[c].launches->Launch(calls_[c].args, calls_[c].workspace);
    if (!status.ok()) return Keep(Prefixed(name_ + ": " + DescribeCall(plan_, c) + ": ", status));
    if (timer != nullptr) {
      Result<double> elapsed = timer->StopSeconds();
      if (!elapsed.ok()) return Keep(Prefixed(name_ + ": " + DescribeCall(plan_, c) + ": ", elapsed.status()));
      (*seconds)[c] = *elapsed;
    }
  }
  if (Status s = cuda::Synchronize(*context_, name_ + ": running the model"); !s.ok()) return Keep(s);
  return Status();
}

}  // namespace tunefarm::deploy
