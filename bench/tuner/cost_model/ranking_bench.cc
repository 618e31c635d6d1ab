// How well the cost model ranks real measurements it was not trained on. Reads a tuning
// database's records for one target and thread count (e.g. tunefarm.db after `tunefarm tune`),
// replays and featurizes them, holds out a seeded 30% of the programs, trains on the rest
// exactly as a job does, and prints per task: programs held out, pairwise accuracy (the
// fraction of pairs with different costs the model orders right; 0.5 is chance) and top-5
// recall (of the 5 fastest held-out programs, how many the model puts in its top 5).
//
// usage: ranking_bench DB TARGET THREADS [LIMIT]
//   e.g. ranking_bench tunefarm.db "$(tunefarm db stats --db tunefarm.db --json | ...)" 2
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/compiler/bench_kernels.h"
#include "bench/timing.h"
#include "tuner/cost_model/ranking_metrics.h"
#include "tuner/cost_model/training_set.h"
#include "tuner/cost_model/xgb_cost_model.h"
#include "tuner/database_samples.h"

using namespace tunefarm;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s DB TARGET THREADS [LIMIT]\n", argv[0]);
    return 2;
  }
  db::OpenOptions open;
  open.create_if_missing = false;
  auto database = db::TuningDatabase::Open(argv[1], open);
  if (!database.ok()) {
    std::fprintf(stderr, "%s\n", std::string(database.status().message()).c_str());
    return 1;
  }
  const int threads = std::atoi(argv[3]);
  const int limit = argc > 4 ? std::atoi(argv[4]) : 100000;
  std::printf("cpu: %s\n", bench::CpuModelName().c_str());
  auto start = bench::Clock::now();
  auto samples = tuner::SamplesFromDatabase(database->get(), argv[2], threads, limit);
  if (!samples.ok()) {
    std::fprintf(stderr, "%s\n", std::string(samples.status().message()).c_str());
    return 1;
  }
  std::printf("%lld records, %lld skipped, %zu programs featurized in %.1f s\n",
              static_cast<long long>(samples->records), static_cast<long long>(samples->skipped), samples->set.size(),
              bench::SecondsSince(start));
  tuner::TrainHoldoutSplit split = tuner::SplitTrainHoldout(samples->set, 0.3, 1);
  tuner::XgbParams params;
  params.max_bin = 64;
  params.nthread = 2;
  tuner::XgbCostModel model(params);
  start = bench::Clock::now();
  auto report = model.Train({split.train.features, split.train_labels});
  if (!report.ok()) {
    std::fprintf(stderr, "training: %s\n", std::string(report.status().message()).c_str());
    return 1;
  }
  std::printf("trained on %zu programs in %.1f s (%d rounds)\n", split.train.size(), bench::SecondsSince(start),
              report->rounds);
  auto scores = model.Predict(split.holdout.features);
  if (!scores.ok()) {
    std::fprintf(stderr, "predict: %s\n", std::string(scores.status().message()).c_str());
    return 1;
  }
  auto by_task = tuner::RankingByTask(split.holdout.tasks, split.holdout.costs_s, *scores, 5);
  std::printf("%-22s %8s %10s %10s\n", "task", "held out", "pairwise", "top-5");
  double pairwise_sum = 0, recall_sum = 0;
  int counted = 0;
  for (const auto& [task, q] : by_task) {
    std::printf("%-22s %8d %10.3f %10.3f\n", task.substr(0, 22).c_str(), q.programs, q.pairwise_accuracy,
                q.top_k_recall);
    if (std::isfinite(q.pairwise_accuracy) && std::isfinite(q.top_k_recall) && q.programs >= 5) {
      pairwise_sum += q.pairwise_accuracy;
      recall_sum += q.top_k_recall;
      ++counted;
    }
  }
  if (counted > 0)
    std::printf("mean over %d tasks with >= 5 held-out programs: pairwise %.3f, top-5 recall %.3f\n", counted,
                pairwise_sum / counted, recall_sum / counted);
  return 0;
}
