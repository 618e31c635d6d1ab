// A job's records on their way to the database, written in groups: one transaction for a farm
// call's results (docs/tuner.md "Records"), or sooner once the oldest unwritten record has
// waited `max_unwritten`, so a tuner killed in the middle of a slow batch loses at most that
// much measurement. A record per transaction cost 0.3 ms a trial, two fsyncs in WAL mode.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "db/tuning_database.h"
#include "db/tuning_record.h"

namespace tunefarm::tuner {

class RecordWriter {
 public:
  static constexpr std::chrono::milliseconds kMaxUnwritten{1000};

  explicit RecordWriter(db::TuningDatabase* db, std::chrono::milliseconds max_unwritten = kMaxUnwritten)
      : db_(db), max_unwritten_(max_unwritten) {}

  void Add(db::TuningRecord record);
  // Whether the queue should be written now: it holds `group` records (a farm call's worth),
  // or its oldest record has waited max_unwritten.
  bool Due(size_t group) const;
  // Writes every queued record in one transaction and returns how many; on an error nothing
  // of the group is written and the queue keeps it.
  absl::StatusOr<size_t> Flush();
  size_t pending() const { return pending_.size(); }

 private:
  db::TuningDatabase* db_;
  std::chrono::milliseconds max_unwritten_;
  std::vector<db::TuningRecord> pending_;
  std::chrono::steady_clock::time_point oldest_;
};

}  // namespace tunefarm::tuner
