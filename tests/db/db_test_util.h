// Helpers shared by the db/ tests.
#pragma once

#include <string>
#include <vector>

#include "db/tuning_record.h"

namespace tunefarm::db::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A record with a fresh UUID; an error kind other than kNone keeps the costs
// (a wrong kernel can be fast) so that the tests see it is still not chosen.
TuningRecord MakeRecord(const std::string& workload_key, const std::string& target, int threads,
                        const std::string& schedule_hash, std::vector<double> costs_sec,
                        ErrorKind error_kind = ErrorKind::kNone);

}  // namespace tunefarm::db::testing
