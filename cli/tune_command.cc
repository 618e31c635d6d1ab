// `tunefarm tune MODEL.onnx`: one tuning job run in this process (no tuner service needed).
// Without --tracker it starts an embedded local farm (a tracker and one agent of this machine
// on loopback, embedded_farm.h) and measures here; with --tracker it leases a device of --key
// from that farm. Every measurement goes into --db (tunefarm.db by default) as it arrives;
// progress is printed every round (tune_progress.h), and the job's tuning curves are written
// beside the database. Ctrl-C stops the job where it is; `--resume JOB` continues it without
// measuring anything twice. `tunefarm compile --db` then uses the best record of each kernel.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/command.h"
#include "cli/subcommands.h"
#include "common/strings.h"

#ifdef TUNEFARM_HAVE_TUNER
#include "cli/tune_progress.h"
#include "db/tuning_database.h"
#include "proto/auth.h"
#include "proto/host_port.h"
#include "tuner/job_runner.h"
#include "tuner/job_spec.h"
#include "tuner/tuning_profile.h"
#include "tuner/tuning_profile_table.h"
#endif
#ifdef TUNEFARM_HAVE_EMBEDDED_FARM
#include "cli/embedded_farm.h"
#endif

namespace tunefarm::cli {
namespace {

const CommandSpec& Spec() {
  static const CommandSpec spec{
      "tune",
      "Tunes the kernels of an ONNX model on a device of the farm and stores every measurement "
      "in the tuning database.",
      {{"tracker", 0, "HOST:PORT", "the farm's tracker (default: an embedded local farm of this machine)"},
       {"key", 0, "KEY", "device pool to measure on (default with the local farm: local)"},
       {"db", 0, "FILE", "tuning database, created if missing (default tunefarm.db)"},
       {"trials", 0, "N", "programs to measure, over all kernels (default 64)"},
       {"policy", 0, "NAME", "search: evolution (cost model + evolutionary search, default) or random"},
       {"population", 0, "N", "evolution population (default 2048)"},
       {"generations", 0, "N", "evolution generations per round (default 4)"},
       {"per-round", 0, "N", "programs measured per round of a kernel (default 64)"},
       {"early-stop", 0, "N", "stop tuning a kernel after N rounds without improvement (default 8)"},
       {"resume", 0, "JOB", "continue a job of --db that was stopped"},
       {"curves", 0, "SVG", "where the tuning curves go (default: beside --db, named by the job)"},
       {"threads", 0, "N", "threads the kernels are tuned for (default: the device's CPUs)"},
       {"target", 0, "TARGET", "code generation target (default: from the device's facts)"},
       {"bind", 0, "NAME=FILE", "a graph input fixed at compile time (.npy or .pb), as compile --bind; give it to compile too", false, true},
       {"warm-cache", 0, "", "time candidates with warm caches (default: inputs and weights flushed before each run)"},
       {"batch", 0, "N", "programs built, then measured, per call to the agent (default 8)"},
       {"max-devices", 0, "N", "devices of --key a job measures on at once, when free (default 8)"},
       {"priority", 0, "N", "rank of this job's device requests against other jobs on --key, higher first (-1000..1000, default 0)"},
       {"min-repeat-ms", 0, "N", "shortest repeat when timing a candidate (default 20)"},
       {"wait-timeout", 0, "SECONDS", "give up when no device of --key is granted within this (default 600)"},
       {"token-file", 0, "FILE", "shared secret (mode 0600); else $TUNEFARM_TOKEN"},
       {"farm-ca", 0, "PEM", "CA of the tracker's and agents' TLS certificates (TLS to the farm)"},
       {"farm-cert", 0, "PEM", "client certificate for a farm that demands one"},
       {"farm-key", 0, "PEM", "its key"}},
      {"MODEL.onnx"}};
  return spec;
}

#ifdef TUNEFARM_HAVE_TUNER
std::atomic<bool> g_interrupted{false};
// The first Ctrl-C asks the job to stop after the step in flight; a second one, while a long
// step (training, the search) runs, ends the process at once (the job stays resumable).
extern "C" void OnInterrupt(int sig) {
  if (g_interrupted) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
  g_interrupted = true;
}

// The search settings from the flags (0 leaves a setting to the job's default).
absl::Status ReadSearchFlags(const ParsedFlags& flags, v1::SearchSettings* search) {
  search->set_policy(flags.Get("policy"));
  struct IntFlag {
    const char* name;
    void (v1::SearchSettings::*set)(int32_t);
    int64_t max;
  };
  for (const IntFlag& f : {IntFlag{"population", &v1::SearchSettings::set_population, 1 << 20},
                           IntFlag{"generations", &v1::SearchSettings::set_generations, 1000},
                           IntFlag{"per-round", &v1::SearchSettings::set_measure_per_round, 4096},
                           IntFlag{"early-stop", &v1::SearchSettings::set_early_stop_rounds, 1000000}}) {
    if (!flags.Has(f.name)) continue;
    auto value = flags.GetInt(f.name, 0, 1, f.max);
    if (!value.ok()) return value.status();
    (search->*f.set)(static_cast<int32_t>(*value));
  }
  return absl::OkStatus();
}

// Beside the database: "<db dir>/<db stem>-<first 8 of the job id>-curves.svg".
std::string DefaultCurvesPath(const std::string& db_path, const std::string& job_id) {
  std::filesystem::path db(db_path);
  return (db.parent_path() / StrCat(db.stem().string(), "-", job_id.substr(0, 8), "-curves.svg")).string();
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
  auto max_devices = flags.GetInt("max-devices", 8, 1, 4096);
  if (!max_devices.ok()) return ReportUsageError(Spec(), max_devices.status());
  auto min_repeat = flags.GetInt("min-repeat-ms", 20, 0, 60000);
  if (!min_repeat.ok()) return ReportUsageError(Spec(), min_repeat.status());
  auto priority = flags.GetInt("priority", 0, -tuner::kMaxJobPriority, tuner::kMaxJobPriority);
  if (!priority.ok()) return ReportUsageError(Spec(), priority.status());
  auto wait_timeout = flags.GetInt("wait-timeout", 600, 1, 7 * 24 * 3600);
  if (!wait_timeout.ok()) return ReportUsageError(Spec(), wait_timeout.status());
  v1::SearchSettings search;
  if (absl::Status s = ReadSearchFlags(flags, &search); !s.ok()) return ReportUsageError(Spec(), s);
  const bool local_farm = !flags.Has("tracker");
  if (!local_farm && !flags.Has("key") && !flags.Has("resume"))
    return ReportUsageError(Spec(), "--key is required with --tracker");
  if (!local_farm) {
    if (auto address = wire::ParseHostPort(flags.Get("tracker")); !address.ok()) {
      return ReportUsageError(Spec(), address.status());
    }
  }
  const std::string db_path = flags.Get("db", "tunefarm.db");

  std::error_code ec;
  const std::string model = std::filesystem::absolute(flags.positionals()[0], ec).string();
  auto database = db::TuningDatabase::Open(db_path);
  if (!database.ok()) return ReportFailure("tune", database.status());
  std::string job_id = flags.Get("resume");
  v1::JobSpec spec;
  if (job_id.empty()) {
    spec.set_model_path(model);
    // The tuner may run elsewhere in this filesystem's view: absolute paths, as for the model.
    for (const std::string& bind : flags.GetAll("bind")) {
      const size_t eq = bind.find('=');
      spec.add_bind(eq == std::string::npos ? bind
                                            : StrCat(bind.substr(0, eq + 1),
                                                     std::filesystem::absolute(bind.substr(eq + 1), ec).string()));
    }
    spec.set_device_key(flags.Get("key", "local"));
    spec.set_trial_budget(*trials);
    spec.set_threads(flags.Has("threads") ? static_cast<int>(*threads) : 0);
    spec.set_target(flags.Get("target"));
    spec.set_name("tunefarm tune");
    spec.set_priority(static_cast<int32_t>(*priority));
    *spec.mutable_search() = search;
    if (absl::Status valid = tuner::ValidateSpec(spec); !valid.ok()) return ReportFailure("tune", valid);
    auto job = (*database)->CreateJob(tuner::SpecToJson(spec), spec.trial_budget());
    if (!job.ok()) return ReportFailure("tune", job.status());
    job_id = job->job_id;
  } else {
    auto job = (*database)->GetJob(job_id);
    if (!job.ok()) return ReportFailure("tune", job.status());
    auto stored = tuner::SpecFromJson(job->spec_json);
    if (!stored.ok()) return ReportFailure("tune", stored.status());
    spec = *stored;
    for (const char* ignored : {"trials", "threads", "target", "policy", "population", "generations", "per-round",
                                "early-stop", "key", "bind", "priority"})
      if (flags.Has(ignored))
        std::fprintf(stderr, "tunefarm tune: --%s is ignored with --resume: the job keeps its own settings\n", ignored);
    if (spec.model_path() != model)
      return ReportFailure("tune", StrCat("job ", job_id, " tunes ", spec.model_path(), ", not ", model));
  }
  std::printf("job %s: tuning %s, %lld trials on '%s'\n", job_id.c_str(), model.c_str(),
              static_cast<long long>(spec.trial_budget()), spec.device_key().c_str());
  std::fflush(stdout);

  tuner::RunnerOptions options;
  options.db_path = db_path;
#ifdef TUNEFARM_HAVE_EMBEDDED_FARM
  std::unique_ptr<EmbeddedFarm> farm;
  if (local_farm) {
    auto started = EmbeddedFarm::Start(spec.device_key());
    if (!started.ok()) return ReportFailure("tune", started.status());
    farm = std::move(*started);
    std::printf("local farm: tracker %s, agent %s (key '%s')\n", farm->tracker_address().c_str(),
                farm->agent_address().c_str(), spec.device_key().c_str());
    options.farm.tracker = farm->tracker_address();
    options.farm.token = farm->token();
  }
#else
  if (local_farm)
    return ReportFailure("tune", "this tunefarm was built without the tracker or the agent, so it has no local "
                                 "farm: give --tracker");
#endif
  if (!local_farm) {
    auto token = wire::LoadToken(flags.Get("token-file"));
    if (!token.ok()) return ReportUsageError(Spec(), token.status());
    options.farm.tracker = flags.Get("tracker");
    options.farm.token = *token;
    options.farm.tls = {flags.Get("farm-cert"), flags.Get("farm-key"), flags.Get("farm-ca")};
  }
  options.farm.acquire_timeout = std::chrono::seconds(*wait_timeout);
  options.batch_size = static_cast<int>(*batch);
  options.max_devices = static_cast<int>(*max_devices);
  options.min_repeat_ms = static_cast<int>(*min_repeat);
  options.flush_cache = !flags.Has("warm-cache");
  TuneProgress progress;
  options.on_progress = [&](const v1::JobProgress& p) { progress.Update(p); };
  options.log = [](const std::string& line) { std::fprintf(stderr, "tunefarm tune: %s\n", line.c_str()); };
  // Ctrl-C (or TERM) stops the job between steps; it stays resumable.
  g_interrupted = false;
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  options.stop = [] { return g_interrupted ? tuner::StopRequest::kShutdown : tuner::StopRequest::kNone; };

  tuner::JobRunner runner(options);
  tuner::TuningProfile::Global().Reset();
  const auto run_start = std::chrono::steady_clock::now();
  v1::JobProgress last = runner.Run(job_id);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  PrintTaskTable(last);
  std::printf("where this run's time went: %s",
              tuner::FormatStageTable(tuner::TuningProfile::Global(), runner.stats().measured, wall_s).c_str());
  const std::string curves = flags.Get("curves", DefaultCurvesPath(db_path, job_id));
  if (absl::Status written = progress.WriteCurves(curves); written.ok())
    std::printf("tuning curves: %s\n", curves.c_str());
  else
    std::fprintf(stderr, "tunefarm tune: %s\n", std::string(written.message()).c_str());
  if (last.state() == v1::JOB_STATE_RUNNING && !g_interrupted) {
    // Not stopped by us: another tuner holds the job (its claim, tuner/job_claim.h).
    return ReportFailure("tune", last.message());
  }
  if (last.state() == v1::JOB_STATE_RUNNING) {
    std::printf("job %s interrupted; continue it with: tunefarm tune %s --db %s --resume %s\n", job_id.c_str(),
                flags.positionals()[0].c_str(), db_path.c_str(), job_id.c_str());
    return 130;
  }
  std::printf("job %s: %s (%s)\n", job_id.c_str(), v1::JobState_Name(last.state()).c_str(), last.message().c_str());
  if (last.state() != v1::JOB_STATE_SUCCEEDED) return ReportFailure("tune", last.message());
  return kExitOk;
#else
  return ReportFailure("tune", "this tunefarm was built without tuner/ (TUNEFARM_SKIP); rebuild with it");
#endif
}

}  // namespace tunefarm::cli
