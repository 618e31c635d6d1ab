#include "tracker/tracker_state.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tracker/pool_facts.h"

namespace tunefarm::tracker {
namespace {

constexpr int kMaxCapacity = 1024;

// A short random tag per tracker run, so ids never repeat across restarts.
std::string RunTag() {
  std::random_device rd;
  return absl::StrFormat("%06x", rd() & 0xffffff);
}

int64_t MillisSince(Clock::time_point then, Clock::time_point now) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(now - then).count();
}

}  // namespace

TrackerState::TrackerState(TrackerOptions options)
    : options_(std::move(options)), registry_("a" + RunTag()), leases_("l" + RunTag()) {
  if (options_.heartbeat_interval.count() <= 0) {
    options_.heartbeat_interval =
        std::max(options_.agent_timeout / 5, std::chrono::milliseconds(1));
  }
}

TrackerState::~TrackerState() { StopReaper(); }

void TrackerState::Log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

void TrackerState::Flush(std::vector<std::shared_ptr<LeaseListener>> touched) {
  for (const auto& listener : touched) listener->Flush();
}

void TrackerState::StartReaper() {
  if (reaper_.joinable()) return;
  reaper_stop_ = false;
  reaper_ = std::thread([this] {
    const auto period = std::max(options_.agent_timeout / 4, std::chrono::milliseconds(1));
    std::unique_lock lock(reaper_mu_);
    while (!reaper_cv_.wait_for(lock, period, [&] { return reaper_stop_; })) {
      lock.unlock();
      ExpireSilentAgents();
      lock.lock();
    }
  });
}

void TrackerState::StopReaper() {
  {
    std::lock_guard lock(reaper_mu_);
    reaper_stop_ = true;
  }
  reaper_cv_.notify_all();
  if (reaper_.joinable()) reaper_.join();
}

absl::StatusOr<v1::RegisterReply> TrackerState::Register(const v1::RegisterRequest& request) {
  if (request.key().empty()) return absl::InvalidArgumentError("register: empty key");
  if (request.address().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("register of key '", request.key(), "': empty address"));
  }
  if (request.capacity() < 0 || request.capacity() > kMaxCapacity) {
    return absl::InvalidArgumentError(absl::StrCat("register of ", request.address(), ": capacity ",
                                                   request.capacity(), " not in [0, ", kMaxCapacity, "]"));
  }
  v1::RegisterReply reply;
  std::vector<std::shared_ptr<LeaseListener>> touched;
  absl::Status refused;
  {
    std::lock_guard lock(mu_);
    // The same address again means the agent restarted: its old leases talk to a dead process,
    // whether or not the new one may join (it may be another machine now).
    if (const AgentRecord* old = registry_.FindByAddress(request.address())) {
      DropAgentLocked(old->id, absl::StrCat("agent at ", request.address(), " registered again"));
    }
    for (const auto& [id, other] : registry_.agents()) {
      if (other.key != request.key()) continue;
      const std::string mismatch = PoolFactsMismatch(other.facts, request.facts());
      if (!mismatch.empty()) {
        refused = absl::FailedPreconditionError(absl::StrCat(
            "register of ", request.address(), ": devices of key '", request.key(),
            "' must be the same machine (one target string), but this one reports ", mismatch, " (",
            other.address, "); give it a key of its own"));
      }
      break;  // every device of the pool passed this check
    }
    if (refused.ok()) {
      const AgentRecord& agent = registry_.Add(request, options_.now());
      leases_.AddDevice(agent.id, agent.key, agent.address, agent.capacity);
      Log(absl::StrCat("agent ", agent.id, " registered: key '", agent.key, "' at ", agent.address,
                       ", capacity ", agent.capacity));
      reply.set_agent_id(agent.id);
    }
    touched = leases_.TakeTouched();
  }
  Flush(std::move(touched));  // a refused registration may still have revoked its old entry's leases
  if (!refused.ok()) return refused;
  reply.set_heartbeat_interval_ms(options_.heartbeat_interval.count());
  reply.set_agent_timeout_ms(options_.agent_timeout.count());
  return reply;
}

absl::Status TrackerState::Heartbeat(const std::string& agent_id) {
  std::lock_guard lock(mu_);
  if (!registry_.Touch(agent_id, options_.now())) {
    return absl::NotFoundError(absl::StrCat("unknown agent '", agent_id, "': register again"));
  }
  return absl::OkStatus();
}

