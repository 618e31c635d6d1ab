// In-process lld against the ld.lld executable, for the tuner's build workers (issue "tuning
// throughput", part 2: "lld allows one link per process, so link in worker processes or with the
// ld.lld executable; measure both and keep the faster").
//
// For a fixed, seeded sample of one ResNet-18 conv task's search space, every program is
// compiled to an object once. Then, with 1 worker and with one worker per core:
//   link only   every object linked by each linker: ms per link (wall / links) and links/s;
//   build       every program compiled and linked, as a build worker does: programs/s.
// In process, links are serialised by lld's mutex; ld.lld runs in parallel but starts a
// process (and loads libLLVM) per link. Both linkers' .so bytes are compared as well.
// Environment: TUNEFARM_LINK_PROGRAMS (default 32), TUNEFARM_LINK_ROUNDS (link-only passes
// over the objects, default 3).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/compiler/bench_kernels.h"
#include "bench/compiler/bench_workloads.h"
#include "compiler/codegen/compile_module.h"
#include "compiler/codegen/host_target.h"
#include "compiler/codegen/object_emitter.h"
#include "compiler/codegen/shared_object.h"
#include "compiler/tir/lower.h"
#include "tuner/parallel_work.h"
#include "tuner/search_space/initial_population.h"
#include "tuner/search_space/search_target.h"

using namespace tunefarm;

namespace {

using bench::Clock;
using bench::SecondsSince;
using codegen::Linker;

const char* Name(Linker l) { return l == Linker::kInProcess ? "in-process lld" : "ld.lld process"; }

absl::StatusOr<std::string> CompileObject(const schedule::State& program, const codegen::Target& target) {
  absl::StatusOr<tir::PrimFunc> f = tir::Lower(program, "kernel");
  if (!f.ok()) return f.status();
  absl::StatusOr<codegen::CompiledModule> module = codegen::CompileModule({*f}, target, /*optimize=*/true);
  if (!module.ok()) return module.status();
  return codegen::EmitObjectFile(*module->module, *module->machine);
}

// Runs work(i) for every i < items on `workers` threads; seconds of wall time. Any failure
// stops the bench: a linker that fails has no speed.
template <typename Work>
double TimeOnWorkers(size_t items, size_t workers, const Work& work) {
  std::atomic<bool> failed{false};
  const Clock::time_point start = Clock::now();
  tuner::RunOnWorkers(items, workers, [&](size_t i) {
    if (absl::Status s = work(i); !s.ok() && !failed.exchange(true))
      std::fprintf(stderr, "failed: %s\n", std::string(s.message()).c_str());
  });
  const double seconds = SecondsSince(start);
  if (failed) std::exit(1);
  return seconds;
}

}  // namespace

int main() {
  const codegen::Target target = codegen::HostTarget();
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const int count = std::getenv("TUNEFARM_LINK_PROGRAMS") ? std::atoi(std::getenv("TUNEFARM_LINK_PROGRAMS")) : 32;
  const int rounds = std::getenv("TUNEFARM_LINK_ROUNDS") ? std::atoi(std::getenv("TUNEFARM_LINK_ROUNDS")) : 3;
  std::printf("cpu: %s (%zu cores)\ntarget: %s\nld.lld: %s\n\n", bench::CpuModelName().c_str(), cores,
              target.ToString().c_str(), codegen::LdLldPath());

  tuner::SearchTarget space = tuner::SearchTarget::FromTarget(target);
  bench::WorkloadInputs inputs;
  const bench::Workload w = bench::ConvNchwcWorkload(inputs, "resnet-18 ", bench::ResNet18Convs()[2], space.vector_lanes);
  std::mt19937_64 rng(7);
  tuner::SampleStats stats;
  const std::vector<schedule::State> programs = tuner::SampleInitialPopulation(w.dag, space, count, rng, &stats);
  std::vector<std::string> objects(programs.size());
  TimeOnWorkers(programs.size(), cores, [&](size_t i) -> absl::Status {
    absl::StatusOr<std::string> o = CompileObject(programs[i], target);
    if (!o.ok()) return o.status();
    objects[i] = std::move(*o);
    return absl::OkStatus();
  });
  size_t object_bytes = 0;
  for (const std::string& o : objects) object_bytes += o.size();
  std::printf("%s: %zu programs, objects %.1f KB on average\n\n", w.name.c_str(), programs.size(),
              static_cast<double>(object_bytes) / 1e3 / static_cast<double>(objects.size()));

  // Same bytes from both linkers?
  size_t identical = 0;
  for (const std::string& o : objects) {
    auto a = codegen::LinkSharedObject(o, Linker::kInProcess);
    auto b = codegen::LinkSharedObject(o, Linker::kExecutable);
    if (!a.ok() || !b.ok()) {
      std::fprintf(stderr, "failed: %s\n", std::string((a.ok() ? b : a).status().message()).c_str());
      return 1;
    }
    identical += *a == *b ? 1 : 0;
  }
  std::printf("identical .so bytes from both linkers: %zu of %zu\n\n", identical, objects.size());

  std::printf("%-16s %8s %16s %10s %18s\n", "linker", "workers", "link only ms/link", "links/s", "build programs/s");
  for (size_t workers : {size_t{1}, cores}) {
    for (Linker linker : {Linker::kInProcess, Linker::kExecutable}) {
      const size_t links = objects.size() * static_cast<size_t>(rounds);
      const double link_s = TimeOnWorkers(links, workers, [&](size_t i) {
        return codegen::LinkSharedObject(objects[i % objects.size()], linker).status();
      });
      const double build_s = TimeOnWorkers(programs.size(), workers, [&](size_t i) -> absl::Status {
        absl::StatusOr<std::string> o = CompileObject(programs[i], target);
        if (!o.ok()) return o.status();
        return codegen::LinkSharedObject(*o, linker).status();
      });
      std::printf("%-16s %8zu %16.2f %10.0f %18.1f\n", Name(linker), workers,
                  1e3 * link_s / static_cast<double>(links), static_cast<double>(links) / link_s,
                  static_cast<double>(programs.size()) / build_s);
    }
    if (cores == 1) break;
  }
  return 0;
}
