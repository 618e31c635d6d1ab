#include "cli/embedded_farm.h"

#include <algorithm>
#include <chrono>
#include <fstream>

#include "common/strings.h"
#include "device_agent/agent_options.h"
#include "device_agent/agent_server.h"
#include "proto/hardware_facts.h"
#include "proto/agent_registration.h"
#include "proto/credentials.h"
#include "tracker/tracker_server.h"

namespace tunefarm::cli {
namespace {

// 24 random bytes as hex: the farm's token lives only as long as this process.
absl::StatusOr<std::string> RandomToken() {
  std::ifstream random("/dev/urandom", std::ios::binary);
  unsigned char bytes[24];
  if (!random.read(reinterpret_cast<char*>(bytes), sizeof bytes))
    return absl::UnavailableError("local farm: cannot read /dev/urandom for a token");
  static const char kHex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

}  // namespace

// Stopped by the destructor in this order: registrations, agents, tracker.
struct EmbeddedFarm::Servers {
  std::unique_ptr<tracker::TrackerServer> tracker;
  std::vector<std::unique_ptr<agent::AgentServer>> agents;
  std::vector<std::unique_ptr<wire::AgentRegistration>> registrations;
  ~Servers() {
    for (auto& registration : registrations) registration->Stop();
    for (auto& agent : agents) agent->Stop();
    if (tracker) tracker->Stop();
  }
};

EmbeddedFarm::~EmbeddedFarm() = default;

absl::StatusOr<std::unique_ptr<EmbeddedFarm>> EmbeddedFarm::Start(const std::string& key,
                                                                const std::string& measure_helper, int agents) {
  auto token = RandomToken();
  if (!token.ok()) return token.status();
  std::unique_ptr<EmbeddedFarm> farm(new EmbeddedFarm());
  farm->token_ = *token;
  farm->servers_ = std::make_unique<Servers>();

  tracker::TrackerServerOptions tracker_options;
  tracker_options.host = "127.0.0.1";
  tracker_options.token = farm->token_;
  auto tracker = tracker::TrackerServer::Start(tracker_options);
  if (!tracker.ok())
    return absl::UnavailableError(StrCat("local farm: tracker: ", std::string(tracker.status().message())));
  farm->servers_->tracker = std::move(*tracker);
  farm->tracker_address_ = farm->servers_->tracker->address();

  auto channel = wire::MakeChannel(farm->tracker_address_, {}, std::chrono::milliseconds(2000));
  if (!channel.ok()) return absl::UnavailableError(StrCat("local farm: ", std::string(channel.status().message())));
  agent::AgentServerOptions agent_options;
  agent_options.host = "127.0.0.1";
  agent_options.token = farm->token_;
  agent_options.identity = {key, wire::ReadHardwareFacts()};
  agent_options.limits.helper_path = agent::ResolveMeasureHelper(measure_helper);
  for (int i = 0; i < std::max(1, agents); ++i) {
    auto agent = agent::AgentServer::Start(agent_options);
    if (!agent.ok()) return absl::UnavailableError(StrCat("local farm: agent: ", std::string(agent.status().message())));
    farm->servers_->agents.push_back(std::move(*agent));
    const std::string address = farm->servers_->agents.back()->address();
    if (i == 0) farm->agent_address_ = address;

    wire::AgentRegistrationOptions registration;
    registration.request.set_key(key);
    *registration.request.mutable_facts() = agent_options.identity.facts;
    registration.request.set_address(address);
    registration.request.set_capacity(1);
    registration.request.set_agent_name(i == 0 ? "local" : StrCat("local", i));
    registration.token = farm->token_;
    farm->servers_->registrations.push_back(std::make_unique<wire::AgentRegistration>(*channel, registration));
    farm->servers_->registrations.back()->Start();
    if (!farm->servers_->registrations.back()->WaitRegistered(std::chrono::seconds(10)))
      return absl::UnavailableError("local farm: the agent did not register with the tracker within 10 s");
  }
  return farm;
}

}  // namespace tunefarm::cli
