#include "tests/db/db_test_util.h"

#include <stdlib.h>

#include <filesystem>

#include "db/record_id.h"
#include "gtest/gtest.h"

namespace tunefarm::db::testing {

TuningRecord MakeRecord(const std::string& workload_key, const std::string& target, int threads,
                        const std::string& schedule_hash, std::vector<double> costs_sec,
                        ErrorKind error_kind) {
  TuningRecord r;
  r.record_id = *NewUuidV4();
  r.workload_key = workload_key;
  r.target = target;
  r.threads = threads;
  r.device_key = "test-device";
  r.schedule_json = R"({"steps":[["split",0,1,[4,8]]],"hash":")" + schedule_hash + R"("})";
  r.schedule_hash = schedule_hash;
  r.costs_sec = std::move(costs_sec);
  r.error_kind = error_kind;
  r.error_code = error_kind == ErrorKind::kCrash ? 11 : 0;
  r.error_message = error_kind == ErrorKind::kNone ? "" : "test failure";
  r.max_abs_error = 1e-6;
  r.max_rel_error = 2e-6;
  r.created_unix_ms = 1'700'000'000'000;
  r.measured_unix_ms = 1'700'000'000'500;
  return r;
}

}  // namespace tunefarm::db::testing
