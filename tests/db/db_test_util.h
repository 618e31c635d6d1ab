// Helpers shared by the db/ tests.
#pragma once

#include <string>
#include <vector>

#include "db/tuning_record.h"
#include "tests/common/test_temp_dir.h"

namespace tunefarm::db::testing {

// A scratch directory (tests/common/test_temp_dir.h).
using TempDir = ::tunefarm::testing::TempDir;

// A record with a fresh UUID; an error kind other than kNone keeps the costs
// (a wrong kernel can be fast) so that the tests see it is still not chosen.
TuningRecord MakeRecord(const std::string& workload_key, const std::string& target, int threads,
                        const std::string& schedule_hash, std::vector<double> costs_sec,
                        ErrorKind error_kind = ErrorKind::kNone);

}  // namespace tunefarm::db::testing
