#include "tuner/record_writer.h"

namespace tunefarm::tuner {

void RecordWriter::Add(db::TuningRecord record) {
  if (pending_.empty()) oldest_ = std::chrono::steady_clock::now();
  pending_.push_back(std::move(record));
}

bool RecordWriter::Due(size_t group) const {
  if (pending_.empty()) return false;
  return pending_.size() >= group || std::chrono::steady_clock::now() - oldest_ >= max_unwritten_;
}

absl::StatusOr<size_t> RecordWriter::Flush() {
  if (pending_.empty()) return 0;
  absl::StatusOr<db::WriteCounts> written = db_->AddRecords(pending_);
  if (!written.ok()) return written.status();
  const size_t n = pending_.size();
  pending_.clear();
  return n;
}

}  // namespace tunefarm::tuner
