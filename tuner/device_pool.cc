#include "tuner/device_pool.h"

#include <deque>
#include <mutex>
#include <set>
#include <thread>

#include "common/strings.h"
#include "tuner/device_locality.h"
#include "tuner/parallel_work.h"

namespace tunefarm::tuner {
namespace {

using namespace std::chrono_literals;

// A job's first device is asked for at twice its priority and extra devices one below, so that
// among jobs of one priority a job waiting for its first is always served before another job's
// extras, and a job of higher priority before any job below it.
int FirstDeviceRank(int job_priority) { return 2 * job_priority; }
int ExtraDeviceRank(int job_priority) { return 2 * job_priority - 1; }
// How long a request for an extra device (one the tracker showed free) may take to be granted.
constexpr auto kExtraGrantWait = 200ms;
// Between requests when the tracker or the granted agent cannot be reached.
constexpr auto kRetryPause = 1s;

// Transient failures of a request while waiting: the tracker restarting or unreachable, or a
// granted agent that died before the tracker noticed. Anything else (a wrong token) is final.
std::string Text(const absl::Status& s) { return std::string(s.message()); }

bool IsTransient(const absl::Status& s) {
  return s.code() == absl::StatusCode::kUnavailable || s.code() == absl::StatusCode::kAborted ||
         s.code() == absl::StatusCode::kDeadlineExceeded || s.code() == absl::StatusCode::kCancelled;
}

}  // namespace

bool IsDeviceLoss(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnavailable:       // revoked lease, dead or unreachable agent
    case absl::StatusCode::kDeadlineExceeded:  // a hung agent: the call outlived call_timeout
    case absl::StatusCode::kCancelled:
    case absl::StatusCode::kAborted:
    case absl::StatusCode::kInternal:  // a stream cut mid-message
    case absl::StatusCode::kUnknown:
      return true;
    default:
      return false;
  }
}

DevicePool::DevicePool(DevicePoolOptions options) : options_(std::move(options)) {}

bool DevicePool::AnyDeviceOnThisHost() const {
  for (const Active& a : active_)
    if (a.on_this_host) return true;
  return false;
}

DevicePool::~DevicePool() = default;

void DevicePool::Log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

void DevicePool::Changed(bool waiting) const {
  if (options_.on_change) options_.on_change(waiting, static_cast<int>(active_.size()));
}

absl::StatusOr<std::unique_ptr<DevicePool>> DevicePool::Open(DevicePoolOptions options) {
  auto channel = wire::MakeChannel(options.farm.tracker, options.farm.tls);
  if (!channel.ok()) return channel.status();
  std::unique_ptr<DevicePool> pool(new DevicePool(std::move(options)));
  pool->tracker_ = std::make_unique<wire::TrackerClient>(*channel, pool->options_.farm.token);
  if (absl::Status s = pool->WaitForDevice(); !s.ok()) return s;
  pool->first_info_ = pool->active_.front().session->device();
  pool->first_address_ = pool->active_.front().session->grant().device_address();
  pool->Balance();
  return pool;
}

void DevicePool::Add(std::unique_ptr<FarmSession> session) {
  DeviceUse use;
  use.address = session->grant().device_address();
  usage_.push_back(use);
  active_.push_back({std::move(session), usage_.size() - 1, DeviceIsOnThisHost(use.address)});
  if (active_.size() > 1) Log(StrCat("measuring on ", active_.size(), " devices (", use.address, " joined)"));
  Changed(false);
}

absl::Status DevicePool::WaitForDevice() {
  const FarmOptions& farm = options_.farm;
  const auto start = std::chrono::steady_clock::now();
  auto stopping = [&] { return options_.stop && options_.stop(); };
  auto timed_out = [&] {
    return farm.acquire_timeout.count() > 0 && std::chrono::steady_clock::now() - start > farm.acquire_timeout;
  };
  Changed(true);
  while (true) {
    auto session = FarmSession::Request(farm, FirstDeviceRank(options_.priority));
    if (!session.ok()) return session.status();
    absl::StatusOr<bool> ready = false;
    while (ready.ok() && !*ready && !stopping() && !timed_out()) ready = (*session)->WaitReady(100ms);
    if (ready.ok() && *ready) {
      Add(std::move(*session));
      return absl::OkStatus();
    }
    if (stopping()) return absl::CancelledError("stopped while waiting for a device");
    if (timed_out()) {
      return absl::DeadlineExceededError(StrCat("no '", farm.device_key, "' device granted by tracker ", farm.tracker,
                                                " within ", farm.acquire_timeout.count(), " ms"));
    }
    if (!IsTransient(ready.status())) return ready.status();
    Log(StrCat(Text(ready.status()), "; asking again"));
    for (auto until = std::chrono::steady_clock::now() + kRetryPause;
         std::chrono::steady_clock::now() < until && !stopping();)
      std::this_thread::sleep_for(20ms);
  }
}

