// What an untuned model runs on a GPU, computed without one: for every task of a model, its
// default GPU program (tuner/search_space/gpu_default_program.h) lowered for a cuda target, with
// its launches (more than one: a stage left out of the tiled kernel, whose input then goes
// through global memory) and the largest one's shape, shared and local memory, how many of its
// shared tiles are padded, and the most ways any warp's shared loads and stores conflict
// (compiler/tir/shared_bank_conflicts.h).
// Nothing is timed; docs/gpu.md quotes these figures. Built with the tests (which run it on
// SqueezeNet: tests/tuner/CMakeLists.txt) or the benchmarks.
//
//   gpu_default_program_report [--target "cuda -arch=sm_90 -num-sms=132"] [--programs] MODEL.onnx...
//
// --programs also prints every task's schedule.
#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "common/strings.h"
#include "compiler/codegen/nvptx_codegen.h"
#include "compiler/codegen/target.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/lower.h"
#include "compiler/tir/shared_bank_conflicts.h"
#include "tuner/search_space/gpu_default_program.h"
#include "tuner/search_space/search_target.h"
#include "tuner/tuning_task.h"

namespace tunefarm::tuner {
namespace {

// "conv2d+bias+relu 1x64x56x56": the task's compute stages and its first output's shape.
std::string Label(const te::ComputeDag& dag) {
  std::string stages;
  for (int id : dag.stages()) {
    const std::string& name = dag.tensor(id).name;  // an ONNX node's path: keep its last part
    StrAppend(&stages, stages.empty() ? "" : "+", name.substr(name.rfind('/') + 1));
  }
  if (stages.size() > 36) stages = stages.substr(0, 33) + "...";
  std::string shape;
  for (int64_t d : dag.tensor(dag.outputs().front()).shape) StrAppend(&shape, shape.empty() ? "" : "x", d);
  return StrCat(stages, " ", shape);
}

std::string Dims(const std::array<int64_t, 3>& d) {
  std::string s = StrCat(d[0]);
  if (d[1] > 1 || d[2] > 1) StrAppend(&s, "x", d[1]);
  if (d[2] > 1) StrAppend(&s, "x", d[2]);
  return s;
}

// The most ways of any shared load (store); -1 where an access's ways cannot be computed.
struct Conflicts {
  int load_ways = 0, store_ways = 0;
};

Conflicts MostWays(const tir::PrimFunc& f) {
  Conflicts c;
  for (const tir::SharedAccess& a : tir::SharedBankConflicts(f, f.body)) {
    int& most = a.store ? c.store_ways : c.load_ways;
    if (most >= 0) most = a.ways == 0 ? -1 : std::max(most, a.ways);
  }
  return c;
}

std::string Ways(int ways) { return ways < 0 ? "?" : StrCat(ways); }

int PaddedTiles(const schedule::State& s) {
  int n = 0;
  for (const schedule::Step& step : s.steps()) n += std::holds_alternative<schedule::StorageAlignStep>(step);
  return n;
}

// Returns how many tasks could not be reported.
int Report(const std::string& model, const codegen::Target& target, bool programs) {
  build::BuildOptions options;
  options.target = target;
  options.threads = 1;
  absl::StatusOr<std::vector<TuningTask>> tasks = ExtractTasksFromModel(model, {}, options);
  if (!tasks.ok()) {
    std::fprintf(stderr, "%s: %s\n", model.c_str(), std::string(tasks.status().message()).c_str());
    return 1;
  }
  std::printf("%s: %zu tasks for %s\n", model.c_str(), tasks->size(), target.ToString().c_str());
  std::printf("%4s %6s  %-50s %8s %8s %10s %7s %8s %7s %6s %6s %7s\n", "task", "weight", "stages and output",
              "GFLOP", "launches", "grid", "block", "shared B", "local B", "padded", "loads", "stores");
  int failed = 0, conflicted = 0, unknown = 0;
  for (size_t t = 0; t < tasks->size(); ++t) {
    const TuningTask& task = (*tasks)[t];
    absl::StatusOr<schedule::State> program = GpuDefaultProgram(task.dag, SearchTarget::FromTarget(target));
    absl::StatusOr<tir::PrimFunc> f =
        program.ok() ? tir::Lower(*program, StrCat("t", t)) : absl::StatusOr<tir::PrimFunc>(program.status());
    absl::StatusOr<std::vector<tir::GpuLaunch>> launches =
        f.ok() ? tir::PlanGpuLaunches(*f, codegen::GpuLimitsOf(target)) : f.status();
    if (launches.ok() && launches->empty()) launches = absl::InternalError("its kernel launches nothing");
    if (!launches.ok()) {
      std::printf("%4zu %6g  %-50s  no default program: %s\n", t, task.weight, Label(*task.dag).c_str(),
                  std::string(launches.status().message()).c_str());
      ++failed;
      continue;
    }
    // The largest launch (most threads) stands for the task.
    const tir::GpuLaunch& main = *std::max_element(
        launches->begin(), launches->end(), [](const tir::GpuLaunch& a, const tir::GpuLaunch& b) {
          auto threads = [](const tir::GpuLaunch& l) {
            return l.grid[0] * l.grid[1] * l.grid[2] * l.block[0] * l.block[1] * l.block[2];
          };
          return threads(a) < threads(b);
        });
    const Conflicts c = MostWays(*f);
    conflicted += c.load_ways > 1;
    unknown += c.load_ways < 0;
    std::printf("%4zu %6g  %-50s %8.4f %8zu %10s %7s %8lld %7lld %6d %6s %7s\n", t, task.weight,
                Label(*task.dag).c_str(), task.dag->TotalFlops() / 1e9, launches->size(), Dims(main.grid).c_str(),
                Dims(main.block).c_str(), static_cast<long long>(main.shared_bytes),
                static_cast<long long>(main.local_bytes), PaddedTiles(*program), Ways(c.load_ways).c_str(),
                Ways(c.store_ways).c_str());
    if (programs) std::printf("%s\n", program->ToString().c_str());
  }
  std::printf("%s: %zu tasks, %d without a default program, %d with shared loads of more than 1 way, %d of "
              "unknown ways\n\n", model.c_str(), tasks->size(), failed, conflicted, unknown);
  return failed;
}

}  // namespace
}  // namespace tunefarm::tuner

