#include "tests/tuner/local_farm.h"

#include <csignal>
#include <chrono>
#include <thread>

#include "common/strings.h"
#include "proto/credentials.h"
#include "proto/tracker_client.h"

namespace tunefarm::tuner::testing {
namespace {

using namespace std::chrono_literals;

// "tunefarm <server> listening on HOST:PORT" -> HOST:PORT
absl::StatusOr<std::string> ListeningAddress(tunefarm::testing::ChildProcess& process) {
  auto line = process.ReadLine(30s);
  if (!line.ok()) return line.status();
  if (line->find(" listening on ") == std::string::npos)
    return absl::InternalError(StrCat("unexpected first line: ", *line));
  return line->substr(line->rfind(' ') + 1);
}

}  // namespace

absl::StatusOr<std::unique_ptr<LocalFarm>> LocalFarm::Start(int agents) {
  std::unique_ptr<LocalFarm> farm(new LocalFarm());
  const std::string token = farm->dir_.WriteFile("token", kToken);
  const std::vector<std::string> env = {"TUNEFARM_TOKEN="};
  auto tracker = tunefarm::testing::ChildProcess::Spawn(
      {TUNEFARM_TRACKER_BIN, "--host", "127.0.0.1", "--port", "0", "--token-file", token, "--quiet"}, env);
  if (!tracker.ok()) return tracker.status();
  farm->tracker_ = std::move(*tracker);
  auto address = ListeningAddress(*farm->tracker_);
  if (!address.ok()) return address.status();
  farm->tracker_address_ = *address;

  for (int i = 0; i < agents; ++i) {
    auto agent = farm->AddAgent();
    if (!agent.ok()) return agent.status();
  }
  return farm;
}

absl::StatusOr<std::string> LocalFarm::AddAgent(const std::vector<std::string>& extra_args) {
  std::vector<std::string> args = {TUNEFARM_AGENT_BIN, "--key", kDeviceKey, "--host", "127.0.0.1", "--port", "0",
                                   "--tracker", tracker_address_, "--token-file", token_file(), "--cache-dir",
                                   dir_.path(), "--name", StrCat("agent", agents_.size()), "--quiet"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  auto agent = tunefarm::testing::ChildProcess::Spawn(args, {"TUNEFARM_TOKEN="});
  if (!agent.ok()) return agent.status();
  agents_.push_back(std::move(*agent));
  auto address = ListeningAddress(*agents_.back());
  if (!address.ok()) return address.status();
  agent_addresses_.push_back(*address);
  if (absl::Status s = WaitForDevices(static_cast<int>(agents_.size())); !s.ok()) return s;
  return *address;
}

absl::Status LocalFarm::WaitForDevices(int n) {
  auto channel = wire::MakeChannel(tracker_address_, {});
  if (!channel.ok()) return channel.status();
  wire::TrackerClient client(*channel, kToken);
  for (int attempt = 0; attempt < 400; ++attempt) {
    auto devices = client.ListDevices(kDeviceKey);
    if (devices.ok() && devices->devices_size() >= n) return absl::OkStatus();
    std::this_thread::sleep_for(25ms);
  }
  return absl::DeadlineExceededError("the agents did not register with the tracker in 10 s");
}

void LocalFarm::KillAgent(int i) { agents_[i]->Signal(SIGKILL); }

absl::Status LocalFarm::RevokeAgent(const std::string& address) {
  auto channel = wire::MakeChannel(tracker_address_, {});
  if (!channel.ok()) return channel.status();
  wire::TrackerClient client(*channel, kToken);
  auto devices = client.ListDevices(kDeviceKey);
  if (!devices.ok()) return devices.status();
  for (const v1::DeviceInfo& d : devices->devices())
    if (d.address() == address) return client.Unregister(d.agent_id());
  return absl::NotFoundError(StrCat("no agent at ", address));
}

}  // namespace tunefarm::tuner::testing
