// Keeps a device agent registered with the tracker: registers, heartbeats, and registers again
// when the tracker has forgotten it (NOT_FOUND after a tracker restart or a long silence).
// Tracker state is soft; this loop is what makes it so.
#ifndef TUNEFARM_PROTO_AGENT_REGISTRATION_H_
#define TUNEFARM_PROTO_AGENT_REGISTRATION_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <grpcpp/channel.h>

#include "proto/tracker_client.h"
#include "proto/tunefarm.pb.h"

namespace tunefarm::wire {

struct AgentRegistrationOptions {
  v1::RegisterRequest request;  // key, facts, address, capacity, name
  std::string token;
  // Heartbeat period; zero uses the interval the tracker asks for in RegisterReply.
  std::chrono::milliseconds heartbeat_interval{0};
  // Retry delays after a failed call: doubled from min to max, with jitter.
  std::chrono::milliseconds min_backoff{100};
  std::chrono::milliseconds max_backoff{5000};
  std::chrono::milliseconds rpc_timeout{2000};
  // Progress and errors, one line each; nullptr stays quiet.
  std::function<void(const std::string&)> log;
};

class AgentRegistration {
 public:
  AgentRegistration(std::shared_ptr<grpc::Channel> tracker, AgentRegistrationOptions options);
  ~AgentRegistration();  // Stop()
  AgentRegistration(const AgentRegistration&) = delete;
  AgentRegistration& operator=(const AgentRegistration&) = delete;

  // Starts the background loop; returns at once.
  void Start();
  // Ends the loop and unregisters (best effort, one short call). Idempotent.
  void Stop();

  // The id the tracker gave this agent; empty while not registered.
  std::string agent_id() const;
  // How many times a Register call succeeded (2 after one tracker restart).
  int registrations() const;
  // Waits until registered; false on timeout.
  bool WaitRegistered(std::chrono::milliseconds timeout) const;

 private:
  void Loop();
  // Sleeps up to `d`; returns false when Stop() was called meanwhile.
  bool SleepFor(std::chrono::milliseconds d);
  std::chrono::milliseconds NextBackoff();
  void Log(const std::string& line) const;

  AgentRegistrationOptions options_;
  TrackerClient client_;
  std::thread thread_;

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool stopping_ = false;
  std::string agent_id_;
  int registrations_ = 0;
  std::chrono::milliseconds interval_{0};
  std::chrono::milliseconds backoff_{0};
};

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_AGENT_REGISTRATION_H_
