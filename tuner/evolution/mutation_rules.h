// Mutation rules (Ansor's): small edits of a program's step list that give another program of
// the same sketch. A rule edits the parent's steps and replays them on a fresh State
// (step_edit.h); the Mutator checks that the result is a new, valid program. The table, with
// Ansor's weights (a rule is drawn in proportion to its weight):
//   1. tile size         0.90  one split: a divisor d > 1 of one level's length (or of the outer
//                              loop's extent) moves to another level; the innermost length
//                              stays at most 64 and, for a space split, the limits random
//                              annotation draws with hold: on a CPU the innermost lengths of the
//                              stage's space splits stay within RegisterTileElements(); on a GPU
//                              (checked after any move) each thread's accumulators, its virtual
//                              threads' included, stay within AccumulatorsPerThread(its block
//                              size), and its virtual threads within kMaxVirtualThreads. The
//                              split's extent is kept,
//                              so follow splits and the loops of other stages keep theirs.
//   2. auto-unroll       0.04  one auto_unroll_max_step pragma takes another of kAutoUnrollChoices
//   3. compute location  0.05  one location step that random annotation chose (a stage no sketch
//                              rule placed) takes another choice annotation had: inline (no
//                              reduction), root, or a loop of its only reader outside the
//                              reader's first reduce loop. Inlined, the stage's later steps go;
//                              computed at a loop, its own parallel loop goes (it would nest in
//                              the reader's). A stage annotation kept at the root wrote no step:
//                              it gets one where annotation's location steps end (before the
//                              first parallel / vectorize / unroll step). Ansor only edits
//                              compute_at steps.
//   4. parallel          0.01  one stage's parallel loop fuses another number of its outer loops
//                              (at least 1, only unannotated space loops, a loop hosting other
//                              stages only as the last, never the innermost loop); later steps'
//                              loop positions in the stage move with it (Ansor's MutateParallel).
//   5. layout rewrite   0.02  one constant that a layout rewrite could take, or has taken, toggles
//                              it: the LR step is inserted where annotation draws it (after the
//                              location steps) or erased, later stage numbers shift with it. Not
//                              Ansor's (its layout is fixed per task); rule weights are relative.
//   6. storage align    0.02  one shared tile toggles bank-conflict padding of its rows (an SA
//                              step appended, or erased). Not Ansor's either (GPU only).
// A rule that finds nothing to change returns FailedPrecondition, one whose draw breaks a tile
// limit OutOfRange; a step the replay refuses returns its error. Either way the Mutator draws again (a rule by weight, then its choices).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/state.h"
#include "tuner/search_space/search_target.h"
#include "tuner/search_space/split_factorization.h"

namespace tunefarm::tuner {


struct MutationRule {
  std::string_view name;
  double weight;
  absl::StatusOr<schedule::State> (*apply)(const schedule::State& parent, const SearchTarget& target,
                                           std::mt19937_64& rng);
};

// The rules above, in order.
const std::vector<MutationRule>& MutationRules();

// One file each.
absl::StatusOr<schedule::State> MutateTileSize(const schedule::State& parent, const SearchTarget& target,
                                               std::mt19937_64& rng);
absl::StatusOr<schedule::State> MutateAutoUnroll(const schedule::State& parent, const SearchTarget& target,
                                                 std::mt19937_64& rng);
absl::StatusOr<schedule::State> MutateComputeLocation(const schedule::State& parent, const SearchTarget& target,
                                                      std::mt19937_64& rng);
absl::StatusOr<schedule::State> MutateParallel(const schedule::State& parent, const SearchTarget& target,
                                               std::mt19937_64& rng);
absl::StatusOr<schedule::State> MutateLayoutRewrite(const schedule::State& parent, const SearchTarget& target,
                                                    std::mt19937_64& rng);
absl::StatusOr<schedule::State> MutateStorageAlign(const schedule::State& parent, const SearchTarget& target,
                                                   std::mt19937_64& rng);

// Why a draw gave no mutant (keys of RuleStats::failed).
inline constexpr char kMutationNothingToChange[] = "nothing to change";
inline constexpr char kMutationOverLimit[] = "over a tile limit";
inline constexpr char kMutationRefused[] = "refused step";
inline constexpr char kMutationSame[] = "same schedule";
inline constexpr char kMutationInvalid[] = "invalid program";

struct RuleStats {
  int64_t tried = 0;
  int64_t applied = 0;  // emitted: new and valid
  std::map<std::string, int64_t> failed;  // reason -> count
  std::map<std::string, std::string> first_messages;  // reason -> the first such error
};

struct MutationStats {
  std::vector<RuleStats> rules;  // as MutationRules()
  int64_t checks = 0;            // CheckProgram calls (the others hit the cache)
  // One line per rule, e.g. "tile size: 9120 tried, 8012 applied (88%); invalid program 1000, ...",
  // and with `messages` the first error of each reason.
  std::string Summary(bool messages = false) const;
};

struct Mutant {
  schedule::State program;
  std::string hash;
  int rule = -1;
};

// Draws mutations until one gives a new valid program. Validity is CheckProgram, remembered by
// schedule hash (mutants repeat). With check_programs false, a mutant only has to replay: the
// caller checks it (the evolutionary search can leave that to its score function).
// Thread-safe: several threads may mutate at once, each with its own random generator (the
// evolutionary search mutates a generation on every core); the stats and the check cache are
// shared under a lock, the rules and checks run outside it.
class Mutator {
 public:
  explicit Mutator(SearchTarget target, int max_tries = 8, bool check_programs = true);

  // A mutant whose hash differs from `parent_hash`, or nullopt after max_tries draws failed.
  std::optional<Mutant> Mutate(const schedule::State& parent, const std::string& parent_hash, std::mt19937_64& rng);

  // Rule `rule` once (the draw Mutate makes after picking the rule); the status says why not, its
  // message starting with one of the reasons above.
  absl::StatusOr<Mutant> MutateWith(int rule, const schedule::State& parent, const std::string& parent_hash,
                                    std::mt19937_64& rng);

  // CheckProgram, cached by hash.
  absl::Status Check(const schedule::State& program, const std::string& hash);

  // A copy: other threads may be counting.
  MutationStats stats() const;
  const SearchTarget& target() const { return target_; }

 private:
  // Counts one draw of `rule`; `reason` empty: applied, else why not (with the error's message).
  void Count(int rule, std::string_view reason = {}, std::string_view message = {});

  SearchTarget target_;
  int max_tries_;
  bool check_programs_;
  mutable std::mutex mu_;
  MutationStats stats_;                                    // guarded by mu_
  std::unordered_map<std::string, absl::Status> checked_;  // guarded by mu_
};

}  // namespace tunefarm::tuner
