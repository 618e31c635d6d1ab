// How well model scores rank one task's programs, measured against their true costs. This is
// what matters to the search (it keeps the top of a predicted order), not the squared error the
// model is trained on.
//
// Costs are seconds, lower is better; an invalid cost (<= 0, NaN, inf) ranks below every valid
// one. Scores are model outputs, higher is better. Both spans are one task's programs, in the
// same order.
#pragma once

#include <map>
#include <span>
#include <string>

namespace tunefarm::tuner {

// Over all pairs whose true costs differ (two invalid costs are equal), the fraction the scores
// order the same way; a tie in scores counts one half, so a constant model scores 0.5. NaN when
// no pair differs.
double PairwiseAccuracy(std::span<const double> costs_s, std::span<const float> scores);

// Of the k' = min(k, valid programs) truly fastest programs, the fraction that are among the k'
// highest scores. Ties break by position (earlier first). NaN when no program is valid.
double TopKRecall(std::span<const double> costs_s, std::span<const float> scores, int k);

struct RankingQuality {
  int programs = 0;
  double pairwise_accuracy = 0;  // NaN when undefined (see above)
  double top_k_recall = 0;
};

// Both metrics per task; `tasks[i]` names the task of program i.
std::map<std::string, RankingQuality> RankingByTask(std::span<const std::string> tasks,
                                                    std::span<const double> costs_s,
                                                    std::span<const float> scores, int k);

}  // namespace tunefarm::tuner
