// Error reporting for the deploy runtime: a plain error code plus a message, and Result<T> for
// calls that also produce a value. deploy/ links neither Abseil nor anything else, so this is
// its small stand-in for absl::Status; no exception ever leaves the runtime's public API.
#ifndef TUNEFARM_DEPLOY_STATUS_H_
#define TUNEFARM_DEPLOY_STATUS_H_

#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <utility>

namespace tunefarm::deploy {

// Plain integer codes so that a C API can hand them out unchanged. Never renumber.
enum class StatusCode : int32_t {
  kOk = 0,
  kInvalidArgument = 1,  // the caller passed something wrong (arg count, null, alignment)
  kNotFound = 2,         // no such entry / file
  kLoadFailed = 3,       // dlopen or memfd failed, or a required symbol is missing
  kAbiMismatch = 4,      // the library was built against another tunefarm ABI version
  kBadMetadata = 5,      // tunefarm_metadata is not valid metadata JSON
  kKernelError = 6,      // a kernel returned non-zero; see Status::kernel_code()
  kOutOfMemory = 7,
  kInternal = 8,
  kBadPlan = 9,          // a model artifact's plan is malformed or does not fit its kernels
  kCorruptArtifact = 10,  // a model artifact's integrity trailer is missing or does not match
};

const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;  // ok
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  // A kernel returned `kernel_code` (non-zero); code() is kKernelError.
  static Status KernelError(int32_t kernel_code, std::string message) {
    Status s(StatusCode::kKernelError, std::move(message));
    s.kernel_code_ = kernel_code;
    return s;
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  // The kernel's own return value when code() is kKernelError, else 0.
  int32_t kernel_code() const { return kernel_code_; }
  const std::string& message() const { return message_; }
  // "OK" or "<CodeName>: <message>".
  std::string ToString() const {
    if (ok()) return "OK";
    return std::string(StatusCodeName(code_)) + ": " + message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  int32_t kernel_code_ = 0;
  std::string message_;  // empty when ok: the success path never allocates
};

inline const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "InvalidArgument";
    case StatusCode::kNotFound: return "NotFound";
    case StatusCode::kLoadFailed: return "LoadFailed";
    case StatusCode::kAbiMismatch: return "AbiMismatch";
    case StatusCode::kBadMetadata: return "BadMetadata";
    case StatusCode::kKernelError: return "KernelError";
    case StatusCode::kOutOfMemory: return "OutOfMemory";
    case StatusCode::kInternal: return "Internal";
    case StatusCode::kBadPlan: return "BadPlan";
    case StatusCode::kCorruptArtifact: return "CorruptArtifact";
  }
  return "Unknown";
}

// Either a value or a non-ok Status.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit, like absl::StatusOr
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status(StatusCode::kInternal, "Result built from an ok Status");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  // Only valid when ok().
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

// Runs `body`, turning an escaping exception (in practice bad_alloc from a string or vector)
// into a Status: nothing may be thrown out of the runtime's API.
template <typename Body>
auto WithoutExceptions(Body body) -> decltype(body()) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, e.what());
  }
}

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_STATUS_H_
