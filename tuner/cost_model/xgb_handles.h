// Owning wrappers of XGBoost's C handles, and the one place a C API return code becomes an
// absl::Status. Every XGBoost call of the cost model goes through XgbCall, so a failure is never
// silent and always carries XGBGetLastError's text.
#pragma once

#include <string_view>
#include <utility>

#include <xgboost/c_api.h>

#include "absl/status/status.h"

namespace tunefarm::tuner {

// OK when `rc` is 0; otherwise an internal error "cost model: <call> failed: <XGBoost's text>".
absl::Status XgbCall(int rc, std::string_view call);

// Owns a DMatrixHandle (XGDMatrixFree on destruction).
class XgbDMatrix {
 public:
  XgbDMatrix() = default;
  ~XgbDMatrix();
  XgbDMatrix(XgbDMatrix&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  XgbDMatrix& operator=(XgbDMatrix&& other) noexcept;

  DMatrixHandle get() const { return handle_; }
  DMatrixHandle* out() { return &handle_; }  // for a C API call that creates one; must be empty

 private:
  DMatrixHandle handle_ = nullptr;
};

// Owns a BoosterHandle (XGBoosterFree on destruction).
class XgbBooster {
 public:
  XgbBooster() = default;
  ~XgbBooster();
  XgbBooster(XgbBooster&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  XgbBooster& operator=(XgbBooster&& other) noexcept;

  BoosterHandle get() const { return handle_; }
  BoosterHandle* out() { return &handle_; }  // for a C API call that creates one; must be empty
  explicit operator bool() const { return handle_ != nullptr; }

 private:
  BoosterHandle handle_ = nullptr;
};

}  // namespace tunefarm::tuner
