// A tuner's hold on a job in the database, so that one tuner runs it at a time.
//
// Two tuner services on one database used to both resume the same unfinished job and do its
// work twice. Now a tuner claims a job before it runs it (TuningDatabase::ClaimJob), renews
// the claim while it works, and releases it when it stops. A tuner that dies stops renewing:
// its lease runs out (kLease) and the job is free again, shown as "interrupted" meanwhile.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "db/tuning_database.h"

namespace tunefarm::tuner {

class JobClaim {
 public:
  // Long enough for the longest step between two KeepAlive calls (a cost-model retrain, one
  // batch built and measured); short enough that a dead tuner's job is soon free.
  static constexpr std::chrono::milliseconds kLease = std::chrono::minutes(2);

  // Claims `job_id` for this process. FailedPrecondition naming the holder and until when when
  // a live tuner holds it; the database's error when the job is unknown or has ended.
  static absl::StatusOr<std::unique_ptr<JobClaim>> Acquire(db::TuningDatabase* db, const std::string& job_id);

  // Renews the lease once a sixth of it has passed (cheap to call often); false when the claim
  // was lost: another tuner took the job after this one had not renewed for a whole lease.
  bool KeepAlive();

  // Releases the claim: the job is free at once (and "interrupted" until it is resumed).
  ~JobClaim();
  JobClaim(const JobClaim&) = delete;
  JobClaim& operator=(const JobClaim&) = delete;

  const std::string& owner() const { return owner_; }

 private:
  JobClaim(db::TuningDatabase* db, std::string job_id, std::string owner);

  db::TuningDatabase* db_;
  std::string job_id_;
  std::string owner_;
  std::chrono::steady_clock::time_point renewed_;
  bool lost_ = false;
};

// "<hostname>:<pid>:<random>": who holds a claim, readable in `db jobs`. A fresh one per call,
// so that two runs in one process (a service and a test, say) exclude each other too.
std::string NewOwnerId();

// True when `owner` names a process of this host that no longer exists (a killed tuner): its
// claim need not wait for the lease. A reused pid reads as alive, which only means waiting.
bool IsDeadLocalOwner(const std::string& owner);

}  // namespace tunefarm::tuner
