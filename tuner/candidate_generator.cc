#include "tuner/candidate_generator.h"

#include "common/strings.h"
#include "compiler/schedule/gpu_thread_per_point.h"
#include "tuner/search_space/gpu_annotation.h"
#include "tuner/search_space/gpu_default_program.h"
#include "tuner/search_space/initial_population.h"
#include "tuner/search_space/random_annotation.h"
#include "tuner/search_space/sketch_rules.h"
#include "tuner/tuning_profile.h"

namespace tunefarm::tuner {
// Lowering catches what replay cannot (e.g. a region that does not fit); such a state would
// only fail to build later, so it is not a candidate.
absl::StatusOr<Candidate> MakeCandidate(schedule::State state, const SearchTarget& target,
                                        std::shared_ptr<const tir::PrimFunc> lowered) {
  if (lowered == nullptr) {
    absl::StatusOr<tir::PrimFunc> func = [&] {
      StageTimer timer(TuningStage::kLower);
      return LowerProgram(state, target);
    }();
    if (!func.ok()) return func.status();
    lowered = std::make_shared<const tir::PrimFunc>(std::move(*func));
  }
  std::string json = state.ToJson();
  std::string hash = state.Hash();
  return Candidate{std::move(state), std::move(json), std::move(hash), std::move(lowered)};
}

uint64_t TaskSeed(uint64_t job_seed, const std::string& workload_key) {
  uint64_t h = 0xcbf29ce484222325ull ^ job_seed;  // FNV-1a over the key
  for (unsigned char c : workload_key) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

CandidateGenerator::CandidateGenerator(std::shared_ptr<const te::ComputeDag> dag, Candidate default_candidate,
                                       std::vector<schedule::State> sketches, const SearchTarget& target,
                                       uint64_t seed, MutationOptions mutation)
    : dag_(std::move(dag)),
      default_(std::move(default_candidate)),
      sketches_(std::move(sketches)),
      target_(target),
      rng_(seed),
      mutation_(mutation) {}

absl::StatusOr<CandidateGenerator> CandidateGenerator::Create(
    std::shared_ptr<const te::ComputeDag> dag, const schedule::RuleContext& rules, const SearchTarget& target,
    uint64_t seed, MutationOptions mutation) {
  // A GPU's default is its default program (shared and register tiles by fixed rules), or one
  // thread per output point where that cannot be built or lowered; a CPU's vectorizes and
  // parallelizes.
  absl::StatusOr<Candidate> candidate = absl::UnknownError("no default");
  if (target.gpu) {
    if (absl::StatusOr<schedule::State> program = GpuDefaultProgram(dag, target); program.ok())
      candidate = MakeCandidate(std::move(*program), target);
  }
  if (!candidate.ok()) {
    auto state = target.gpu ? schedule::ApplyGpuThreadPerPointSchedule(dag, schedule::GpuRuleContext{})
                            : schedule::ApplyDefaultSchedule(dag, rules);
    if (!state.ok()) return state.status();
    candidate = MakeCandidate(std::move(*state), target);
  }
  if (!candidate.ok()) {
    return absl::InternalError(StrCat("the default schedule of ", dag->WorkloadKey(),
                                      " does not lower: ", std::string(candidate.status().message())));
  }
  std::vector<schedule::State> sketches = GenerateSketches(dag, target);
  return CandidateGenerator(std::move(dag), std::move(*candidate), std::move(sketches), target, seed, mutation);
}

absl::StatusOr<schedule::State> CandidateGenerator::Draw() {
  if (sketches_.empty() || rng_() % 4 == 0) {
    absl::StatusOr<schedule::State> replayed = ReplayWithMutations(dag_, default_.state.steps(), rng_, mutation_);
    // A GPU replay's fetch lanes and padded rows refitted to its mutated tiles, as the tile-size
    // mutation refits them (rows padded to 16 modulo 32 that shrank to 2 would take 8 times
    // their tile's memory).
    if (replayed.ok() && target_.gpu) return FitFetchesToTiles(*replayed);
    return replayed;
  }
  const schedule::State& sketch = sketches_[rng_() % sketches_.size()];
  return AnnotateRandomly(sketch, target_, rng_);
}

std::vector<Candidate> CandidateGenerator::Next(int count, std::set<std::string>* seen) {
  std::vector<Candidate> out;
  if (count <= 0) return out;
  if (seen->insert(default_.hash).second) out.push_back(default_);
  int misses = 0;
  while (static_cast<int>(out.size()) < count && misses < max_attempts) {
    auto state = Draw();
    if (!state.ok()) {
      ++invalid_draws_;
      ++misses;
      continue;
    }
    // Hash before lowering: most late draws repeat a known schedule, and hashing is cheap.
    if (seen->count(state->Hash())) {
      ++duplicate_draws_;
      ++misses;
      continue;
    }
    // Lowers, and checks what lowering alone does not (a local tile must fit the L2 cache).
    auto candidate = MakeCandidate(std::move(*state), target_);
    if (!candidate.ok()) {
      ++invalid_draws_;
      ++misses;
      continue;
    }
    seen->insert(candidate->hash);
    out.push_back(std::move(*candidate));
    misses = 0;
  }
  return out;
}

}  // namespace tunefarm::tuner
