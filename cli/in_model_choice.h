// `tunefarm compile --db ... --choose-in-model`: for every kernel, the schedule that is fastest
// inside the model on this machine, among the default rules, the database's best record and
// its second best.
//
// Why: the tuner times each kernel alone. Inside the model a kernel runs between others, on
// data they have just written, beside weights that another kernel has pushed out of the
// caches, and some schedules that win alone lose there. resnet18's 512-channel Winograd GEMMs
// were the example: tuned, 621 us alone and 700 us in the model, where the default rules'
// schedule took 580 us. So the model is built three times (every kernel on its default, on its
// best record, on its second best), each build is run and timed call by call, and every kernel
// takes the variant whose calls took least. Kernels are chosen independently; a kernel's time
// depends a little on its neighbours, which timing the final artifact shows.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/build/model_builder.h"
#include "compiler/build/schedule_source.h"

namespace tunefarm::cli {

struct InModelChoice {
  // The final build's schedules: per workload, the chosen variant's candidates (none: default).
  std::unique_ptr<build::ScheduleSource> source;
  std::string report;  // per kernel: its time in the model under each variant, and the choice
  double chosen_sum_s = 0;  // the sum over calls of the chosen variants' call medians
  std::vector<double> variant_sum_s;  // the same per variant (every kernel on it)
};

// One kernel's choice: `origins[v]` is where variant v's schedule came from ("default" or a
// record's origin), `seconds[v]` its calls' time in the model. The fastest variant wins; on a
// tie the earlier one (the default first); a variant whose origin repeats an earlier variant's
// built the same program and is not a choice.
int ChooseVariant(const std::vector<std::string>& origins, const std::vector<double>& seconds);
bool IsRepeatVariant(const std::vector<std::string>& origins, int v);

// `plan` comes from build::PlanModel with `options`, whose target must be this machine (the
// variants run here). Scratch artifacts go to a temporary directory, removed on return.
absl::StatusOr<InModelChoice> ChooseSchedulesInModel(const build::ModelPlan& plan, const build::BuildOptions& options,
                                                     const build::ScheduleSource& database,
                                                     const std::function<void(std::string_view)>& progress);

}  // namespace tunefarm::cli
