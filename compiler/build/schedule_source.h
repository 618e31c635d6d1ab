// Where the compiler gets a schedule for a task. The build never talks to the tuning database:
// the CLI connects a ScheduleSource to the SQLite store, tests pass an in-memory one, and a
// task no source knows falls back to the default rules (DESIGN.md "Layout").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>

namespace tunefarm::build {

struct ScheduleChoice {
  std::string schedule_json;  // the step list, as stored in a tuning record
  std::string origin;         // shown by `inspect`, e.g. "db:<record uuid>"
};

class ScheduleSource {
 public:
  virtual ~ScheduleSource() = default;
  // The best known schedule of `workload_key` on the canonical `target` at `threads`, if any.
  virtual std::optional<ScheduleChoice> Find(const std::string& workload_key, const std::string& target,
                                             int threads) const = 0;
};

// A fixed table of schedules (tests, and schedules given on the command line).
class InMemoryScheduleSource : public ScheduleSource {
 public:
  void Add(const std::string& workload_key, const std::string& target, int threads, ScheduleChoice choice);
  std::optional<ScheduleChoice> Find(const std::string& workload_key, const std::string& target,
                                     int threads) const override;

 private:
  std::map<std::tuple<std::string, std::string, int>, ScheduleChoice> table_;
};

}  // namespace tunefarm::build
