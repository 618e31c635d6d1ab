// The initial population of a search: programs drawn from a DAG's sketches. Each draw picks a
// sketch uniformly, annotates it randomly (random_annotation.h) and keeps the program only when
// it is valid: the State accepted every step, every split length is filled, it lowers
// (tir::Lower), and its local buffers fit the L2 cache. Invalid draws and repeats of a program
// already drawn (same schedule hash) are counted, by reason.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"
#include "compiler/tir/stmt.h"
#include "tuner/search_space/search_target.h"

namespace tunefarm::tuner {

struct SampleStats {
  int64_t sketches = 0;
  int64_t draws = 0;       // annotations tried
  int64_t valid = 0;       // distinct valid programs kept
  int64_t duplicates = 0;  // valid, but a program already kept
  std::map<std::string, int64_t> invalid;             // reason -> count
  std::map<std::string, std::string> first_messages;  // reason -> the first such error
  std::vector<int64_t> valid_per_sketch;

  int64_t invalid_total() const;
  // One line, e.g. "3 sketches, 214 draws: 200 valid, 9 duplicates, 5 invalid (lower 5)".
  std::string Summary() const;
};

// Reasons in SampleStats::invalid.
inline constexpr char kInvalidStep[] = "refused step";
inline constexpr char kInvalidUnfilled[] = "unfilled split";
inline constexpr char kInvalidLower[] = "lower";
inline constexpr char kInvalidLocalTile[] = "local tile over L2";
inline constexpr char kInvalidGpuLaunch[] = "GPU launch";

// OK when `program` is a complete schedule that lowers and whose local buffers fit the L2 cache
// (on a GPU: whose launches plan within the target's limits and whose shared-memory barriers
// every thread reaches); otherwise the Status message starts with the reason.
absl::Status CheckProgram(const schedule::State& program, const SearchTarget& target);
// The same check, returning the lowered program (so a caller that needs it lowers once).
absl::StatusOr<tir::PrimFunc> LowerProgram(const schedule::State& program, const SearchTarget& target);

// Up to `n` distinct valid programs from `sketches` (fewer when `max_draws` draws, default
// 8n + 64, run out). `stats` may be null. The validity checks (lowerings) run on every core of
// this host; the result depends only on `rng`. With `lowered`, it receives each program's
// lowered function (what LowerProgram gave), in the same order, so a caller lowers once.
std::vector<schedule::State> SampleFromSketches(const std::vector<schedule::State>& sketches, const SearchTarget& target,
                                                int n, std::mt19937_64& rng, SampleStats* stats, int64_t max_draws = 0,
                                                std::vector<tir::PrimFunc>* lowered = nullptr);

// GenerateSketches, then SampleFromSketches.
std::vector<schedule::State> SampleInitialPopulation(std::shared_ptr<const te::ComputeDag> dag,
                                                     const SearchTarget& target, int n, std::mt19937_64& rng,
                                                     SampleStats* stats, int64_t max_draws = 0);

}  // namespace tunefarm::tuner
