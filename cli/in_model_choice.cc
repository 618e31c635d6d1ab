#include "cli/in_model_choice.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "cli/model_runtime.h"
#include "cli/table.h"
#include "common/strings.h"
#include "common/temp_dir.h"

namespace tunefarm::cli {
namespace {

// Profiled runs per variant and round, and rounds (variants alternate, in an order that rotates
// from round to round, so a slow phase of the host hits all of them alike; each call keeps its
// best median over the rounds). Nine rounds, not three: two builds of the same program summed
// to call medians up to 7% apart in three rounds, and 1.1-1.2% apart in nine (resnet18, 2
// threads, Zen 4), for about 2 s more.
constexpr int kRunsPerRound = 10;
constexpr int kRounds = 9;
constexpr int kWarmupRuns = 3;

const char* const kVariantNames[] = {"default", "best record", "2nd record"};
constexpr int kVariants = 3;

// The database's candidates from rank `skip` on (rank 0 is the best); skip < 0: none, so every
// task falls back to the default rules.
class RankedSource : public build::ScheduleSource {
 public:
  RankedSource(const build::ScheduleSource& base, int skip) : base_(base), skip_(skip) {}
  std::vector<build::ScheduleChoice> Candidates(const std::string& workload_key, const std::string& target,
                                                int threads, int limit) const override {
    if (skip_ < 0) return {};
    std::vector<build::ScheduleChoice> all = base_.Candidates(workload_key, target, threads, limit + skip_);
    if (static_cast<int>(all.size()) <= skip_) return {};
    return std::vector<build::ScheduleChoice>(all.begin() + skip_, all.end());
  }

 private:
  const build::ScheduleSource& base_;
  int skip_;
};

// Per workload key, the variant chosen for it.
class ChosenSource : public build::ScheduleSource {
 public:
  ChosenSource(const build::ScheduleSource& database, std::map<std::string, int> variant_of_key)
      : database_(database), variant_of_key_(std::move(variant_of_key)) {}
  std::vector<build::ScheduleChoice> Candidates(const std::string& workload_key, const std::string& target,
                                                int threads, int limit) const override {
    auto it = variant_of_key_.find(workload_key);
    const int variant = it == variant_of_key_.end() ? 1 : it->second;
    return RankedSource(database_, variant - 1).Candidates(workload_key, target, threads, limit);
  }

 private:
  const build::ScheduleSource& database_;
  std::map<std::string, int> variant_of_key_;
};

}  // namespace

bool IsRepeatVariant(const std::vector<std::string>& origins, int v) {
  for (int u = 0; u < v; ++u) {
    if (origins[u] == origins[v]) return true;
  }
  return false;
}

int ChooseVariant(const std::vector<std::string>& origins, const std::vector<double>& seconds) {
  int chosen = 0;
  for (int v = 1; v < static_cast<int>(seconds.size()); ++v) {
    if (!IsRepeatVariant(origins, v) && seconds[v] < seconds[chosen]) chosen = v;
  }
  return chosen;
}

absl::StatusOr<InModelChoice> ChooseSchedulesInModel(const build::ModelPlan& plan, const build::BuildOptions& options,
                                                     const build::ScheduleSource& database,
                                                     const std::function<void(std::string_view)>& progress) {
  absl::StatusOr<TempDir> scratch = TempDir::Create("tunefarm-choose");
  if (!scratch.ok()) return scratch.status();
  const size_t num_tasks = plan.exec.tasks.size();
  std::vector<std::vector<std::string>> origin(kVariants, std::vector<std::string>(num_tasks));
  std::vector<std::unique_ptr<LoadedModel>> models;
  for (int v = 0; v < kVariants; ++v) {
    progress(StrCat("building variant ", v + 1, " of ", kVariants, ": every kernel on its ", kVariantNames[v]));
    RankedSource source(database, v - 1);
    build::BuildOptions variant_options = options;
    variant_options.schedules = &source;
    variant_options.progress = nullptr;
    build::ModelPlan copy = plan;
    absl::StatusOr<std::string> bytes = build::BuildArtifact(&copy, variant_options);
    if (!bytes.ok()) return bytes.status();
    for (size_t t = 0; t < num_tasks; ++t) origin[v][t] = copy.exec.tasks[t].schedule;
    const std::string path = StrCat(scratch->path(), "/variant", v, ".so");
    if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
      const bool wrote = std::fwrite(bytes->data(), 1, bytes->size(), f) == bytes->size();
      if (std::fclose(f) != 0 || !wrote) return absl::InternalError(StrCat("cannot write ", path));
    } else {
      return absl::InternalError(StrCat("cannot create ", path));
    }
    absl::StatusOr<std::unique_ptr<LoadedModel>> model = LoadedModel::Load(path, 0);
    if (!model.ok()) return model.status();
    if ((*model)->calls().size() != plan.exec.calls.size()) {
      return absl::InternalError(StrCat(path, " has ", (*model)->calls().size(), " calls, the plan ",
                                        plan.exec.calls.size()));
    }
    if (absl::Status s = SetPseudoRandomInputs(**model, 42); !s.ok()) return s;
    for (int r = 0; r < kWarmupRuns; ++r) {
      if (absl::Status s = (*model)->Run(); !s.ok()) return s;
    }
    models.push_back(std::move(*model));
  }

