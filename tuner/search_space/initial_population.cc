#include "tuner/search_space/initial_population.h"

#include <algorithm>
#include <set>

#include "common/strings.h"
#include "compiler/tir/gpu_barriers.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/lower.h"
#include "tuner/parallel_work.h"
#include "tuner/search_space/random_annotation.h"
#include "tuner/search_space/sketch_rules.h"

namespace tunefarm::tuner {
namespace {

absl::Status Invalid(std::string_view reason, std::string_view detail) {
  return absl::InvalidArgumentError(StrCat(reason, ": ", detail));
}

// The reason at the head of a CheckProgram / annotation error.
std::string ReasonOf(const absl::Status& s) {
  const std::string message(s.message());
  for (std::string_view r : {kInvalidUnfilled, kInvalidLower, kInvalidLocalTile, kInvalidGpuLaunch})
    if (message.rfind(r, 0) == 0) return std::string(r);
  return kInvalidStep;
}

}  // namespace

int64_t SampleStats::invalid_total() const {
  int64_t n = 0;
  for (const auto& [reason, count] : invalid) n += count;
  return n;
}

std::string SampleStats::Summary() const {
  std::string out = StrCat(sketches, " sketches, ", draws, " draws: ", valid, " valid, ", duplicates, " duplicates, ",
                           invalid_total(), " invalid");
  if (!invalid.empty()) {
    std::vector<std::string> parts;
    for (const auto& [reason, count] : invalid) parts.push_back(StrCat(reason, " ", count));
    StrAppend(&out, " (", StrJoin(parts, ", "), ")");
  }
  return out;
}

absl::StatusOr<tir::PrimFunc> LowerProgram(const schedule::State& program, const SearchTarget& target) {
  if (!program.IsConcrete()) return Invalid(kInvalidUnfilled, "some split length is unfilled");
  auto f = tir::Lower(program, "sample");
  if (!f.ok()) return Invalid(kInvalidLower, std::string(f.status().message()));
  if (target.gpu) {
    // What code generation would refuse: launches over the device's limits, a binding that
    // races, a barrier threads cannot all reach.
    if (absl::Status s = tir::CheckGpuLaunches(*f, {target.max_threads_per_block, target.max_shared_bytes}); !s.ok())
      return Invalid(kInvalidGpuLaunch, std::string(s.message()));
    return f;
  }
  for (const tir::Buffer& b : f->buffers)
    if (b.scope == tir::BufferScope::kLocal && b.NumBytes() > target.l2_bytes)
      return Invalid(kInvalidLocalTile, StrCat("local buffer ", b.name, " needs ", b.NumBytes(), " bytes"));
  return f;
}

absl::Status CheckProgram(const schedule::State& program, const SearchTarget& target) {
  return LowerProgram(program, target).status();
}

std::vector<schedule::State> SampleFromSketches(const std::vector<schedule::State>& sketches, const SearchTarget& target,
                                                int n, std::mt19937_64& rng, SampleStats* stats, int64_t max_draws,
                                                std::vector<tir::PrimFunc>* lowered) {
  SampleStats local;
  SampleStats& st = stats ? *stats : local;
  st.sketches = static_cast<int64_t>(sketches.size());
  st.valid_per_sketch.assign(sketches.size(), 0);
  std::vector<schedule::State> out;
  if (lowered != nullptr) lowered->clear();
  if (sketches.empty() || n <= 0) return out;
  if (max_draws <= 0) max_draws = int64_t{8} * n + 64;
  auto count_invalid = [&](const absl::Status& s) {
    const std::string reason = ReasonOf(s);
    if (st.invalid[reason]++ == 0) st.first_messages[reason] = std::string(s.message());
  };
  struct Draw {
    size_t pick;
    absl::StatusOr<schedule::State> program;
    std::string hash;
  };
  std::set<std::string> seen;  // hashes of the programs kept
  // Rounds of as many draws as programs are still wanted: annotation (which uses `rng`) runs in
  // draw order, the lowering check on every core, and the results are taken in draw order, so
  // the programs and the stats are those of drawing and checking one at a time.
  while (static_cast<int>(out.size()) < n && st.draws < max_draws) {
    const int64_t round = std::min<int64_t>(n - static_cast<int64_t>(out.size()), max_draws - st.draws);
    std::vector<Draw> draws;
    draws.reserve(static_cast<size_t>(round));  // to_check points into it
    std::map<std::string, size_t> to_lower;     // hash -> index into to_check
    std::vector<const schedule::State*> to_check;
    for (int64_t k = 0; k < round; ++k) {
      const size_t pick = rng() % sketches.size();
      Draw& d = draws.emplace_back(Draw{pick, AnnotateRandomly(sketches[pick], target, rng), ""});
      if (!d.program.ok()) continue;
      // Hash before lowering: a repeat is cheap to spot, lowering is the expensive check.
      d.hash = d.program->Hash();
      if (!seen.count(d.hash) && to_lower.emplace(d.hash, to_check.size()).second) to_check.push_back(&*d.program);
    }
    std::vector<absl::StatusOr<tir::PrimFunc>> checked(to_check.size(), absl::UnknownError("not lowered"));
    RunOnWorkers(to_check.size(), 0, [&](size_t i) { checked[i] = LowerProgram(*to_check[i], target); });
    for (Draw& d : draws) {
      ++st.draws;
      if (!d.program.ok()) {
        count_invalid(d.program.status());
        continue;
      }
      if (seen.count(d.hash)) {
        ++st.duplicates;
        continue;
      }
      absl::StatusOr<tir::PrimFunc>& func = checked[to_lower.at(d.hash)];
      if (!func.ok()) {
        count_invalid(func.status());
        continue;
      }
      seen.insert(d.hash);
      ++st.valid;
      ++st.valid_per_sketch[d.pick];
      out.push_back(std::move(*d.program));
      if (lowered != nullptr) lowered->push_back(*func);
    }
  }
  return out;
}

std::vector<schedule::State> SampleInitialPopulation(std::shared_ptr<const te::ComputeDag> dag,
                                                     const SearchTarget& target, int n, std::mt19937_64& rng,
                                                     SampleStats* stats, int64_t max_draws) {
  return SampleFromSketches(GenerateSketches(std::move(dag), target), target, n, rng, stats, max_draws);
}

}  // namespace tunefarm::tuner
