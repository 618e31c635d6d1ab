#include "tuner/cost_model/xgb_handles.h"

#include "common/strings.h"

namespace tunefarm::tuner {

absl::Status XgbCall(int rc, std::string_view call) {
  if (rc == 0) return absl::OkStatus();
  const char* text = XGBGetLastError();
  return absl::InternalError(StrCat("cost model: ", call, " failed: ", text ? text : "(no XGBoost error text)"));
}

XgbDMatrix::~XgbDMatrix() {
  if (handle_) XGDMatrixFree(handle_);
}

XgbDMatrix& XgbDMatrix::operator=(XgbDMatrix&& other) noexcept {
  if (this != &other) {
    if (handle_) XGDMatrixFree(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

XgbBooster::~XgbBooster() {
  if (handle_) XGBoosterFree(handle_);
}

XgbBooster& XgbBooster::operator=(XgbBooster&& other) noexcept {
  if (this != &other) {
    if (handle_) XGBoosterFree(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

}  // namespace tunefarm::tuner
