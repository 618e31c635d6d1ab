// A farm on loopback for the tuner's tests: a tunefarm-tracker and one tunefarm-agent (key
// "tune-key") as real processes, stopped (SIGKILL at worst) when the object goes.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tests/farm/child_process.h"

namespace tunefarm::tuner::testing {

inline constexpr char kToken[] = "tuner-test-token";
inline constexpr char kDeviceKey[] = "tune-key";

class LocalFarm {
 public:
  // Starts both and waits until the agent is registered with the tracker.
  static absl::StatusOr<std::unique_ptr<LocalFarm>> Start();
  const std::string& tracker_address() const { return tracker_address_; }
  const std::string& dir() const { return dir_.path(); }

 private:
  LocalFarm() = default;
  tunefarm::testing::TempDir dir_;
  std::unique_ptr<tunefarm::testing::ChildProcess> tracker_, agent_;
  std::string tracker_address_;
};

}  // namespace tunefarm::tuner::testing
