#include "tuner/tuning_profile_table.h"

#include "absl/strings/str_format.h"

namespace tunefarm::tuner {

std::string FormatStageTable(const TuningProfile& profile, int64_t trials, double wall_s) {
  const double per_trial = trials > 0 ? 1e3 / static_cast<double>(trials) : 0.0;
  const double share = wall_s > 0 ? 100.0 / wall_s : 0.0;
  std::string out = absl::StrFormat("%lld trials in %.1f s: %.1f trials per minute\n", static_cast<long long>(trials),
                                    wall_s, wall_s > 0 ? 60.0 * static_cast<double>(trials) / wall_s : 0.0);
  absl::StrAppendFormat(&out, "  %-18s %9s %10s %7s %8s\n", "stage", "total s", "ms/trial", "share", "runs");
  double staged = 0;
  for (int s = 0; s < static_cast<int>(TuningStage::kCount); ++s) {
    const auto stage = static_cast<TuningStage>(s);
    const StageTotal total = profile.Get(stage);
    staged += total.seconds;
    absl::StrAppendFormat(&out, "  %-18s %9.2f %10.1f %6.1f%% %8lld\n", TuningStageName(stage), total.seconds,
                          total.seconds * per_trial, total.seconds * share, static_cast<long long>(total.count));
  }
  if (staged <= wall_s) {
    absl::StrAppendFormat(&out, "  %-18s %9.2f %10.1f %6.1f%%\n", "(not in a stage)", wall_s - staged,
                          (wall_s - staged) * per_trial, (wall_s - staged) * share);
  } else {
    // Builds run on one worker per core: their seconds add up over the workers.
    absl::StrAppendFormat(&out, "  (stages sum to %.1f s over threads: builds run side by side)\n", staged);
  }
  return out;
}

}  // namespace tunefarm::tuner