void DevicePool::Balance() {
  if (options_.max_devices <= 1 || active_.empty()) return;
  auto list = tracker_->ListDevices(options_.farm.device_key);
  if (!list.ok()) return;  // the next round tries again; the devices held are unaffected
  int waiting = 0, free = 0;
  for (const v1::PoolInfo& p : list->pools())
    if (p.key() == options_.farm.device_key) waiting = p.waiting(), free = p.capacity() - p.leased();
  if (waiting > 0) {
    if (active_.size() > 1) {
      DeviceUse& use = usage_[active_.back().use];
      use.given_back = true;
      Log(StrCat("gave ", use.address, " back: another request waits for key '", options_.farm.device_key, "'"));
      active_.pop_back();
      Changed(false);
    }
    return;
  }
  while (free-- > 0 && static_cast<int>(active_.size()) < options_.max_devices) {
    auto session = FarmSession::Request(options_.farm, ExtraDeviceRank(options_.priority));
    if (!session.ok()) return;
    absl::StatusOr<bool> ready = (*session)->WaitReady(kExtraGrantWait);
    if (!ready.ok() || !*ready) return;  // taken meanwhile: dropping the request cancels it
    Add(std::move(*session));
  }
}

absl::Status DevicePool::Measure(const v1::MeasureOptions& options, const BuiltKernel& reference,
                                 const FarmSession::Batch& batch,
                                 const std::function<void(const v1::MeasureResult&)>& on_result) {
  auto stopping = [&] { return options_.stop && options_.stop(); };
  std::mutex mu;  // guards everything below, usage_ and the calls of on_result
  std::deque<size_t> todo;  // indices into batch
  for (size_t i = 0; i < batch.size(); ++i) todo.push_back(i);
  std::vector<int> attempts(batch.size(), 0);
  std::set<uint64_t> done;  // ids with a result
  absl::Status fatal;
  // No farm call larger than the first pass's: after devices are lost, the rest goes out in
  // calls of the same size, so a call stays as long as the job expects between stop checks.
  const size_t max_share = (batch.size() + std::max<size_t>(active_.size(), 1) - 1) / std::max<size_t>(active_.size(), 1);

  while (true) {
    {
      std::lock_guard lock(mu);
      if (todo.empty()) break;
    }
    if (stopping()) return absl::OkStatus();
    if (active_.empty())
      if (absl::Status s = WaitForDevice(); !s.ok()) return s;
    const size_t devices = active_.size();
    const size_t share = std::max<size_t>(1, std::min(max_share, (todo.size() + devices - 1) / devices));
    std::vector<absl::Status> lost(devices);
    RunOnWorkers(devices, devices, [&](size_t d) {
      Active& device = active_[d];
      while (true) {
        std::vector<size_t> taken;
        FarmSession::Batch part;
        {
          std::lock_guard lock(mu);
          while (!todo.empty() && taken.size() < share && fatal.ok()) {
            taken.push_back(todo.front());
            part.push_back(batch[todo.front()]);
            todo.pop_front();
          }
          if (taken.empty()) return;
          ++usage_[device.use].batches;
        }
        absl::Status s = device.session->Measure(options, reference, part, [&](const v1::MeasureResult& r) {
          std::lock_guard lock(mu);
          if (!done.insert(r.id()).second) return;
          ++usage_[device.use].candidates;
          on_result(r);
        });
        // (`stop` is polled by the calling thread only, between dispatches: it may touch the
        // job's database connection, which is not shared across threads.)
        if (s.ok()) continue;
        std::lock_guard lock(mu);
        // What it had not measured goes back, for another device.
        for (size_t i : taken) {
          if (done.count(batch[i].id)) continue;
          if (++attempts[i] >= kMaxAttempts && fatal.ok()) {
            fatal = absl::Status(s.code(), StrCat("candidate ", batch[i].id, " failed on ", kMaxAttempts,
                                                  " devices; the last: ", Text(s)));
          }
          todo.push_back(i);
        }
        if (!IsDeviceLoss(s) && fatal.ok()) fatal = s;
        lost[d] = s;
        return;
      }
    });
    if (!fatal.ok()) return fatal;
    for (size_t d = devices; d-- > 0;) {
      if (lost[d].ok()) continue;
      DeviceUse& use = usage_[active_[d].use];
      use.lost = true;
      Log(StrCat("lost device ", use.address, " (", Text(lost[d]), "); what it had not measured goes to ",
                 active_.size() > 1 ? "another device" : "the next device granted"));
      active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(d));
      Changed(false);
    }
  }
  Balance();
  return absl::OkStatus();
}

}  // namespace tunefarm::tuner
