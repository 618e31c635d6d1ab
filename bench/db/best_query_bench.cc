// best_query_bench: the tuning database at scale (issue 14, part 6).
//
// Fills a temporary database with --records records (default 1,000,000) over
// --workloads workloads (default 1000) x 2 targets x 2 thread counts, then
// times best() and, as the peer, the same query with the table scanned
// (NOT INDEXED) on a raw connection, and prints both and their ratio; then
// top-k (k = 10), an export of every record to JSON lines, the import of that
// file into a new database, and `db check`'s integrity check, each beside the
// aim the issue sets (best / top-k <= 5 ms, import <= 60 s, check <= 30 s).
//
//   best_query_bench [--records N] [--workloads W] [--calls C] [--dir DIR]
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "db/record_id.h"
#include "db/record_row.h"
#include "db/tuning_database.h"
#include "common/command_flags.h"
#include "common/temp_dir.h"

namespace {

using tunefarm::TempDir;
using tunefarm::db::ErrorKind;
using tunefarm::db::TuningDatabase;
using tunefarm::db::TuningRecord;
using Clock = std::chrono::steady_clock;

const char* const kTargets[] = {"llvm -mtriple=x86_64-linux-gnu -mcpu=znver3",
                                "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72"};
const int kThreads[] = {1, 4};

struct Key {
  std::string workload;
  const char* target;
  int threads;
};

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

double Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  size_t index = static_cast<size_t>(p * static_cast<double>(values.size() - 1));
  return values[index];
}

std::string WorkloadKey(int i) { return "v1-" + std::to_string(1000003ull * (i + 1)); }

bool Fill(TuningDatabase& db, int records, int workloads, std::mt19937_64& rng) {
  constexpr int kBatch = 50'000;
  std::lognormal_distribution<double> cost(std::log(1e-3), 0.8);
  std::uniform_int_distribution<int> workload(0, workloads - 1);
  std::vector<TuningRecord> batch;
  for (int i = 0; i < records; ++i) {
    TuningRecord r;
    r.record_id = *tunefarm::db::NewUuidV4();
    r.workload_key = WorkloadKey(workload(rng));
    r.target = kTargets[i % 2];
    r.threads = kThreads[(i / 2) % 2];
    r.device_key = "bench";
    r.schedule_hash = std::to_string(rng());
    r.schedule_json = R"({"steps":[["SP",2,0,512,[8,4,2],1],["RE",2,[0,3,6,1,4,7,2,5,8]],)"
                      R"(["FU",2,[0,1]],["AN",2,0,3],["AN",2,5,6]],"seed":)" +
                      r.schedule_hash + "}";
    r.costs_sec = {cost(rng), cost(rng), cost(rng)};
    if (i % 20 == 0) r.error_kind = ErrorKind::kTimeout;  // some failures, as in real tuning
    r.created_unix_ms = r.measured_unix_ms = 1'700'000'000'000 + i;
    batch.push_back(std::move(r));
    if (batch.size() == kBatch || i + 1 == records) {
      absl::StatusOr<tunefarm::db::WriteCounts> counts = db.AddRecords(batch);
      if (!counts.ok()) {
        std::fprintf(stderr, "fill failed: %s\n", counts.status().ToString().c_str());
        return false;
      }
      batch.clear();
    }
  }
  return true;
}

