#include "tuner/tuning_profile.h"

namespace tunefarm::tuner {

std::string_view TuningStageName(TuningStage stage) {
  switch (stage) {
    case TuningStage::kSampleReplay: return "sample and replay";
    case TuningStage::kLower: return "lower";
    case TuningStage::kFeatures: return "features";
    case TuningStage::kCostModel: return "cost model";
    case TuningStage::kCodegen: return "LLVM codegen";
    case TuningStage::kLink: return "link";
    case TuningStage::kUpload: return "upload";
    case TuningStage::kQueueWait: return "queue wait";
    case TuningStage::kMeasure: return "measurement";
    case TuningStage::kDbWrite: return "database write";
    case TuningStage::kCount: break;
  }
  return "?";
}

TuningProfile& TuningProfile::Global() {
  static TuningProfile profile;
  return profile;
}

void TuningProfile::Add(TuningStage stage, double seconds, int64_t count) {
  const size_t i = static_cast<size_t>(stage);
  nanos_[i].fetch_add(static_cast<int64_t>(seconds * 1e9), std::memory_order_relaxed);
  counts_[i].fetch_add(count, std::memory_order_relaxed);
}

StageTotal TuningProfile::Get(TuningStage stage) const {
  const size_t i = static_cast<size_t>(stage);
  return {static_cast<double>(nanos_[i].load(std::memory_order_relaxed)) * 1e-9,
          counts_[i].load(std::memory_order_relaxed)};
}

void TuningProfile::Reset() {
  for (auto& n : nanos_) n.store(0, std::memory_order_relaxed);
  for (auto& c : counts_) c.store(0, std::memory_order_relaxed);
}

namespace {
thread_local StageTimer* current_timer = nullptr;
}  // namespace

StageTimer::StageTimer(TuningStage stage) : stage_(stage), parent_(current_timer) {
  if (parent_ != nullptr) parent_->Pause();
  current_timer = this;
  start_ = std::chrono::steady_clock::now();
}

StageTimer::~StageTimer() {
  Pause();
  TuningProfile::Global().Add(stage_, seconds_);
  current_timer = parent_;
  if (parent_ != nullptr) parent_->Resume();
}

void StageTimer::Pause() {
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void StageTimer::Resume() { start_ = std::chrono::steady_clock::now(); }

}  // namespace tunefarm::tuner
