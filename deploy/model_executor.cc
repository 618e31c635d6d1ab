#include "deploy/model_executor.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string_view>

#include "deploy/artifact_checksum.h"

namespace tunefarm::deploy {
namespace {

std::string Shape(const PlanValue& value) {
  std::string text = value.dtype + " [";
  for (size_t i = 0; i < value.shape.size(); ++i) text += (i ? ", " : "") + std::to_string(value.shape[i]);
  return text + "]";
}

}  // namespace

ModelExecutor::~ModelExecutor() = default;

Result<std::unique_ptr<ModelExecutor>> ModelExecutor::Load(const std::string& path, int32_t num_threads) {
  return WithoutExceptions([&]() -> Result<std::unique_ptr<ModelExecutor>> {
    if (num_threads < 0) {
      return Status(StatusCode::kInvalidArgument, "num_threads must be >= 0, got " + std::to_string(num_threads));
    }
    std::unique_ptr<ModelExecutor> model(new ModelExecutor());
    if (Status s = model->Prepare(path, num_threads); !s.ok()) return s;
    return model;
  });
}

Status ModelExecutor::Error(StatusCode code, const std::string& what) const {
  return Status(code, name_ + ": " + what);
}

Status ModelExecutor::Prepare(const std::string& path, int32_t num_threads) {
  name_ = path;
  // Before dlopen: a damaged shared object can crash the loader itself.
  if (Status s = VerifyArtifactFile(path); !s.ok()) return s;
  Result<std::unique_ptr<KernelLibrary>> library = KernelLibrary::Load(path);
  if (!library.ok()) return library.status();
  library_ = std::move(library).value();
  if (Status s = FindPlan(); !s.ok()) return s;
  if (Status s = FindParams(); !s.ok()) return s;
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

// The plan is JSON without a terminating NUL; its _size symbol says where it ends.
Status ModelExecutor::FindPlan() {
  const auto* text = static_cast<const char*>(library_->FindSymbol(kModelPlanSymbol));
  const auto* size = static_cast<const uint64_t*>(library_->FindSymbol(std::string(kModelPlanSymbol) + "_size"));
  if (text == nullptr || size == nullptr) {
    const std::string missing = std::string(kModelPlanSymbol) + (text == nullptr ? "" : "_size");
    return Error(StatusCode::kLoadFailed,
                 "missing symbol " + missing + " (a kernel library, but not a model artifact?)");
  }
  Result<ModelPlan> plan = ParseModelPlan(std::string_view(text, *size));
  if (!plan.ok()) {
    return Error(StatusCode::kBadPlan, std::string("bad ") + kModelPlanSymbol + ": " + plan.status().message());
  }
  plan_ = std::move(plan).value();
  return Status();
}

Status ModelExecutor::FindParams() {
  const auto* data = static_cast<const uint8_t*>(library_->FindSymbol(kModelParamsSymbol));
  const auto* size = static_cast<const uint64_t*>(library_->FindSymbol(std::string(kModelParamsSymbol) + "_size"));
  if (data == nullptr || size == nullptr) {
    if (plan_.params_bytes == 0) return Status();  // a model without parameters may omit the blob
    return Error(StatusCode::kLoadFailed, std::string("missing symbol ") + kModelParamsSymbol + " (the plan has " +
                                              std::to_string(plan_.params_bytes) + " params_bytes)");
  }
  if (*size != plan_.params_bytes) {
    return Error(StatusCode::kBadPlan, std::string(kModelParamsSymbol) + " holds " + std::to_string(*size) +
                                           " bytes, the plan says params_bytes " + std::to_string(plan_.params_bytes));
  }
  if (reinterpret_cast<uintptr_t>(data) % TUNEFARM_BUFFER_ALIGNMENT != 0) {
    return Error(StatusCode::kLoadFailed, std::string(kModelParamsSymbol) + " is not " +
                                              std::to_string(TUNEFARM_BUFFER_ALIGNMENT) + "-byte aligned");
  }
  params_ = data;
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
  if (index >= plan_.inputs.size()) {
    return Error(StatusCode::kInvalidArgument, "input index " + std::to_string(index) + " is out of range (" +
                                                   std::to_string(plan_.inputs.size()) + " inputs)");
  }
  const PlanValue& value = input(index);
  if (bytes != value.bytes) {
    return Error(StatusCode::kInvalidArgument, "input " + std::to_string(index) + " (\"" + value.name + "\", " +
                                                   Shape(value) + ") takes " + std::to_string(value.bytes) +
                                                   " bytes, got " + std::to_string(bytes));
  }
  if (data == nullptr && bytes > 0) {
    return Error(StatusCode::kInvalidArgument, "input " + std::to_string(index) + ": data is null");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > 0) std::memcpy(ValueData(plan_.inputs[index]), data, bytes);
  return Status();
}

Status ModelExecutor::GetOutput(size_t index, void* data, size_t bytes) const {
  if (index >= plan_.outputs.size()) {
    return Error(StatusCode::kInvalidArgument, "output index " + std::to_string(index) + " is out of range (" +
                                                   std::to_string(plan_.outputs.size()) + " outputs)");
  }
  const PlanValue& value = output(index);
  if (bytes != value.bytes) {
    return Error(StatusCode::kInvalidArgument, "output " + std::to_string(index) + " (\"" + value.name + "\", " +
                                                   Shape(value) + ") has " + std::to_string(value.bytes) +
                                                   " bytes, the buffer " + std::to_string(bytes));
  }
  if (data == nullptr && bytes > 0) {
    return Error(StatusCode::kInvalidArgument, "output " + std::to_string(index) + ": data is null");
  }
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
