#include "tuner/cost_model/ranking_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "tuner/cost_model/throughput_labels.h"

namespace tunefarm::tuner {
namespace {

// Invalid costs compare as +inf (all equal, all worst).
double RankCost(double cost_s) { return ValidCost(cost_s) ? cost_s : std::numeric_limits<double>::infinity(); }

// The first k indices of [0, n) in the order `before` gives (stable).
template <typename Before>
std::vector<int> TopIndices(size_t n, int k, Before before) {
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), before);
  order.resize(std::min<size_t>(n, std::max(k, 0)));
  return order;
}

}  // namespace

double PairwiseAccuracy(std::span<const double> costs_s, std::span<const float> scores) {
  double correct = 0;
  long long pairs = 0;
  for (size_t i = 0; i < costs_s.size(); ++i) {
    double ci = RankCost(costs_s[i]);
    for (size_t j = i + 1; j < costs_s.size(); ++j) {
      double cj = RankCost(costs_s[j]);
      if (ci == cj) continue;
      ++pairs;
      // The faster program should have the higher score.
      float faster = ci < cj ? scores[i] : scores[j];
      float slower = ci < cj ? scores[j] : scores[i];
      if (faster > slower) correct += 1;
      else if (faster == slower) correct += 0.5;
    }
  }
  return pairs ? correct / pairs : std::numeric_limits<double>::quiet_NaN();
}

double TopKRecall(std::span<const double> costs_s, std::span<const float> scores, int k) {
  int valid = 0;
  for (double c : costs_s) valid += ValidCost(c);
  int kk = std::min(k, valid);
  if (kk <= 0) return std::numeric_limits<double>::quiet_NaN();
  std::vector<int> truly_best =
      TopIndices(costs_s.size(), kk, [&](int a, int b) { return RankCost(costs_s[a]) < RankCost(costs_s[b]); });
  std::vector<int> predicted_best = TopIndices(scores.size(), kk, [&](int a, int b) { return scores[a] > scores[b]; });
  int hits = 0;
  for (int i : truly_best) hits += std::find(predicted_best.begin(), predicted_best.end(), i) != predicted_best.end();
  return static_cast<double>(hits) / kk;
}

std::map<std::string, RankingQuality> RankingByTask(std::span<const std::string> tasks,
                                                    std::span<const double> costs_s,
                                                    std::span<const float> scores, int k) {
  std::map<std::string, std::vector<size_t>> members;
  for (size_t i = 0; i < tasks.size(); ++i) members[tasks[i]].push_back(i);
  std::map<std::string, RankingQuality> quality;
  for (const auto& [task, indices] : members) {
    std::vector<double> task_costs;
    std::vector<float> task_scores;
    for (size_t i : indices) {
      task_costs.push_back(costs_s[i]);
      task_scores.push_back(scores[i]);
    }
    quality[task] = {static_cast<int>(indices.size()), PairwiseAccuracy(task_costs, task_scores),
                     TopKRecall(task_costs, task_scores, k)};
  }
  return quality;
}

}  // namespace tunefarm::tuner
