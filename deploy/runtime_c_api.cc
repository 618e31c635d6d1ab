// The C API (tunefarm_runtime.h) over LoadModel's ModelRunner (a CPU or GPU artifact): status codes become TUNEFARM_RT_* codes and
// a thread-local message; no exception crosses the extern "C" boundary.
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "deploy/model_loader.h"
#include "deploy/tunefarm_runtime.h"

struct tunefarm_model {
  std::unique_ptr<tunefarm::deploy::ModelRunner> executor;
  std::vector<std::string> call_ops;  // per call, the ops joined for tunefarm_call_info
  std::vector<double> call_seconds;   // reused by tunefarm_model_run_profiled
};

namespace {

using tunefarm::deploy::PlanValue;
using tunefarm::deploy::Status;
using tunefarm::deploy::StatusCode;

thread_local std::string last_error;

int CodeFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return TUNEFARM_RT_OK;
    case StatusCode::kInvalidArgument: return TUNEFARM_RT_ERR_INVALID_ARGUMENT;
    case StatusCode::kNotFound:
    case StatusCode::kLoadFailed:
    case StatusCode::kAbiMismatch:
    case StatusCode::kBadMetadata:
    case StatusCode::kCorruptArtifact: return TUNEFARM_RT_ERR_LOAD;
    case StatusCode::kBadPlan: return TUNEFARM_RT_ERR_PLAN;
    case StatusCode::kKernelError: return TUNEFARM_RT_ERR_RUN;
    case StatusCode::kOutOfMemory: return TUNEFARM_RT_ERR_OUT_OF_MEMORY;
    case StatusCode::kInternal: return TUNEFARM_RT_ERR_INTERNAL;
  }
  return TUNEFARM_RT_ERR_INTERNAL;
}

int Fail(int code, const char* message) {
  try {
    last_error = message;
  } catch (...) {  // no memory for the message: the code still says what happened
  }
  return code;
}

int Report(const Status& status) {
  if (status.ok()) return TUNEFARM_RT_OK;
  return Fail(CodeFor(status.code()), status.message().c_str());
}

// Runs `body`, turning a stray exception into an error code.
template <typename Body>
int Guarded(Body body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(TUNEFARM_RT_ERR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return Fail(TUNEFARM_RT_ERR_INTERNAL, e.what());
  } catch (...) {
    return Fail(TUNEFARM_RT_ERR_INTERNAL, "unknown exception");
  }
}

int NullModel(const char* function) {
  return Fail(TUNEFARM_RT_ERR_INVALID_ARGUMENT, (std::string(function) + ": model is null").c_str());
}

void Describe(const PlanValue& value, tunefarm_tensor_info* info) {
  info->name = value.name.c_str();
  info->dtype = value.dtype.c_str();
  info->ndim = static_cast<int32_t>(value.shape.size());
  info->shape = value.shape.data();
  info->bytes = static_cast<size_t>(value.bytes);
}

int TensorInfo(const tunefarm_model* model, int index, tunefarm_tensor_info* info, bool input) {
  const char* function = input ? "tunefarm_model_input_info" : "tunefarm_model_output_info";
  if (model == nullptr) return NullModel(function);
  if (info == nullptr) {
    return Fail(TUNEFARM_RT_ERR_INVALID_ARGUMENT, (std::string(function) + ": info is null").c_str());
  }
  const auto& plan = model->executor->plan();
  const size_t count = input ? plan.inputs.size() : plan.outputs.size();
  if (index < 0 || static_cast<size_t>(index) >= count) {
    return Fail(TUNEFARM_RT_ERR_INVALID_ARGUMENT, (std::string(function) + ": index " + std::to_string(index) +
                                                   " is out of range (" + std::to_string(count) + ")")
                                                      .c_str());
  }
  Describe(input ? model->executor->input(index) : model->executor->output(index), info);
  return TUNEFARM_RT_OK;
}

}  // namespace

