// What the cost model learns: a program's normalized throughput within its task,
//   label = best cost of the task / cost of the program,
// 1 for the task's fastest program and towards 0 for slow ones. Labels are normalized per task
// so that tasks of very different sizes (a 10 us elementwise kernel, a 10 ms convolution) train
// one model on one scale: the model learns what makes a schedule good relative to its task's
// best, not how big the task is. A model score is therefore only comparable between programs
// of one task, which is all the search needs.
#pragma once

#include <span>
#include <vector>

namespace tunefarm::tuner {

// A cost (seconds) is valid when it is finite and > 0.
bool ValidCost(double cost_s);

// One label per cost, all costs of ONE task; invalid costs (<= 0, NaN, inf) get 0. All 0 when
// no cost is valid.
std::vector<float> NormalizedThroughput(std::span<const double> costs_s);

}  // namespace tunefarm::tuner