  // best[v][c]: call c's best median over the rounds under variant v.
  std::vector<std::vector<double>> best(kVariants, std::vector<double>(plan.exec.calls.size(),
                                                                         std::numeric_limits<double>::infinity()));
  for (int round = 0; round < kRounds; ++round) {
    progress(StrCat("timing the variants call by call, round ", round + 1, " of ", kRounds));
    // Each round starts with another variant, so that none is always timed right after the
    // same one (with nine rounds, each variant is first, second and third three times).
    for (int i = 0; i < kVariants; ++i) {
      const int v = (round + i) % kVariants;
      absl::StatusOr<std::vector<double>> medians = CallMedians(*models[v], kRunsPerRound);
      if (!medians.ok()) return medians.status();
      for (size_t c = 0; c < medians->size(); ++c) best[v][c] = std::min(best[v][c], (*medians)[c]);
    }
  }

  InModelChoice out;
  std::vector<std::vector<double>> task_time(kVariants, std::vector<double>(num_tasks, 0));
  out.variant_sum_s.assign(kVariants, 0);
  for (int v = 0; v < kVariants; ++v) {
    for (size_t c = 0; c < plan.exec.calls.size(); ++c) {
      task_time[v][plan.exec.calls[c].task] += best[v][c];
      out.variant_sum_s[v] += best[v][c];
    }
  }
  using A = Table::Align;
  Table table({{"KERNEL"}, {"CALLS", A::kRight}, {"DEFAULT", A::kRight}, {"BEST RECORD", A::kRight},
               {"2ND RECORD", A::kRight}, {"CHOSEN"}});
  std::map<std::string, int> variant_of_key;
  for (size_t t = 0; t < num_tasks; ++t) {
    // A variant that built the same schedule as an earlier one is the same program: not a choice.
    std::vector<std::string> origins;
    std::vector<double> seconds;
    for (int v = 0; v < kVariants; ++v) {
      origins.push_back(origin[v][t]);
      seconds.push_back(task_time[v][t]);
    }
    const int chosen = ChooseVariant(origins, seconds);
    std::vector<std::string> cells = {plan.exec.tasks[t].kernel_name, std::to_string(plan.exec.tasks[t].weight)};
    for (int v = 0; v < kVariants; ++v) {
      cells.push_back(IsRepeatVariant(origins, v) ? "=" : FormatSeconds(seconds[v]));
    }
    cells.push_back(kVariantNames[chosen]);
    table.AddRow(cells);
    variant_of_key[plan.exec.tasks[t].dag->WorkloadKey()] = chosen;
    out.chosen_sum_s += task_time[chosen][t];
  }
  out.report = StrCat(table.ToString(), "sum of call medians: default ", FormatSeconds(out.variant_sum_s[0]),
                      ", best records ", FormatSeconds(out.variant_sum_s[1]), ", 2nd records ",
                      FormatSeconds(out.variant_sum_s[2]), ", chosen ", FormatSeconds(out.chosen_sum_s), "\n");
  out.source = std::make_unique<ChosenSource>(database, std::move(variant_of_key));
  return out;
}

}  // namespace tunefarm::cli
