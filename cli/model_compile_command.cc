// `tunefarm compile MODEL.onnx -o MODEL.so`: import, optimize, fuse, schedule (tuned records
// from --db where they exist, default rules elsewhere) and emit one model artifact.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli/command.h"
#include "cli/db_open.h"
#include "cli/db_schedule_source.h"
#include "cli/model_common.h"
#include "cli/subcommands.h"
#include "compiler/build/model_builder.h"
#include "compiler/common/strings.h"

namespace tunefarm::cli {
namespace {

const CommandSpec& Spec() {
  static const CommandSpec spec{
      "compile",
      "Compiles an ONNX model into one artifact (a shared object) for the deploy runtime.",
      {{"output", 'o', "FILE", "where to write the artifact (.so)", true},
       {"target", 0, "TARGET", "code generation target (default: this machine)"},
       {"threads", 0, "N", "threads the kernels are scheduled for (default: this machine's cores)"},
       {"db", 0, "FILE", "tuning database: use the best record of each kernel where one exists"},
       {"input-shape", 0, "NAME=D,D,...", "shape of an input with symbolic dimensions", false, true}},
      {"MODEL.onnx"}};
  return spec;
}

// Writes through a temporary file and a rename, so a crash never leaves half an artifact.
absl::Status WriteFileAtomically(const std::string& path, const std::string& bytes) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) return absl::InternalError(StrCat(tmp, ": cannot write"));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return absl::InternalError(StrCat(path, ": cannot rename ", tmp, ": ", ec.message()));
  return absl::OkStatus();
}

}  // namespace

int RunCompileCommand(int argc, char** argv) {
  ParseResult parsed = ParseCommandLine(Spec(), argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  const ParsedFlags& flags = *parsed.flags;
  const std::string model_path = flags.positionals()[0];
  const auto start = std::chrono::steady_clock::now();

  auto options = BuildOptionsFromFlags(flags, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  if (!options.ok()) return ReportUsageError(Spec(), options.status());
  options->progress = [](std::string_view line) { std::fprintf(stderr, "tunefarm compile: %.*s\n", static_cast<int>(line.size()), line.data()); };

  std::unique_ptr<db::TuningDatabase> database;
  std::unique_ptr<DbScheduleSource> source;
  if (flags.Has("db")) {
    auto opened = OpenExistingDatabase(flags.Get("db"));
    if (!opened.ok()) return ReportFailure("compile", opened.status());
    database = std::move(*opened);
    source = std::make_unique<DbScheduleSource>(database.get());
    options->schedules = source.get();
  }

  auto graph = ImportModel(model_path, flags);
  if (!graph.ok()) return ReportFailure("compile", graph.status());
  auto plan = build::PlanModel(*graph, *options);
  if (!plan.ok()) return ReportFailure("compile", plan.status());
  auto bytes = build::BuildArtifact(&*plan, *options);
  if (!bytes.ok()) return ReportFailure("compile", bytes.status());
  absl::Status written = WriteFileAtomically(flags.Get("output"), *bytes);
  if (!written.ok()) return ReportFailure("compile", written);

  int tuned = 0;
  for (const build::Task& t : plan->exec.tasks) tuned += t.schedule != "default";
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (flags.Has("db")) {
    // Which kernels the database served: a record for this target and thread count, or none.
    std::printf("%d of %zu kernels use a tuned record from %s; %zu fall back to the default rules\n", tuned,
                plan->exec.tasks.size(), flags.Get("db").c_str(), plan->exec.tasks.size() - tuned);
  }
  std::printf("wrote %s: %zu kernels (%d tuned) in %zu calls, %.1f MB of parameters, %.1f MB arena, for %s, %d threads, in %.1f s\n",
              flags.Get("output").c_str(), plan->exec.tasks.size(), tuned, plan->exec.calls.size(),
              plan->exec.params.size() / 1e6, plan->exec.memory.arena_bytes / 1e6, options->target.ToString().c_str(),
              options->threads, seconds);
  return kExitOk;
}

}  // namespace tunefarm::cli
