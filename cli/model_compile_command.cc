// `tunefarm compile MODEL.onnx -o MODEL.so`: import, optimize, fuse, schedule (tuned records
// from --db where they exist, default rules elsewhere) and emit one model artifact.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <thread>

#include "cli/command.h"
#include "cli/db_open.h"
#include "cli/db_schedule_source.h"
#include "cli/in_model_choice.h"
#include "cli/model_common.h"
#include "cli/subcommands.h"
#include "compiler/build/model_builder.h"
#include "compiler/codegen/host_target.h"
#include "common/strings.h"

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
       {"choose-in-model", 0, "", "with --db: build the model on every kernel's default, best and second-best "
        "schedule, time each build call by call on this machine, and keep per kernel the one fastest inside the "
        "model (about four times the compile time; the target must be this machine)"},
       {"untuned-gpu", 0, "KIND", "with a cuda --target, the kernels no record covers: 'program' (the default "
        "GPU program: shared and register tiles by fixed rules; the default) or 'thread-per-point' (one thread "
        "per output point, the tuner's reference; for comparisons)"},
       {"input-shape", 0, "NAME=D,D,...", "shape of an input with symbolic dimensions", false, true},
       {"bind", 0, "NAME=FILE", "a graph input fixed at compile time (.npy or .pb): a Reshape's shape, Slice's starts, ...", false, true}},
      {"MODEL.onnx"}};
  return spec;
}

// Writes through a temporary file and a rename, so a crash never leaves half an artifact; a
// failed write removes the temporary file and says why (e.g. "No space left on device").
absl::Status WriteFileAtomically(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp";
  auto fail = [&](const std::string& what, int error) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    return absl::InternalError(StrCat(what, ": ", std::strerror(error)));
  };
  std::FILE* out = std::fopen(tmp.c_str(), "wb");
  if (out == nullptr) {
    const int error = errno;
    return fail(StrCat("cannot create ", tmp), error);
  }
  const size_t wrote = std::fwrite(bytes.data(), 1, bytes.size(), out);
  const int write_error = wrote == bytes.size() ? 0 : errno;
  // fclose flushes the buffered tail, which is where a full disk usually shows.
  const int close_error = std::fclose(out) != 0 ? errno : 0;
  if (write_error == 0 && close_error != 0) return fail(StrCat("cannot write ", tmp), close_error);
  if (write_error != 0) return fail(StrCat("cannot write ", tmp), write_error);
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return fail(StrCat("cannot rename ", tmp, " to ", path), ec.value());
  return absl::OkStatus();
}

// True when `output` names the same file as `other` (which need not exist).
bool SameFile(const std::string& output, const std::string& other) {
  std::error_code ec;
  if (std::filesystem::equivalent(output, other, ec)) return true;
  const std::filesystem::path a = std::filesystem::weakly_canonical(output, ec);
  if (ec) return false;
  const std::filesystem::path b = std::filesystem::weakly_canonical(other, ec);
  return !ec && a == b;
}

}  // namespace

int RunCompileCommand(int argc, char** argv) {
  ParseResult parsed = ParseCommandLine(Spec(), argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  const ParsedFlags& flags = *parsed.flags;
  const std::string model_path = flags.positionals()[0];
  const auto start = std::chrono::steady_clock::now();

  // The artifact replaces its path: never the model it is built from, nor the database.
  const std::string output = flags.Get("output");
  if (SameFile(output, model_path)) {
    return ReportUsageError(Spec(), StrCat("-o ", output, " is the input model, which the artifact would overwrite; "
                                           "choose another output path"));
  }
  if (flags.Has("db") && SameFile(output, flags.Get("db"))) {
    return ReportUsageError(Spec(), StrCat("-o ", output, " is the --db database, which the artifact would overwrite; "
                                           "choose another output path"));
  }

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

  if (flags.Has("choose-in-model")) {
    if (!flags.Has("db")) return ReportUsageError(Spec(), "--choose-in-model chooses among tuned records: it needs --db");
    if (options->target.ToString() != codegen::HostTarget().ToString()) {
      return ReportUsageError(Spec(), StrCat("--choose-in-model times the model on this machine, so the target must be "
                                             "this machine's (", codegen::HostTarget().ToString(), "), not ",
                                             options->target.ToString()));
    }
  }

  auto graph = ImportModel(model_path, flags);
  if (!graph.ok()) return ReportFailure("compile", graph.status());
  auto plan = build::PlanModel(*graph, *options);
  if (!plan.ok()) return ReportFailure("compile", plan.status());
  std::optional<InModelChoice> choice;
  if (flags.Has("choose-in-model")) {
    auto chosen = ChooseSchedulesInModel(*plan, *options, *source, options->progress);
    if (!chosen.ok()) return ReportFailure("compile", chosen.status());
    choice = std::move(*chosen);
    std::printf("%s", choice->report.c_str());
    options->schedules = choice->source.get();
  }
  auto bytes = build::BuildArtifact(&*plan, *options);
  if (!bytes.ok()) return ReportFailure("compile", bytes.status());
  absl::Status written = WriteFileAtomically(flags.Get("output"), *bytes);
  if (!written.ok()) return ReportFailure("compile", written);

  int tuned = 0;
  for (const build::Task& t : plan->exec.tasks) tuned += t.schedule != "default";
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (flags.Has("db")) {
    // Which kernels the database served: a record for this target and thread count, or none.
    std::printf("%d of %zu kernels use a tuned record from %s; %zu %s\n", tuned, plan->exec.tasks.size(),
                flags.Get("db").c_str(), plan->exec.tasks.size() - tuned,
                choice ? "run the default rules (no record, or the default was fastest in the model)"
                       : "fall back to the default rules");
  }
  std::printf("wrote %s: %zu kernels (%d tuned) in %zu calls, %.1f MB of parameters, %.1f MB arena, for %s, %d threads, in %.1f s\n",
              flags.Get("output").c_str(), plan->exec.tasks.size(), tuned, plan->exec.calls.size(),
              plan->exec.params.size() / 1e6, plan->exec.memory.arena_bytes / 1e6, options->target.ToString().c_str(),
              options->threads, seconds);
  return kExitOk;
}

}  // namespace tunefarm::cli
