// Timing a kernel the way TVM's time evaluator does: `number` runs per repeat, and while a
// repeat lasts less than min_repeat_ms, `number` grows (to what the last repeat suggests, at
// least x1.618) and the repeat is run again; `repeat` repeats give one cost each. With
// `before_run`, it is called before every run and each run is timed alone (the call is not
// timed): that is how caches are flushed between runs. With `stop_above_sec` > 0, a first
// repeat that costs more than that per run is the only one: a hopeless candidate is not worth
// its other repeats. With `clock`, the runs are timed by it instead of the host's steady clock
// (a GPU's events: the runs only queue kernels, and the clock waits for them).
#ifndef TUNEFARM_DEVICE_AGENT_KERNEL_TIMING_H_
#define TUNEFARM_DEVICE_AGENT_KERNEL_TIMING_H_

#include <cstdint>
#include <functional>
#include <vector>

namespace tunefarm::agent {

// Times what runs between Start() and StopSeconds().
class IntervalClock {
 public:
  virtual ~IntervalClock() = default;
  virtual void Start() = 0;
  // The seconds since Start(), or a negative value when the runs failed (the clock keeps why).
  virtual double StopSeconds() = 0;
};

// Timing::error_code when the clock failed.
inline constexpr int32_t kClockFailed = -1;

struct Timing {
  int32_t number = 0;              // runs per repeat at the end
  std::vector<double> costs_sec;   // per repeat: seconds per run
  int32_t error_code = 0;          // the first non-zero return of `run`, or kClockFailed; timing stops there
};

// `run` calls the kernel once and returns its code. number and repeat below 1 count as 1.
Timing TimeRuns(const std::function<int32_t()>& run, int32_t number, int32_t repeat,
                int32_t min_repeat_ms, const std::function<void()>& before_run = nullptr,
                double stop_above_sec = 0, IntervalClock* clock = nullptr);

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_KERNEL_TIMING_H_
