#include "device_agent/kernel_timing.h"

#include <algorithm>
#include <chrono>

namespace tunefarm::agent {

Timing TimeRuns(const std::function<int32_t()>& run, int32_t number, int32_t repeat,
                int32_t min_repeat_ms, const std::function<void()>& before_run, double stop_above_sec) {
  using Clock = std::chrono::steady_clock;
  constexpr double kMaxNumber = 1 << 30;
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
      const Clock::time_point start = Clock::now();
      double runs_ms = 0;  // with before_run: the runs alone
      for (int32_t i = 0; i < timing.number; ++i) {
        if (before_run) before_run();
        const Clock::time_point run_start = before_run ? Clock::now() : start;
        if (const int32_t code = run(); code != 0) {
          timing.error_code = code;
          return timing;
        }
        if (before_run) runs_ms += std::chrono::duration<double, std::milli>(Clock::now() - run_start).count();
      }
      duration_ms = before_run ? runs_ms : std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    } while (duration_ms < min_repeat_ms && timing.number < kMaxNumber);
    timing.costs_sec.push_back(duration_ms / 1e3 / timing.number);
    if (stop_above_sec > 0 && timing.costs_sec.back() > stop_above_sec) break;
  }
  return timing;
}

}  // namespace tunefarm::agent
