// Timing for benchmarks, TVM-style: calls per repeat grow until one repeat lasts at least
// min_repeat_ms; the result is the median seconds per call over the repeats.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace tunefarm::bench {

inline double MedianSecondsPerCall(const std::function<void()>& fn, int repeats = 5, double min_repeat_ms = 200) {
  using Clock = std::chrono::steady_clock;
  fn();  // warm-up: first-touch of pages, caches, thread start
  int number = 1;
  std::vector<double> per_call;
  while (static_cast<int>(per_call.size()) < repeats) {
    auto t0 = Clock::now();
    for (int i = 0; i < number; ++i) fn();
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (ms < min_repeat_ms && per_call.empty()) {
      number = std::max(number * 2, static_cast<int>(number * min_repeat_ms / std::max(ms, 1e-3)));
      continue;
    }
    per_call.push_back(ms / 1e3 / number);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

}  // namespace tunefarm::bench
