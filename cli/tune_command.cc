// `tunefarm tune MODEL.onnx`: one tuning job run in this process (no tuner service needed):
// the model's kernels are tuned on a device leased from --tracker, every measurement goes
// into --db, and progress is printed as it happens. `tunefarm compile --db` then uses the
// best record of each kernel.
#include <cstdio>
#include <filesystem>
#include <map>

#include "cli/command.h"
#include "cli/subcommands.h"
#include "compiler/common/strings.h"

#ifdef TUNEFARM_HAVE_TUNER
#include "proto/auth.h"
#include "db/tuning_database.h"
#include "tuner/job_runner.h"
#include "tuner/job_spec.h"
#endif

namespace tunefarm::cli {
namespace {

const CommandSpec& Spec() {
  static const CommandSpec spec{
      "tune",
      "Tunes the kernels of an ONNX model on a device of the farm and stores every measurement "
      "in the tuning database.",
      {{"tracker", 0, "HOST:PORT", "the farm's tracker", true},
       {"key", 0, "KEY", "device pool to measure on", true},
       {"db", 0, "FILE", "tuning database (created if missing)", true},
       {"trials", 0, "N", "candidates to measure, over all kernels (default 64)"},
       {"threads", 0, "N", "threads the kernels are tuned for (default: the device's CPUs)"},
       {"target", 0, "TARGET", "code generation target (default: from the device's facts)"},
       {"batch", 0, "N", "candidates built, then measured, per round (default 8)"},
       {"min-repeat-ms", 0, "N", "shortest repeat when timing a candidate (default 20)"},
       {"token-file", 0, "FILE", "shared secret (mode 0600); else $TUNEFARM_TOKEN"},
       {"farm-ca", 0, "PEM", "CA of the tracker's and agents' TLS certificates (TLS to the farm)"},
       {"farm-cert", 0, "PEM", "client certificate for a farm that demands one"},
       {"farm-key", 0, "PEM", "its key"}},
      {"MODEL.onnx"}};
  return spec;
}

#ifdef TUNEFARM_HAVE_TUNER
std::string Format(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string Seconds(double s) {
  if (s <= 0) return "-";
  return s < 1e-3 ? Format("%.2f us", s * 1e6) : Format("%.3f ms", s * 1e3);
}

// Per task: trials, valid ones, the default schedule's cost (the first candidate of every task
// is the default-rule schedule) and the best.
void PrintSummary(db::TuningDatabase& database, const std::string& job_id) {
  auto records = database.RecordsOfJob(job_id);
  if (!records.ok()) return;
  struct Row {
    int64_t trials = 0, valid = 0;
    double first = 0, best = 0;
  };
  std::map<std::string, Row> rows;
  for (const db::TuningRecord& r : *records) {
    Row& row = rows[r.workload_key];
    const double cost = r.IsValid() ? r.MeanCost() : 0;
    if (row.trials == 0) row.first = cost;
    ++row.trials;
    if (r.IsValid()) {
      ++row.valid;
      if (row.best == 0 || cost < row.best) row.best = cost;
    }
  }
  std::printf("%-24s %7s %7s %12s %12s %8s\n", "WORKLOAD", "TRIALS", "VALID", "DEFAULT", "BEST", "SPEEDUP");
  for (const auto& [key, row] : rows) {
    std::string speedup = row.first > 0 && row.best > 0 ? Format("%.2fx", row.first / row.best) : "-";
    std::printf("%-24s %7lld %7lld %12s %12s %8s\n", key.substr(0, 24).c_str(), static_cast<long long>(row.trials),
                static_cast<long long>(row.valid), Seconds(row.first).c_str(), Seconds(row.best).c_str(),
                speedup.c_str());
  }
}
#endif

}  // namespace

int RunTuneCommand(int argc, char** argv) {
  ParseResult parsed = ParseCommandLine(Spec(), argc, argv);
  if (!parsed.flags) return parsed.exit_code;
#ifdef TUNEFARM_HAVE_TUNER
  const ParsedFlags& flags = *parsed.flags;
  auto trials = flags.GetInt("trials", 64, 1, 1000000);
  if (!trials.ok()) return ReportUsageError(Spec(), trials.status());
  auto threads = flags.GetInt("threads", 0, 1, 1024);
  if (flags.Has("threads") && !threads.ok()) return ReportUsageError(Spec(), threads.status());
  auto batch = flags.GetInt("batch", 8, 1, 1024);
  if (!batch.ok()) return ReportUsageError(Spec(), batch.status());
  auto min_repeat = flags.GetInt("min-repeat-ms", 20, 0, 60000);
  if (!min_repeat.ok()) return ReportUsageError(Spec(), min_repeat.status());
  auto token = wire::LoadToken(flags.Get("token-file"));
  if (!token.ok()) return ReportUsageError(Spec(), token.status());

  std::error_code ec;
  const std::string model = std::filesystem::absolute(flags.positionals()[0], ec).string();
  v1::JobSpec spec;
  spec.set_model_path(model);
  spec.set_device_key(flags.Get("key"));
  spec.set_trial_budget(*trials);
  spec.set_threads(flags.Has("threads") ? static_cast<int>(*threads) : 0);
  spec.set_target(flags.Get("target"));
  spec.set_name("tunefarm tune");
  if (absl::Status valid = tuner::ValidateSpec(spec); !valid.ok()) return ReportFailure("tune", valid);

  auto database = db::TuningDatabase::Open(flags.Get("db"));
  if (!database.ok()) return ReportFailure("tune", database.status());
  auto job = (*database)->CreateJob(tuner::SpecToJson(spec), spec.trial_budget());
  if (!job.ok()) return ReportFailure("tune", job.status());
  std::printf("job %s: tuning %s, %lld trials on '%s'\n", job->job_id.c_str(), model.c_str(),
              static_cast<long long>(spec.trial_budget()), spec.device_key().c_str());
  std::fflush(stdout);

  tuner::RunnerOptions options;
  options.db_path = flags.Get("db");
  options.farm.tracker = flags.Get("tracker");
  options.farm.token = *token;
  options.farm.tls = {flags.Get("farm-cert"), flags.Get("farm-key"), flags.Get("farm-ca")};
  options.batch_size = static_cast<int>(*batch);
  options.min_repeat_ms = static_cast<int>(*min_repeat);
  int64_t printed = -1;
  std::string message;
  options.on_progress = [&](const v1::JobProgress& p) {
    if (p.message() != message) {
      message = p.message();
      if (!message.empty()) std::printf("%s\n", message.c_str());
    }
    if (p.trials_done() == printed || p.trials_done() == 0) return;
    printed = p.trials_done();
    std::string tasks;
    for (const v1::TaskProgress& t : p.tasks()) {
      if (t.trials() == 0) continue;
      StrAppend(&tasks, tasks.empty() ? "" : ", ", t.workload_key().substr(0, 14), ": ", t.trials(), " (best ",
                Seconds(t.best_cost_sec()), ")");
    }
    std::printf("trial %lld/%lld  %s\n", static_cast<long long>(p.trials_done()),
                static_cast<long long>(p.trial_budget()), tasks.c_str());
    std::fflush(stdout);
  };
  tuner::JobRunner runner(options);
  v1::JobProgress last = runner.Run(job->job_id);
  PrintSummary(**database, job->job_id);
  std::printf("job %s: %s (%s)\n", job->job_id.c_str(), v1::JobState_Name(last.state()).c_str(),
              last.message().c_str());
  if (last.state() != v1::JOB_STATE_SUCCEEDED) return ReportFailure("tune", last.message());
  return kExitOk;
#else
  return ReportFailure("tune", "this tunefarm was built without tuner/ (TUNEFARM_SKIP); rebuild with it");
#endif
}

}  // namespace tunefarm::cli
