// `tunefarm jobs list|watch|cancel`: the jobs of a running tuner service (--tuner HOST:PORT),
// through its ListJobs / WatchJob / CancelJob methods. Watching prints the same progress line
// per round as `tunefarm tune`, and the table when the job ends.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.h"
#include "cli/dispatch.h"
#include "cli/subcommands.h"
#include "cli/table.h"
#include "common/strings.h"

#ifdef TUNEFARM_HAVE_TUNER
#include "cli/tune_progress.h"
#include "proto/auth.h"
#include "proto/credentials.h"
#include "proto/tunefarm.grpc.pb.h"
#endif

namespace tunefarm::cli {
#ifdef TUNEFARM_HAVE_TUNER
namespace {

FlagSpec TunerFlag() { return {"tuner", 0, "HOST:PORT", "the tuner service", true}; }
FlagSpec TokenFlag() { return {"token-file", 0, "FILE", "shared secret (mode 0600); else $TUNEFARM_TOKEN"}; }
FlagSpec CaFlag() { return {"tls-ca", 0, "PEM", "CA of the tuner's TLS certificate"}; }

struct TunerConnection {
  std::unique_ptr<v1::Tuner::Stub> stub;
  std::string token;
  std::unique_ptr<grpc::ClientContext> Context() const {
    auto context = std::make_unique<grpc::ClientContext>();
    wire::AddToken(*context, token);
    return context;
  }
};

absl::StatusOr<TunerConnection> Connect(const ParsedFlags& flags) {
  auto token = wire::LoadToken(flags.Get("token-file"));
  if (!token.ok()) return token.status();
  wire::TlsFiles tls;
  tls.ca_file = flags.Get("tls-ca");
  auto channel = wire::MakeChannel(flags.Get("tuner"), tls);
  if (!channel.ok()) return channel.status();
  return TunerConnection{v1::Tuner::NewStub(*channel), *token};
}

absl::Status FromGrpc(const std::string& what, const grpc::Status& s) {
  return absl::UnavailableError(
      StrCat(what, ": ", s.error_message(), " (gRPC code ", static_cast<int>(s.error_code()), ")"));
}

// Parses the action's flags, connects to the tuner and runs `action`; the exit code.
template <typename Action>
int WithTuner(const CommandSpec& spec, int argc, char** argv, Action&& action) {
  ParseResult parsed = ParseCommandLine(spec, argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  auto tuner = Connect(*parsed.flags);
  if (!tuner.ok()) return ReportFailure(spec.name, tuner.status());
  return action(*parsed.flags, *tuner);
}

std::string StateName(v1::JobState state) {
  std::string name = v1::JobState_Name(state);
  return name.rfind("JOB_STATE_", 0) == 0 ? name.substr(10) : name;
}

// A running job that holds no device is not failing: it is queued for one at the tracker.
std::string StateName(const v1::JobProgress& p) {
  if (p.state() == v1::JOB_STATE_RUNNING && p.waiting_for_devices()) return "waiting for devices";
  if (p.state() == v1::JOB_STATE_RUNNING && p.devices() > 1) return StrCat("RUNNING (", p.devices(), " devices)");
  return StateName(p.state());
}

int RunJobsList(int argc, char** argv) {
  static const CommandSpec spec{"jobs list",
                                "Lists the tuner's jobs, oldest first.",
                                {TunerFlag(), {"all", 0, "", "include finished jobs"}, TokenFlag(), CaFlag()},
                                {}};
  return WithTuner(spec, argc, argv, [&](const ParsedFlags& flags, const TunerConnection& tuner) {
    v1::ListJobsRequest request;
    request.set_include_finished(flags.Has("all"));
    v1::ListJobsReply reply;
    grpc::Status s = tuner.stub->ListJobs(tuner.Context().get(), request, &reply);
    if (!s.ok()) return ReportFailure(spec.name, FromGrpc("ListJobs", s));
    using A = Table::Align;
    Table table(
        {{"JOB ID"}, {"STATE"}, {"PRIORITY", A::kRight}, {"TRIALS", A::kRight}, {"EST. LATENCY", A::kRight}, {"MODEL / TASKS"}, {"MESSAGE"}});
    for (const v1::JobInfo& job : reply.jobs()) {
      const v1::JobProgress& p = job.progress();
      const std::string source =
          job.spec().has_model_path() ? job.spec().model_path() : StrCat(job.spec().tasks().tasks_size(), " tasks");
      table.AddRow({job.job_id(), StateName(p), StrCat(job.spec().priority()), StrCat(p.trials_done(), "/", p.trial_budget()),
                    p.estimated_latency_sec() > 0 ? FormatSeconds(p.estimated_latency_sec()) : "-", source,
                    p.message()});
    }
    std::fputs(table.ToString().c_str(), stdout);
    return kExitOk;
  });
}

int RunJobsWatch(int argc, char** argv) {
  static const CommandSpec spec{"jobs watch",
                                "Follows a job of the tuner until it ends: a line per round, then its tasks.",
                                {TunerFlag(), TokenFlag(), CaFlag()},
                                {"JOB"}};
  return WithTuner(spec, argc, argv, [&](const ParsedFlags& flags, const TunerConnection& tuner) {
    v1::WatchJobRequest request;
    request.set_job_id(flags.positionals()[0]);
    auto context = tuner.Context();
    auto reader = tuner.stub->WatchJob(context.get(), request);
    TuneProgress progress;
    v1::JobProgress p, last;
    while (reader->Read(&p)) {
      progress.Update(p);
      last = p;
    }
    grpc::Status s = reader->Finish();
    if (!s.ok()) return ReportFailure(spec.name, FromGrpc("WatchJob", s));
    PrintTaskTable(last);
    std::printf("job %s: %s (%s)\n", last.job_id().c_str(), StateName(last.state()).c_str(), last.message().c_str());
    return last.state() == v1::JOB_STATE_SUCCEEDED ? kExitOk : kExitFailure;
  });
}

int RunJobsCancel(int argc, char** argv) {
  static const CommandSpec spec{
      "jobs cancel", "Cancels a job of the tuner (its records stay).", {TunerFlag(), TokenFlag(), CaFlag()}, {"JOB"}};
  return WithTuner(spec, argc, argv, [&](const ParsedFlags& flags, const TunerConnection& tuner) {
    v1::CancelJobRequest request;
    request.set_job_id(flags.positionals()[0]);
    v1::CancelJobReply reply;
    grpc::Status s = tuner.stub->CancelJob(tuner.Context().get(), request, &reply);
    if (!s.ok()) return ReportFailure(spec.name, FromGrpc("CancelJob", s));
    std::printf("job %s: %s\n", request.job_id().c_str(), StateName(reply.state()).c_str());
    return kExitOk;
  });
}

constexpr Subcommand kJobsActions[] = {
    {"list", "the tuner's jobs with state, trials and estimated model latency", RunJobsList},
    {"watch", "follow a job until it ends", RunJobsWatch},
    {"cancel", "cancel a job", RunJobsCancel},
};

}  // namespace

int RunJobsCommand(int argc, char** argv) { return Dispatch("tunefarm jobs", kJobsActions, argc, argv); }
#else
int RunJobsCommand(int, char**) { return ReportFailure("jobs", "this tunefarm was built without tuner/"); }
#endif

}  // namespace tunefarm::cli
