#include "tuner/evolution/mutation_rules.h"

#include <utility>

#include "common/strings.h"
#include "tuner/search_space/initial_population.h"

namespace tunefarm::tuner {

const std::vector<MutationRule>& MutationRules() {
  static const std::vector<MutationRule> rules = {
      {"tile size", 0.90, MutateTileSize},
      {"auto-unroll", 0.04, MutateAutoUnroll},
      {"compute location", 0.05, MutateComputeLocation},
      {"parallel", 0.01, MutateParallel},
      {"layout rewrite", 0.02, MutateLayoutRewrite},
      {"storage align", 0.02, MutateStorageAlign},
  };
  return rules;
}

std::string MutationStats::Summary(bool messages) const {
  std::vector<std::string> lines;
  for (size_t r = 0; r < rules.size(); ++r) {
    const RuleStats& s = rules[r];
    std::string line = StrCat(MutationRules()[r].name, ": ", s.tried, " tried, ", s.applied, " applied");
    if (s.tried > 0) StrAppend(&line, " (", static_cast<int>(100.0 * s.applied / s.tried + 0.5), "%)");
    std::vector<std::string> parts;
    for (const auto& [reason, count] : s.failed) parts.push_back(StrCat(reason, " ", count));
    if (!parts.empty()) StrAppend(&line, "; ", StrJoin(parts, ", "));
    lines.push_back(std::move(line));
    if (messages)
      for (const auto& [reason, message] : s.first_messages) lines.push_back(StrCat("    first ", reason, ": ", message));
  }
  return StrJoin(lines, "\n");
}

Mutator::Mutator(SearchTarget target, int max_tries, bool check_programs)
    : target_(target), max_tries_(max_tries), check_programs_(check_programs) {
  stats_.rules.resize(MutationRules().size());
}

MutationStats Mutator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void Mutator::Count(int rule, std::string_view reason, std::string_view message) {
  std::lock_guard<std::mutex> lock(mu_);
  RuleStats& st = stats_.rules[rule];
  ++st.tried;
  if (reason.empty()) {
    ++st.applied;
  } else if (st.failed[std::string(reason)]++ == 0) {
    st.first_messages[std::string(reason)] = std::string(message);
  }
}

absl::Status Mutator::Check(const schedule::State& program, const std::string& hash) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = checked_.find(hash);
    if (it != checked_.end()) return it->second;
    ++stats_.checks;
  }
  // Outside the lock: two threads may check one program at once, and get the same answer.
  absl::Status valid = CheckProgram(program, target_);
  std::lock_guard<std::mutex> lock(mu_);
  return checked_.emplace(hash, std::move(valid)).first->second;
}

absl::StatusOr<Mutant> Mutator::MutateWith(int rule, const schedule::State& parent, const std::string& parent_hash,
                                            std::mt19937_64& rng) {
  auto fail = [&](std::string_view reason, const absl::Status& why) {
    std::string message = StrCat(reason, ": ", std::string(why.message()));
    Count(rule, reason, message);
    return absl::Status(why.code(), std::move(message));
  };
  auto program = MutationRules()[rule].apply(parent, target_, rng);
  if (!program.ok()) {
    const absl::StatusCode code = program.status().code();
    return fail(code == absl::StatusCode::kFailedPrecondition ? kMutationNothingToChange
                : code == absl::StatusCode::kOutOfRange       ? kMutationOverLimit
                                                              : kMutationRefused,
                program.status());
  }
  std::string hash = program->Hash();
  if (hash == parent_hash) return fail(kMutationSame, absl::AlreadyExistsError("the parent's schedule"));
  if (check_programs_)
    if (absl::Status valid = Check(*program, hash); !valid.ok()) return fail(kMutationInvalid, valid);
  Count(rule);
  return Mutant{std::move(*program), std::move(hash), rule};
}

std::optional<Mutant> Mutator::Mutate(const schedule::State& parent, const std::string& parent_hash,
                                      std::mt19937_64& rng) {
  const std::vector<MutationRule>& rules = MutationRules();
  double total = 0;
  for (const MutationRule& r : rules) total += r.weight;
  for (int attempt = 0; attempt < max_tries_; ++attempt) {
    double x = std::uniform_real_distribution<double>(0, total)(rng);
    int rule = 0;
    while (rule + 1 < static_cast<int>(rules.size()) && x >= rules[rule].weight) x -= rules[rule++].weight;
    if (auto m = MutateWith(rule, parent, parent_hash, rng); m.ok()) return std::move(*m);
  }
  return std::nullopt;
}

}  // namespace tunefarm::tuner