// The best() query with the index ruled out: what best() would cost unindexed.
double NaiveScanSeconds(const std::string& path, const Key& key, std::string* record_id) {
  std::string sql = tunefarm::db::internal::BestQuery(tunefarm::db::TuningDatabase::SchemaVersion());
  sql.replace(sql.find("FROM records r"), std::strlen("FROM records r"),
              "FROM records r NOT INDEXED");
  sqlite3* raw = nullptr;
  sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(raw, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "naive query: %s\n", sqlite3_errmsg(raw));
    std::exit(1);
  }
  sqlite3_bind_text(stmt, 1, key.workload.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt, 2, key.target, -1, SQLITE_STATIC);
  sqlite3_bind_int(stmt, 3, key.threads);
  sqlite3_bind_int(stmt, 4, 1);
  Clock::time_point start = Clock::now();
  if (sqlite3_step(stmt) == SQLITE_ROW) {
    *record_id = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  double seconds = Seconds(Clock::now() - start);
  sqlite3_finalize(stmt);
  sqlite3_close(raw);
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const tunefarm::CommandSpec spec = {
      "best_query_bench",
      "a database of N records: fill, best/top-k, import and check times",
      {{"records", 0, "N", "records (default 1,000,000)"},
       {"workloads", 0, "W", "workloads they spread over (default 1,000)"},
       {"calls", 0, "C", "best/top-k queries timed (default 20,000)"},
       {"dir", 0, "DIR", "where the database goes (default: a temporary directory)"}},
      {}};
  absl::StatusOr<tunefarm::ParsedFlags> flags = tunefarm::ParsedFlags::Parse(spec, argc, argv);
  absl::StatusOr<int64_t> records_flag = flags.ok() ? flags->GetInt("records", 1'000'000, 1, 1'000'000'000) : flags.status();
  absl::StatusOr<int64_t> workloads_flag = flags.ok() ? flags->GetInt("workloads", 1000, 1, 1'000'000'000) : flags.status();
  absl::StatusOr<int64_t> calls_flag = flags.ok() ? flags->GetInt("calls", 20'000, 1, 1'000'000'000) : flags.status();
  for (const absl::Status& s : {records_flag.status(), workloads_flag.status(), calls_flag.status()}) {
    if (s.ok()) continue;
    std::fprintf(stderr, "%s\n%s", std::string(s.message()).c_str(), tunefarm::Usage(spec).c_str());
    return 2;
  }
  if (flags->help()) {
    std::fprintf(stderr, "%s", tunefarm::Usage(spec).c_str());
    return 0;
  }
  const int records = static_cast<int>(*records_flag), workloads = static_cast<int>(*workloads_flag),
            calls = static_cast<int>(*calls_flag);
  absl::StatusOr<TempDir> dir = TempDir::Create("tunefarm-bench", flags->Get("dir"));
  if (!dir.ok()) {
    std::fprintf(stderr, "%s\n", std::string(dir.status().message()).c_str());
    return 2;
  }
  std::string path = dir->File("bench.db");
  std::mt19937_64 rng(42);
  int rc = 0;
  {
    absl::StatusOr<std::unique_ptr<TuningDatabase>> db = TuningDatabase::Open(path);
    if (!db.ok()) {
      std::fprintf(stderr, "%s\n", db.status().ToString().c_str());
      return 1;
    }
    Clock::time_point fill_start = Clock::now();
    if (!Fill(**db, records, workloads, rng)) return 1;
    double fill = Seconds(Clock::now() - fill_start);
    std::printf("filled %d records over %d workloads in %.1f s (%.0f records/s), file %.0f MiB\n",
                records, workloads, fill, records / fill,
                std::filesystem::file_size(path) / 1048576.0);

    std::uniform_int_distribution<int> workload(0, workloads - 1);
    std::vector<Key> keys;
    for (int i = 0; i < calls; ++i) {
      keys.push_back({WorkloadKey(workload(rng)), kTargets[rng() % 2], kThreads[rng() % 2]});
    }
    std::vector<double> latencies;
    latencies.reserve(keys.size());
    int found = 0;
    for (const Key& key : keys) {
      Clock::time_point start = Clock::now();
      absl::StatusOr<std::optional<TuningRecord>> best =
          (*db)->Best(key.workload, key.target, key.threads);
      latencies.push_back(Seconds(Clock::now() - start));
      if (!best.ok()) {
        std::fprintf(stderr, "best(): %s\n", best.status().ToString().c_str());
        return 1;
      }
      found += best->has_value();
    }
    double median = Percentile(latencies, 0.5);
    std::printf("best(): %d calls, %d found, median %.1f us, p99 %.1f us\n", calls, found,
                median * 1e6, Percentile(latencies, 0.99) * 1e6);

    // The peer: the same query scanning the table. Also a cross-check.
    std::vector<double> scans;
    for (int i = 0; i < 5; ++i) {
      std::string naive_id;
      scans.push_back(NaiveScanSeconds(path, keys[i], &naive_id));
      absl::StatusOr<std::optional<TuningRecord>> best =
          (*db)->Best(keys[i].workload, keys[i].target, keys[i].threads);
      std::string indexed_id = best.ok() && best->has_value() ? (*best)->record_id : "";
      if (naive_id != indexed_id) {
        std::fprintf(stderr, "mismatch: scan found '%s', best() '%s'\n", naive_id.c_str(),
                     indexed_id.c_str());
        rc = 1;
      }
    }
    double scan = Percentile(scans, 0.5);
    std::printf("full scan (NOT INDEXED): median %.1f ms over %zu runs\n", scan * 1e3,
                scans.size());
    std::printf("best() is %.0fx faster than the scan\n", scan / median);

    std::vector<double> topk;
    for (size_t i = 0; i < std::min<size_t>(keys.size(), 2000); ++i) {
      Clock::time_point start = Clock::now();
      auto top = (*db)->TopK(keys[i].workload, keys[i].target, keys[i].threads, 10);
      topk.push_back(Seconds(Clock::now() - start));
      if (!top.ok()) {
        std::fprintf(stderr, "top-k: %s\n", top.status().ToString().c_str());
        return 1;
      }
    }
    std::printf("top-10: %zu calls, median %.1f us, p99 %.1f us (aim: <= 5 ms)\n", topk.size(),
                Percentile(topk, 0.5) * 1e6, Percentile(topk, 0.99) * 1e6);

    Clock::time_point check_start = Clock::now();
    absl::Status check = (*db)->CheckIntegrity();
    std::printf("db check (integrity_check): %.1f s, %s (aim: <= 30 s)\n", Seconds(Clock::now() - check_start),
                check.ok() ? "ok" : check.ToString().c_str());
    if (!check.ok()) rc = 1;

    const std::string jsonl = dir->File("all.jsonl");
    Clock::time_point export_start = Clock::now();
    absl::StatusOr<int64_t> exported = (*db)->ExportJsonl(jsonl);
    if (!exported.ok()) {
      std::fprintf(stderr, "export: %s\n", exported.status().ToString().c_str());
      return 1;
    }
    std::printf("export: %lld records in %.1f s, %.0f MiB of JSON lines\n", static_cast<long long>(*exported),
                Seconds(Clock::now() - export_start), std::filesystem::file_size(jsonl) / 1048576.0);
    absl::StatusOr<std::unique_ptr<TuningDatabase>> fresh = TuningDatabase::Open(dir->File("imported.db"));
    if (!fresh.ok()) {
      std::fprintf(stderr, "%s\n", fresh.status().ToString().c_str());
      return 1;
    }
    Clock::time_point import_start = Clock::now();
    auto imported = (*fresh)->ImportJsonl(jsonl);
    if (!imported.ok()) {
      std::fprintf(stderr, "import: %s\n", imported.status().ToString().c_str());
      return 1;
    }
    auto count = (*fresh)->RecordCount();
    std::printf("import: %lld records in %.1f s (aim: <= 60 s)\n", count.ok() ? static_cast<long long>(*count) : -1LL,
                Seconds(Clock::now() - import_start));
    if (!count.ok() || *count != *exported) {
      std::fprintf(stderr, "import stored a different number of records than were exported\n");
      rc = 1;
    }
  }
  return rc;
}
