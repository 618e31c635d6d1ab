// Pipelined rounds (docs/tuner.md "Serial or pipelined builds"): while a round of one task
// measures on devices of other machines, the search for the task the scheduler will most likely
// pick next runs on the tuner's cores, so the devices do not wait for it after the round.
//
// A prefetched batch is kept for its task until that task's next round takes it: its programs
// stay valid, and nothing of that task was measured in between, so none of them has a record.
// But it was chosen by the cost model of its time, so after kMaxAgeRounds rounds of the job it
// is dropped and the task searches afresh. The search reads the job's cost model: Wait() must
// return before the model is retrained (SearchPolicy::Observe of any task).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tuner/search_policy.h"

namespace tunefarm::tuner {

class BatchPrefetch {
 public:
  static constexpr int kMaxAgeRounds = 3;

  BatchPrefetch() = default;
  ~BatchPrefetch() { Wait(); }
  BatchPrefetch(const BatchPrefetch&) = delete;
  BatchPrefetch& operator=(const BatchPrefetch&) = delete;

  // Starts searching `policy`'s next batch of `n` programs for `task` on a thread, during the
  // job's round `round`, unless a batch for it is held already or a search runs. `policy` and
  // `measured` must stay untouched until Wait() returns.
  void Start(int task, int round, SearchPolicy* policy, int n, const std::set<std::string>* measured);
  // Waits for the search in flight, if any.
  void Wait();
  // The batch prefetched for `task`, removed from here; nullopt when there is none or it is
  // older than kMaxAgeRounds at the job's round `round` (waits for the search in flight first).
  std::optional<std::vector<Candidate>> Take(int task, int round);
  bool Holds(int task) const { return batches_.count(task) > 0 || running_task_ == task; }
  int64_t started() const { return started_; }

 private:
  struct Held {
    int round = 0;  // the job's round during which it was searched
    std::vector<Candidate> batch;
  };
  std::thread thread_;
  int running_task_ = -1;
  Held running_;
  std::map<int, Held> batches_;
  int64_t started_ = 0;
};

}  // namespace tunefarm::tuner
