#include "proto/agent_registration.h"

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"

namespace tunefarm::wire {

AgentRegistration::AgentRegistration(std::shared_ptr<grpc::Channel> tracker,
                                     AgentRegistrationOptions options)
    : options_(std::move(options)),
      client_(std::move(tracker), options_.token, options_.rpc_timeout, /*wait_for_ready=*/true) {}

AgentRegistration::~AgentRegistration() { Stop(); }

void AgentRegistration::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void AgentRegistration::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::string id;
  {
    std::lock_guard lock(mu_);
    id = std::exchange(agent_id_, "");
  }
  // Leaving explicitly frees our leases at once instead of after the tracker's timeout.
  if (!id.empty()) {
    absl::Status s = client_.Unregister(id);
    if (!s.ok()) Log(absl::StrCat("unregister ", id, " failed: ", s.ToString()));
  }
}

std::string AgentRegistration::agent_id() const {
  std::lock_guard lock(mu_);
  return agent_id_;
}

int AgentRegistration::registrations() const {
  std::lock_guard lock(mu_);
  return registrations_;
}

bool AgentRegistration::WaitRegistered(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return !agent_id_.empty(); });
}

bool AgentRegistration::SleepFor(std::chrono::milliseconds d) {
  std::unique_lock lock(mu_);
  return !cv_.wait_for(lock, d, [&] { return stopping_; });
}

std::chrono::milliseconds AgentRegistration::NextBackoff() {
  backoff_ = backoff_.count() == 0 ? options_.min_backoff
                                   : std::min(backoff_ * 2, options_.max_backoff);
  // Jitter keeps a farm of agents from hammering a restarted tracker in lockstep.
  thread_local std::minstd_rand rng(std::random_device{}());
  const auto half = std::max<int64_t>(backoff_.count() / 2, 1);
  return std::chrono::milliseconds(half + static_cast<int64_t>(rng() % half));
}

void AgentRegistration::Log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

void AgentRegistration::Loop() {
  const std::string& key = options_.request.key();
  while (true) {
    std::string id;
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      id = agent_id_;
    }
    if (id.empty()) {
      absl::StatusOr<v1::RegisterReply> reply = client_.Register(options_.request);
      if (!reply.ok()) {
        Log(absl::StrCat("register of key '", key, "' failed: ", reply.status().ToString()));
        if (!SleepFor(NextBackoff())) return;
        continue;
      }
      backoff_ = std::chrono::milliseconds(0);
      {
        std::lock_guard lock(mu_);
        agent_id_ = reply->agent_id();
        ++registrations_;
        interval_ = options_.heartbeat_interval.count() > 0
                        ? options_.heartbeat_interval
                        : std::chrono::milliseconds(std::max<int64_t>(reply->heartbeat_interval_ms(), 10));
      }
      cv_.notify_all();
      Log(absl::StrCat("registered as ", reply->agent_id(), " (key '", key, "')"));
      if (!SleepFor(interval_)) return;
      continue;
    }
    absl::Status s = client_.Heartbeat(id);
    if (s.ok()) {
      backoff_ = std::chrono::milliseconds(0);
      if (!SleepFor(interval_)) return;
    } else if (absl::IsNotFound(s)) {
      // The tracker restarted or dropped us: register again right away.
      Log(absl::StrCat("tracker forgot ", id, "; registering again"));
      std::lock_guard lock(mu_);
      agent_id_.clear();
    } else {
      // Unreachable (or refusing): keep the id and retry; a restarted tracker answers NOT_FOUND.
      Log(absl::StrCat("heartbeat of ", id, " failed: ", s.ToString()));
      if (!SleepFor(NextBackoff())) return;
    }
  }
}

}  // namespace tunefarm::wire
