// The XGBoost cost model's speed at the size the search uses it: training on a round's worth of
// measured programs, and scoring the evolution's populations (2048 programs, 4+ generations per
// round, so prediction is on the search's critical path). Synthetic programs of 4 rows x 164
// features (Ansor's per-store width), whose true throughput is a known function of the rows
// (tests/tuner/cost_model/synthetic_programs.h); the held-out ranking quality is printed so a
// fast but useless model shows. Real measured records: see docs/tuner.md once features exist.
//
// Environment:
//   TUNEFARM_COST_MODEL_PROGRAMS  training programs (default 2000; 500 more are held out)
//   TUNEFARM_COST_MODEL_THREADS   XGBoost thread counts, e.g. "1" or "1,2" (default 1,2)
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/compiler/bench_kernels.h"
#include "bench/timing.h"
#include "common/strings.h"
#include "tests/tuner/cost_model/synthetic_programs.h"
#include "tuner/cost_model/ranking_metrics.h"
#include "tuner/cost_model/xgb_cost_model.h"

using namespace tunefarm;
using namespace tunefarm::tuner;

namespace {

constexpr int kRows = 4;
constexpr int kCols = 164;
constexpr int kHoldout = 500;
constexpr int kPopulation = 2048;

struct Row {
  const char* mode;
  int nthread;
  int max_bin;
  TrainReport report;
  double train_s;
  double predict_ms_per_1000;
  double pairwise_accuracy;
  double top5_recall;
};

Row Measure(const char* mode, int nthread, int max_bin, const TrainHoldoutSplit& split, bool validate) {
  const TrainingSet& train = split.train;
  const TrainingSet& holdout = split.holdout;
  XgbParams params;
  params.nthread = nthread;
  params.max_bin = max_bin;
  XgbCostModel model(params);
  LabeledPrograms train_part{train.features, split.train_labels};
  // Early stopping on a fifth of the training programs, as the search would do it.
  TrainHoldoutSplit fit_val = SplitTrainHoldout(train, 0.2, 11);
  LabeledPrograms validation{fit_val.holdout.features, fit_val.holdout_labels};

  bench::Clock::time_point start = bench::Clock::now();
  absl::StatusOr<TrainReport> report =
      validate ? model.Train({fit_val.train.features, fit_val.train_labels}, &validation) : model.Train(train_part);
  double train_s = bench::SecondsSince(start);
  if (!report.ok()) {
    std::fprintf(stderr, "training failed: %s\n", std::string(report.status().message()).c_str());
    std::exit(1);
  }

  std::vector<FeatureMatrix> population;
  for (int i = 0; i < kPopulation; ++i) population.push_back(holdout.features[i % holdout.size()]);
  double predict_s = bench::MedianSecondsPerCall([&] {
    if (!model.Predict(population).ok()) std::abort();
  });

  std::vector<float> scores = *model.Predict(holdout.features);
  return {mode,
          nthread,
          max_bin,
          *report,
          train_s,
          predict_s / kPopulation * 1000 * 1e3,
          PairwiseAccuracy(holdout.costs_s, scores),
          TopKRecall(holdout.costs_s, scores, 5)};
}

}  // namespace

int main() {
  int programs = 2000;
  if (const char* v = std::getenv("TUNEFARM_COST_MODEL_PROGRAMS")) programs = std::max(10, std::atoi(v));
  std::vector<int> threads = {1, 2};
  if (const char* v = std::getenv("TUNEFARM_COST_MODEL_THREADS")) {
    threads.clear();
    for (std::string_view part : StrSplit(v, ',', /*skip_empty=*/true)) {
      int64_t n = 0;
      if (ParseInt64(part, &n) && n > 0) threads.push_back(static_cast<int>(n));
    }
  }

  TrainingSet all = testing::SyntheticTrainingSet(
      {.programs = programs + kHoldout, .cols = kCols, .min_rows = kRows, .max_rows = kRows, .seed = 1});
  TrainHoldoutSplit split = SplitTrainHoldout(all, static_cast<double>(kHoldout) / all.size(), 1);

  std::printf("cpu: %s\n", bench::CpuModelName().c_str());
  std::printf("data: %zu training programs, %zu held out, %d rows x %d features each; XGBoost hist, depth 10, eta 0.2\n",
              split.train.size(), split.holdout.size(), kRows, kCols);
  std::printf("predict: batches of %d programs\n", kPopulation);
  std::printf("%-22s %7s %7s %6s %9s %12s %14s %9s\n", "training", "nthread", "max_bin", "rounds", "train s",
              "predict ms", "pairwise acc", "top-5");
  std::printf("%-22s %7s %7s %6s %9s %12s %14s %9s\n", "", "", "", "", "", "/1000 progs", "(held out)", "recall");
  auto print = [](const Row& r) {
    std::printf("%-22s %7d %7d %6d %9.2f %12.2f %14.3f %9.2f\n", r.mode, r.nthread, r.max_bin, r.report.rounds,
                r.train_s, r.predict_ms_per_1000, r.pairwise_accuracy, r.top5_recall);
  };
  // The defaults (256 bins, as fine as XGBoost's hist goes by default), then early stopping,
  // then coarser bins: the histogram work per tree node dominates training at depth 10.
  for (int nthread : threads) print(Measure("200 rounds, all data", nthread, 256, split, false));
  for (int nthread : threads) print(Measure("early stop (80/20)", nthread, 256, split, true));
  for (int nthread : threads) print(Measure("200 rounds, all data", nthread, 64, split, false));
  return 0;
}
