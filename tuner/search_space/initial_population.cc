#include "tuner/search_space/initial_population.h"

#include <set>

#include "compiler/common/strings.h"
#include "compiler/tir/lower.h"
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
  for (std::string_view r : {kInvalidUnfilled, kInvalidLower, kInvalidLocalTile})
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
  for (const tir::Buffer& b : f->buffers)
    if (b.scope == tir::BufferScope::kLocal && b.NumBytes() > target.l2_bytes)
      return Invalid(kInvalidLocalTile, StrCat("local buffer ", b.name, " needs ", b.NumBytes(), " bytes"));
  return f;
}

absl::Status CheckProgram(const schedule::State& program, const SearchTarget& target) {
  return LowerProgram(program, target).status();
}

std::vector<schedule::State> SampleFromSketches(const std::vector<schedule::State>& sketches, const SearchTarget& target,
                                                int n, std::mt19937_64& rng, SampleStats* stats, int64_t max_draws) {
  SampleStats local;
  SampleStats& st = stats ? *stats : local;
  st.sketches = static_cast<int64_t>(sketches.size());
  st.valid_per_sketch.assign(sketches.size(), 0);
  std::vector<schedule::State> out;
  if (sketches.empty() || n <= 0) return out;
  if (max_draws <= 0) max_draws = int64_t{8} * n + 64;
  std::set<std::string> seen;
  for (int64_t draw = 0; draw < max_draws && static_cast<int>(out.size()) < n; ++draw) {
    ++st.draws;
    const size_t pick = rng() % sketches.size();
    auto count_invalid = [&](const absl::Status& s) {
      const std::string reason = ReasonOf(s);
      if (st.invalid[reason]++ == 0) st.first_messages[reason] = std::string(s.message());
    };
    auto program = AnnotateRandomly(sketches[pick], target, rng);
    if (!program.ok()) {
      count_invalid(program.status());
      continue;
    }
    // Hash before lowering: a repeat is cheap to spot, lowering is the expensive check.
    std::string hash = program->Hash();
    if (seen.count(hash)) {
      ++st.duplicates;
      continue;
    }
    if (absl::Status valid = CheckProgram(*program, target); !valid.ok()) {
      count_invalid(valid);
      continue;
    }
    seen.insert(std::move(hash));
    ++st.valid;
    ++st.valid_per_sketch[pick];
    out.push_back(std::move(*program));
  }
  return out;
}

std::vector<schedule::State> SampleInitialPopulation(std::shared_ptr<const te::ComputeDag> dag,
                                                     const SearchTarget& target, int n, std::mt19937_64& rng,
                                                     SampleStats* stats, int64_t max_draws) {
  return SampleFromSketches(GenerateSketches(std::move(dag), target), target, n, rng, stats, max_draws);
}

}  // namespace tunefarm::tuner