extern "C" {

int tunefarm_model_load(const char* path, int num_threads, tunefarm_model** out) {
  return Guarded([&] {
    if (out == nullptr) return Fail(TUNEFARM_RT_ERR_INVALID_ARGUMENT, "tunefarm_model_load: out is null");
    *out = nullptr;
    if (path == nullptr) return Fail(TUNEFARM_RT_ERR_INVALID_ARGUMENT, "tunefarm_model_load: path is null");
    auto executor = tunefarm::deploy::LoadModel(path, num_threads);
    if (!executor.ok()) return Report(executor.status());
    auto model = std::make_unique<tunefarm_model>();
    model->executor = std::move(executor).value();
    for (const auto& call : model->executor->plan().calls) {
      std::string ops;
      for (const std::string& op : call.ops) ops += (ops.empty() ? "" : ",") + op;
      model->call_ops.push_back(std::move(ops));
    }
    *out = model.release();
    return TUNEFARM_RT_OK;
  });
}

void tunefarm_model_free(tunefarm_model* model) { delete model; }

int tunefarm_model_num_inputs(const tunefarm_model* model) {
  if (model == nullptr) {
    NullModel("tunefarm_model_num_inputs");
    return -1;
  }
  return static_cast<int>(model->executor->plan().inputs.size());
}

int tunefarm_model_num_outputs(const tunefarm_model* model) {
  if (model == nullptr) {
    NullModel("tunefarm_model_num_outputs");
    return -1;
  }
  return static_cast<int>(model->executor->plan().outputs.size());
}

int tunefarm_model_input_info(const tunefarm_model* model, int index, tunefarm_tensor_info* info) {
  return Guarded([&] { return TensorInfo(model, index, info, /*input=*/true); });
}

int tunefarm_model_output_info(const tunefarm_model* model, int index, tunefarm_tensor_info* info) {
  return Guarded([&] { return TensorInfo(model, index, info, /*input=*/false); });
}

int tunefarm_model_find_input(const tunefarm_model* model, const char* name) {
  if (model == nullptr || name == nullptr) return -1;
  const auto& plan = model->executor->plan();
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    if (std::strcmp(plan.values[plan.inputs[i]].name.c_str(), name) == 0) return static_cast<int>(i);
  }
  return -1;
}

int tunefarm_model_set_input(tunefarm_model* model, int index, const void* data, size_t bytes) {
  return Guarded([&] {
    if (model == nullptr) return NullModel("tunefarm_model_set_input");
    if (index < 0) return Fail(TUNEFARM_RT_ERR_INVALID_ARGUMENT, "tunefarm_model_set_input: negative index");
    return Report(model->executor->SetInput(static_cast<size_t>(index), data, bytes));
  });
}

int tunefarm_model_run(tunefarm_model* model) {
  return Guarded([&] {
    if (model == nullptr) return NullModel("tunefarm_model_run");
    return Report(model->executor->Run());
  });
}

int tunefarm_model_get_output(const tunefarm_model* model, int index, void* data, size_t bytes) {
  return Guarded([&] {
    if (model == nullptr) return NullModel("tunefarm_model_get_output");
    if (index < 0) return Fail(TUNEFARM_RT_ERR_INVALID_ARGUMENT, "tunefarm_model_get_output: negative index");
    return Report(model->executor->GetOutput(static_cast<size_t>(index), data, bytes));
  });
}

int tunefarm_model_num_calls(const tunefarm_model* model) {
  if (model == nullptr) {
    NullModel("tunefarm_model_num_calls");
    return -1;
  }
  return static_cast<int>(model->executor->plan().calls.size());
}

int tunefarm_model_call_info(const tunefarm_model* model, int index, tunefarm_call_info* info) {
  return Guarded([&] {
    if (model == nullptr) return NullModel("tunefarm_model_call_info");
    if (info == nullptr) return Fail(TUNEFARM_RT_ERR_INVALID_ARGUMENT, "tunefarm_model_call_info: info is null");
    const auto& calls = model->executor->plan().calls;
    if (index < 0 || static_cast<size_t>(index) >= calls.size()) {
      return Fail(TUNEFARM_RT_ERR_INVALID_ARGUMENT, ("tunefarm_model_call_info: index " + std::to_string(index) +
                                                     " is out of range (" + std::to_string(calls.size()) + ")")
                                                        .c_str());
    }
    info->kernel = calls[index].kernel.c_str();
    info->group = calls[index].group.c_str();
    info->ops = model->call_ops[index].c_str();
    return TUNEFARM_RT_OK;
  });
}

int tunefarm_model_run_profiled(tunefarm_model* model, double* seconds, int count) {
  return Guarded([&] {
    if (model == nullptr) return NullModel("tunefarm_model_run_profiled");
    const size_t calls = model->executor->plan().calls.size();
    if (seconds == nullptr || count < 0 || static_cast<size_t>(count) != calls) {
      return Fail(TUNEFARM_RT_ERR_INVALID_ARGUMENT, ("tunefarm_model_run_profiled: needs room for " +
                                                     std::to_string(calls) + " call times, got " +
                                                     (seconds == nullptr ? std::string("null") : std::to_string(count)))
                                                        .c_str());
    }
    Status status = model->executor->RunTimed(&model->call_seconds);
    if (!status.ok()) return Report(status);
    std::memcpy(seconds, model->call_seconds.data(), calls * sizeof(double));
    return TUNEFARM_RT_OK;
  });
}

const char* tunefarm_last_error(void) { return last_error.c_str(); }

}  // extern "C"
