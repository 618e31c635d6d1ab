#include "tuner/job_claim.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <random>
#include <string_view>
#include <vector>

#include "common/strings.h"
#include "common/unix_time.h"

namespace tunefarm::tuner {
namespace {

std::string HostName() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "unknown-host";
  return host;
}

}  // namespace

bool IsDeadLocalOwner(const std::string& owner) {
  const std::vector<std::string_view> parts = StrSplit(owner, ':');
  int64_t pid = 0;
  if (parts.size() != 3 || parts[0] != HostName() || !ParseInt64(parts[1], &pid) || pid <= 0) return false;
  return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

absl::StatusOr<std::unique_ptr<JobClaim>> JobClaim::Acquire(db::TuningDatabase* db, const std::string& job_id) {
  const std::string owner = NewOwnerId();
  absl::StatusOr<bool> claimed = db->ClaimJob(job_id, owner, kLease.count());
  if (claimed.ok() && !*claimed) {
    absl::StatusOr<db::Job> job = db->GetJob(job_id);
    if (job.ok() && IsDeadLocalOwner(job->owner)) claimed = db->ClaimJob(job_id, owner, kLease.count(), job->owner);
  }
  if (!claimed.ok()) return claimed.status();
  if (!*claimed) {
    absl::StatusOr<db::Job> job = db->GetJob(job_id);
    const std::string holder = job.ok() ? job->owner : "another tuner";
    const double seconds_left =
        job.ok() ? static_cast<double>(job->lease_until_unix_ms - UnixMillisNow()) / 1e3 : kLease.count() / 1e3;
    return absl::FailedPreconditionError(StrCat("job ", job_id, " is being run by ", holder,
                                                "; it can be resumed once that tuner stops (or within ",
                                                static_cast<int64_t>(seconds_left + 1), " s if it died)"));
  }
  return std::unique_ptr<JobClaim>(new JobClaim(db, job_id, owner));
}

std::string NewOwnerId() {
  static std::atomic<uint32_t> counter{std::random_device{}()};
  return StrCat(HostName(), ":", static_cast<int64_t>(getpid()), ":", counter.fetch_add(1) % 1000000);
}

JobClaim::JobClaim(db::TuningDatabase* db, std::string job_id, std::string owner)
    : db_(db), job_id_(std::move(job_id)), owner_(std::move(owner)), renewed_(std::chrono::steady_clock::now()) {}

bool JobClaim::KeepAlive() {
  if (lost_) return false;
  const auto now = std::chrono::steady_clock::now();
  if (now - renewed_ < kLease / 6) return true;
  absl::StatusOr<bool> claimed = db_->ClaimJob(job_id_, owner_, kLease.count());
  // A database error (busy for long, or the job ended meanwhile) keeps the claim for now: the
  // lease still holds, and the next call tries again.
  if (claimed.ok() && !*claimed) lost_ = true;
  if (claimed.ok() && *claimed) renewed_ = now;
  return !lost_;
}

JobClaim::~JobClaim() {
  if (!lost_) (void)db_->ReleaseJob(job_id_, owner_);
}

}  // namespace tunefarm::tuner