absl::Status TrackerState::Unregister(const std::string& agent_id) {
  std::vector<std::shared_ptr<LeaseListener>> touched;
  {
    std::lock_guard lock(mu_);
    if (registry_.Find(agent_id) == nullptr) {
      return absl::NotFoundError(absl::StrCat("unknown agent '", agent_id, "'"));
    }
    DropAgentLocked(agent_id, "agent left the farm");
    touched = leases_.TakeTouched();
  }
  Flush(std::move(touched));
  return absl::OkStatus();
}

void TrackerState::DropAgentLocked(std::string agent_id, const std::string& reason) {
  const int revoked = leases_.RemoveDevice(agent_id, reason);
  registry_.Remove(agent_id);
  Log(absl::StrCat("agent ", agent_id, " dropped (", reason, "); ", revoked, " lease(s) revoked"));
}

absl::StatusOr<TicketId> TrackerState::Acquire(const v1::AcquireRequest& request,
                                               const std::string& client,
                                               std::shared_ptr<LeaseListener> listener) {
  if (request.key().empty()) return absl::InvalidArgumentError("acquire: empty key");
  TicketId ticket = 0;
  std::vector<std::shared_ptr<LeaseListener>> touched;
  {
    std::lock_guard lock(mu_);
    ticket = leases_.Request(request.key(), request.priority(), client, std::move(listener));
    touched = leases_.TakeTouched();
  }
  Flush(std::move(touched));
  return ticket;
}

void TrackerState::Release(TicketId ticket) {
  std::vector<std::shared_ptr<LeaseListener>> touched;
  {
    std::lock_guard lock(mu_);
    leases_.Release(ticket);
    touched = leases_.TakeTouched();
  }
  Flush(std::move(touched));
}

int TrackerState::ExpireSilentAgents() {
  std::vector<std::shared_ptr<LeaseListener>> touched;
  int dropped = 0;
  {
    std::lock_guard lock(mu_);
    const Clock::time_point now = options_.now();
    for (const std::string& id : registry_.SilentSince(now - options_.agent_timeout)) {
      const int64_t silent_ms = MillisSince(registry_.Find(id)->last_seen, now);
      DropAgentLocked(id, absl::StrCat("agent silent for ", silent_ms, " ms"));
      ++dropped;
    }
    touched = leases_.TakeTouched();
  }
  Flush(std::move(touched));
  return dropped;
}

void TrackerState::RevokeAll(const std::string& reason) {
  std::vector<std::shared_ptr<LeaseListener>> touched;
  {
    std::lock_guard lock(mu_);
    leases_.RevokeAll(reason);
    touched = leases_.TakeTouched();
  }
  Flush(std::move(touched));
}

v1::ListDevicesReply TrackerState::ListDevices(const std::string& key) const {
  v1::ListDevicesReply reply;
  std::lock_guard lock(mu_);
  const Clock::time_point now = options_.now();
  std::vector<const AgentRecord*> agents;
  for (const auto& [id, agent] : registry_.agents()) {
    if (key.empty() || agent.key == key) agents.push_back(&agent);
  }
  std::sort(agents.begin(), agents.end(), [](const AgentRecord* a, const AgentRecord* b) {
    return std::tie(a->key, a->address) < std::tie(b->key, b->address);
  });
  // Pools come from devices and from queued requests (a key may be waited for before any
  // agent of it registers).
  std::map<std::string, v1::PoolInfo> pools;
  for (const auto& [pool_key, waiting] : leases_.WaitingByKey()) {
    if (key.empty() || pool_key == key) pools[pool_key].set_waiting(waiting);
  }
  for (const AgentRecord* agent : agents) {
    const DeviceUsage usage = leases_.Usage(agent->id);
    v1::DeviceInfo* d = reply.add_devices();
    d->set_agent_id(agent->id);
    d->set_key(agent->key);
    d->set_address(agent->address);
    d->set_agent_name(agent->name);
    *d->mutable_facts() = agent->facts;
    d->set_capacity(agent->capacity);
    d->set_leased(usage.leased);
    d->set_state(usage.leased > 0 ? v1::DEVICE_STATE_BUSY : v1::DEVICE_STATE_IDLE);
    for (const std::string& holder : usage.holders) d->add_holders(holder);
    d->set_last_seen_ms_ago(MillisSince(agent->last_seen, now));
    d->set_registered_ms_ago(MillisSince(agent->registered, now));
    v1::PoolInfo& pool = pools[agent->key];
    pool.set_devices(pool.devices() + 1);
    pool.set_capacity(pool.capacity() + agent->capacity);
    pool.set_leased(pool.leased() + usage.leased);
  }
  for (auto& [pool_key, pool] : pools) {
    pool.set_key(pool_key);
    *reply.add_pools() = std::move(pool);
  }
  return reply;
}

}  // namespace tunefarm::tracker
