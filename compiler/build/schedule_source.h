// Where the compiler gets a schedule for a task. The build never talks to the tuning database:
// the CLI connects a ScheduleSource to the SQLite store, tests pass an in-memory one, and a
// task no source knows falls back to the default rules (DESIGN.md "Layout").
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace tunefarm::build {

struct ScheduleChoice {
  std::string schedule_json;  // the step list, as stored in a tuning record
  std::string origin;         // shown by `inspect`, e.g. "db:<record uuid>"
};

class ScheduleSource {
 public:
  virtual ~ScheduleSource() = default;
  // Up to `limit` known schedules of `workload_key` on the canonical `target` at `threads`,
  // best first. The build takes the first that replays and lowers, and reports the ones it
  // skips: a record imported from elsewhere, or tuned by an older tunefarm, may not.
  virtual std::vector<ScheduleChoice> Candidates(const std::string& workload_key, const std::string& target,
                                                 int threads, int limit) const = 0;
};

// A fixed table of schedules (tests, and schedules given on the command line).
class InMemoryScheduleSource : public ScheduleSource {
 public:
  // Adds a candidate after those already added for the same key (so: best first).
  void Add(const std::string& workload_key, const std::string& target, int threads, ScheduleChoice choice);
  std::vector<ScheduleChoice> Candidates(const std::string& workload_key, const std::string& target, int threads,
                                         int limit) const override;

 private:
  std::map<std::tuple<std::string, std::string, int>, std::vector<ScheduleChoice>> table_;
};

}  // namespace tunefarm::build
