#include "deploy/model_executor.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string_view>

#include "deploy/artifact_blobs.h"

namespace tunefarm::deploy {
ModelExecutor::~ModelExecutor() = default;

Result<std::unique_ptr<ModelExecutor>> ModelExecutor::Load(const std::string& path, int32_t num_threads) {
  Result<std::unique_ptr<KernelLibrary>> library = LoadArtifactLibrary(path);
  if (!library.ok()) return library.status();
  return FromLibrary(path, std::move(library).value(), num_threads);
}

Result<std::unique_ptr<ModelExecutor>> ModelExecutor::FromLibrary(const std::string& path,
                                                                  std::unique_ptr<KernelLibrary> library,
                                                                  int32_t num_threads) {
  return WithoutExceptions([&]() -> Result<std::unique_ptr<ModelExecutor>> {
    if (num_threads < 0) {
      return Status(StatusCode::kInvalidArgument, "num_threads must be >= 0, got " + std::to_string(num_threads));
    }
    std::unique_ptr<ModelExecutor> model(new ModelExecutor());
    if (Status s = model->Prepare(path, std::move(library), num_threads); !s.ok()) return s;
    return model;
  });
}

Status ModelExecutor::Error(StatusCode code, const std::string& what) const {
  return Status(code, name_ + ": " + what);
}

Status ModelExecutor::Prepare(const std::string& path, std::unique_ptr<KernelLibrary> library, int32_t num_threads) {
  name_ = path;
  library_ = std::move(library);
  if (Status s = FindPlanAndParams(); !s.ok()) return s;
  if (Status s = CheckPlanAgainstKernels(plan_, library_->metadata()); !s.ok()) {
    return Error(StatusCode::kBadPlan, s.message());
  }
  if (num_threads == 0) num_threads = plan_.threads > 0 ? plan_.threads : ThreadPool::DefaultThreadCount();
  pool_ = std::make_unique<ThreadPool>(num_threads);
  library_->set_thread_pool(pool_.get());

  Result<AlignedBuffer> arena = AlignedBuffer::Allocate(plan_.arena_bytes);
  if (!arena.ok()) return Error(StatusCode::kOutOfMemory, "arena: " + arena.status().message());
  arena_ = std::move(arena).value();
  return BindCalls();
}

Status ModelExecutor::FindPlanAndParams() {
  // A GPU artifact's kernels are PTX, which this executor does not run.
  if (FindBlob(*library_, kModelPtxSymbol).has_value()) {
    return Error(StatusCode::kLoadFailed, "a model artifact for a CUDA GPU: load it with LoadModel, which runs it on the GPU");
  }
  Result<ModelPlan> plan = ReadPlan(*library_, name_);
  if (!plan.ok()) return plan.status();
  plan_ = std::move(plan).value();
  Result<const uint8_t*> params = ReadParams(*library_, plan_, name_);
  if (!params.ok()) return params.status();
  params_ = *params;
  return Status();
}

uint8_t* ModelExecutor::ValueData(int32_t id) {
  const PlanValue& value = plan_.values[id];
  // Params are read-only: the plan check keeps them out of every kernel's outputs.
  uint8_t* base = value.space == ValueSpace::kArena ? arena_.data() : const_cast<uint8_t*>(params_);
  return base == nullptr ? nullptr : base + value.offset;
}

const uint8_t* ModelExecutor::ValueData(int32_t id) const {
  const PlanValue& value = plan_.values[id];
  const uint8_t* base = value.space == ValueSpace::kArena ? arena_.data() : params_;
  return base == nullptr ? nullptr : base + value.offset;
}

Status ModelExecutor::BindCalls() {
  uint64_t workspace_bytes = 0;
  for (const PlanCall& call : plan_.calls) {
    workspace_bytes = std::max(workspace_bytes, library_->metadata().FindEntry(call.kernel)->workspace_bytes);
  }
  if (workspace_bytes > SIZE_MAX) return Error(StatusCode::kOutOfMemory, "workspace too large");
  Result<AlignedBuffer> workspace = AlignedBuffer::Allocate(static_cast<size_t>(workspace_bytes));
  if (!workspace.ok()) return Error(StatusCode::kOutOfMemory, "workspace: " + workspace.status().message());
  workspace_ = std::move(workspace).value();

  for (const PlanCall& call : plan_.calls) {
    BoundCall bound;
    bound.fn = library_->FindFunction(call.kernel);
    for (int32_t id : call.args) bound.args.push_back(ValueData(id));
    if (library_->metadata().FindEntry(call.kernel)->workspace_bytes > 0) bound.workspace = workspace_.data();
    calls_.push_back(std::move(bound));
  }
  return Status();
}

Status ModelExecutor::SetInput(size_t index, const void* data, size_t bytes) {
  if (Status s = CheckInput(name_, index, data, bytes); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > 0) std::memcpy(ValueData(plan_.inputs[index]), data, bytes);
  return Status();
}

Status ModelExecutor::GetOutput(size_t index, void* data, size_t bytes) const {
  if (Status s = CheckOutput(name_, index, data, bytes); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > 0) std::memcpy(data, ValueData(plan_.outputs[index]), bytes);
  return Status();
}

Status ModelExecutor::RunCall(size_t c) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (c >= calls_.size()) {
    return Error(StatusCode::kInvalidArgument, "no call " + std::to_string(c) + " (the plan has " +
                                                   std::to_string(calls_.size()) + ")");
  }
  ScopedCurrentPool bind(pool_.get());
  return InvokeCall(c);
}

Status ModelExecutor::InvokeCall(size_t c) {
  BoundCall& call = calls_[c];
  const int32_t code = call.fn(call.args.data(), static_cast<int32_t>(call.args.size()), call.workspace);
  if (code == 0) return Status();
  return Status::KernelError(code, name_ + ": " + DescribeCall(plan_, c) + " returned error " + std::to_string(code));
}

std::vector<ModelExecutor::ArgBytes> ModelExecutor::CallArgBytes(size_t c) const {
  std::vector<ArgBytes> bytes;
  if (c >= plan_.calls.size()) return bytes;
  for (int32_t id : plan_.calls[c].args) bytes.push_back({ValueData(id), static_cast<size_t>(plan_.values[id].bytes)});
  return bytes;
}

Status ModelExecutor::RunTimed(std::vector<double>* seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ScopedCurrentPool bind(pool_.get());
  if (seconds != nullptr) seconds->assign(calls_.size(), 0.0);
  for (size_t c = 0; c < calls_.size(); ++c) {
    const auto start = seconds != nullptr ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    Status status = InvokeCall(c);
    if (seconds != nullptr)
      (*seconds)[c] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!status.ok()) return status;
  }
  return Status();
}

}  // namespace tunefarm::deploy
