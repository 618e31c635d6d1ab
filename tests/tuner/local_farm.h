// A farm on loopback for the tuner's tests: a tunefarm-tracker and tunefarm-agents (key
// "tune-key") as real processes, stopped (SIGKILL at worst) when the object goes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/farm/child_process.h"

namespace tunefarm::tuner::testing {

inline constexpr char kToken[] = "tuner-test-token";
inline constexpr char kDeviceKey[] = "tune-key";

class LocalFarm {
 public:
  // Starts the tracker and `agents` agents, and waits until all are registered.
  static absl::StatusOr<std::unique_ptr<LocalFarm>> Start(int agents = 1);
  const std::string& tracker_address() const { return tracker_address_; }
  // Starts one more agent (with `extra_args`, e.g. --device) and waits until it is registered;
  // returns its address.
  absl::StatusOr<std::string> AddAgent(const std::vector<std::string>& extra_args = {});
  const std::string& agent_address(int i) const { return agent_addresses_[i]; }
  void KillAgent(int i);  // SIGKILL: a device that dies mid-batch
  // Unregisters the agent at `address` at the tracker, which revokes its leases (the agent
  // process lives on and registers again at its next heartbeat).
  absl::Status RevokeAgent(const std::string& address);
  const std::string& dir() const { return dir_.path(); }
  std::string token_file() const { return dir_.path() + "/token"; }

 private:
  LocalFarm() = default;
  tunefarm::testing::TempDir dir_;
  std::unique_ptr<tunefarm::testing::ChildProcess> tracker_;
  absl::Status WaitForDevices(int n);
  std::vector<std::unique_ptr<tunefarm::testing::ChildProcess>> agents_;
  std::vector<std::string> agent_addresses_;
  std::string tracker_address_;
};

}  // namespace tunefarm::tuner::testing