constexpr char kUsage[] = "[--target \"cuda -arch=sm_XX ...\"] [--programs] MODEL.onnx...";

// Says what was wrong with the command line, then how to use it.
int Usage(const char* program, const std::string& why) {
  std::fprintf(stderr, "%s\nusage: %s %s\n", why.c_str(), program, kUsage);
  return 2;
}

int main(int argc, char** argv) {
  std::string target_text = "cuda -arch=sm_90 -num-sms=132";
  std::vector<std::string> models;
  bool programs = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--target" && i + 1 < argc) {
      target_text = argv[++i];
    } else if (arg == "--programs") {
      programs = true;
    } else if (arg == "-h" || arg == "--help") {
      std::printf("usage: %s %s\n", argv[0], kUsage);
      return 0;
    } else if (arg == "--target") {
      return Usage(argv[0], "--target needs a value");
    } else if (arg.rfind("-", 0) == 0) {
      return Usage(argv[0], "unknown option '" + arg + "'");
    } else {
      models.push_back(arg);
    }
  }
  absl::StatusOr<tunefarm::codegen::Target> target = tunefarm::codegen::Target::Parse(target_text);
  if (!target.ok() || !target->IsCuda()) {
    std::fprintf(stderr, "--target: expected a cuda target, got '%s'%s%s\n", target_text.c_str(),
                 target.ok() ? "" : ": ", target.ok() ? "" : std::string(target.status().message()).c_str());
    return 2;
  }
  if (models.empty()) return Usage(argv[0], "no model given");
  int failed = 0;
  for (const std::string& m : models) failed += tunefarm::tuner::Report(m, *target, programs);
  return failed == 0 ? 0 : 1;
}
