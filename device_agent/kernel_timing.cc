#include "device_agent/kernel_timing.h"

#include <algorithm>
#include <chrono>

namespace tunefarm::agent {
namespace {

class SteadyClock final : public IntervalClock {
 public:
  void Start() override { start_ = std::chrono::steady_clock::now(); }
  double StopSeconds() override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

Timing TimeRuns(const std::function<int32_t()>& run, int32_t number, int32_t repeat,
                int32_t min_repeat_ms, const std::function<void()>& before_run, double stop_above_sec,
                IntervalClock* clock) {
  constexpr double kMaxNumber = 1 << 30;
  SteadyClock steady;
  if (clock == nullptr) clock = &steady;
  Timing timing;
  timing.number = std::max(number, 1);
  repeat = std::max(repeat, 1);
  for (int32_t r = 0; r < repeat; ++r) {
    double duration_ms = 0;
    bool first = true;
    do {
      if (!first) {
        // A clock tick of 0 ms must still grow `number`, not divide by zero.
        const double per_run_ms = std::max(duration_ms, 1e-6) / timing.number;
        const double grown = std::max(min_repeat_ms / per_run_ms + 1, timing.number * 1.618);
        timing.number = static_cast<int32_t>(std::min(grown, kMaxNumber));
      }
      first = false;
      // Without before_run the clock spans the whole repeat; with it, each run alone.
      duration_ms = 0;
      auto stop = [&] {
        const double seconds = clock->StopSeconds();
        duration_ms += seconds * 1e3;
        return seconds >= 0;
      };
      if (!before_run) clock->Start();
      for (int32_t i = 0; i < timing.number; ++i) {
        if (before_run) {
          before_run();
          clock->Start();
        }
        if (const int32_t code = run(); code != 0) {
          timing.error_code = code;
          return timing;
        }
        if (before_run && !stop()) {
          timing.error_code = kClockFailed;
          return timing;
        }
      }
      if (!before_run && !stop()) {
        timing.error_code = kClockFailed;
        return timing;
      }
    } while (duration_ms < min_repeat_ms && timing.number < kMaxNumber);
    timing.costs_sec.push_back(duration_ms / 1e3 / timing.number);
    if (stop_above_sec > 0 && timing.costs_sec.back() > stop_above_sec) break;
  }
  return timing;
}

}  // namespace tunefarm::agent
