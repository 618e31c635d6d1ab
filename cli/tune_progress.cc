#include "cli/tune_progress.h"

#include <chrono>
#include <cstdio>
#include <fstream>

#include "cli/table.h"
#include "common/strings.h"
#include "common/unix_time.h"
#include "tuner/svg_chart.h"

namespace tunefarm::cli {
namespace {

std::string Format(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string Duration(double s) {
  if (s < 0) return "-";
  const int64_t t = static_cast<int64_t>(s + 0.5);
  if (t >= 3600) return StrCat(t / 3600, "h", Format("%02.0f", static_cast<double>((t / 60) % 60)), "m");
  if (t >= 60) return StrCat(t / 60, "m", Format("%02.0f", static_cast<double>(t % 60)), "s");
  return StrCat(t, "s");
}

// A cost; 0 (none yet) prints as "-".
std::string Cost(double s) { return s > 0 ? FormatSeconds(s) : "-"; }

}  // namespace

void TuneProgress::Update(const v1::JobProgress& p) {
  if (p.message() != last_message_) {
    last_message_ = p.message();
    if (!last_message_.empty()) std::printf("%s\n", last_message_.c_str());
    std::fflush(stdout);  // "waiting for a device" must show at once, in a log file too
  }
  for (const v1::TaskProgress& t : p.tasks()) task_names_[t.workload_key()] = t.name();
  if (last_round_ < 0) {
    // The first update (a fresh job, a resumed one, or one watched half-way) is the baseline the
    // next round is compared with, to name the task it tuned.
    for (const v1::TaskProgress& t : p.tasks()) trials_at_last_round_[t.workload_key()] = t.trials();
    last_round_ = p.round();
    return;
  }
  if (p.round() == last_round_) return;
  last_round_ = p.round();
  // The task whose trials moved is the one this round tuned.
  const v1::TaskProgress* tuned = nullptr;
  int64_t valid = 0;
  for (const v1::TaskProgress& t : p.tasks()) {
    valid += t.valid();
    int64_t& before = trials_at_last_round_[t.workload_key()];
    if (t.trials() != before) tuned = &t;
    before = t.trials();
    if (t.best_cost_sec() > 0 && t.flops() > 0)
      task_gflops_[t.workload_key()].push_back({static_cast<double>(t.trials()), t.flops() / t.best_cost_sec() / 1e9});
  }
  if (p.estimated_latency_sec() > 0)
    latency_.push_back({static_cast<double>(p.trials_done()), p.estimated_latency_sec() * 1e3});
  // ETA from this run's pace (a resumed job's earlier trials do not count).
  const double elapsed = static_cast<double>(UnixMillisNow() - p.started_unix_ms()) / 1e3;
  const int64_t done_here = p.trials_done() - p.trials_at_start();
  const double eta =
      done_here > 0 ? elapsed * static_cast<double>(p.trial_budget() - p.trials_done()) / static_cast<double>(done_here)
                    : -1;
  std::string line = StrCat("round ", p.round(), " | ", p.trials_done(), "/", p.trial_budget(), " trials (", valid,
                            " valid) | est. latency ", Cost(p.estimated_latency_sec()));
  if (tuned != nullptr)
    StrAppend(&line, " | ", tuned->name(), ": best ", Cost(tuned->best_cost_sec()), " after ", tuned->trials());
  StrAppend(&line, " | ", Duration(elapsed), " elapsed, ETA ", Duration(eta));
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

absl::Status TuneProgress::WriteCurves(const std::string& path) const {
  std::vector<tuner::ChartPanel> panels;
  panels.push_back({"estimated model latency (sum over tasks of calls x best)",
                    "trials (all tasks)",
                    "ms",
                    {{"latency", latency_}}});
  tuner::ChartPanel tasks{"best GFLOP/s per task", "trials of the task", "GFLOP/s", {}};
  for (const auto& [key, points] : task_gflops_) {
    auto name = task_names_.find(key);
    tasks.series.push_back(
        {name != task_names_.end() && !name->second.empty() ? name->second : key.substr(0, 14), points});
  }
  panels.push_back(std::move(tasks));
  std::ofstream out(path);
  out << tuner::LineChartsSvg(panels);
  out.close();
  if (!out) return absl::UnavailableError(StrCat("cannot write the tuning curves to ", path));
  return absl::OkStatus();
}

void PrintTaskTable(const v1::JobProgress& last) {
  std::printf("%-52s %5s %6s %6s %11s %11s %7s %8s\n", "TASK", "CALLS", "TRIALS", "VALID", "DEFAULT", "BEST", "SPEEDUP",
              "GFLOP/s");
  double before = 0, after = 0;
  bool complete = true;
  for (const v1::TaskProgress& t : last.tasks()) {
    const double best = t.best_cost_sec(), dflt = t.default_cost_sec();
    std::string speedup = dflt > 0 && best > 0 ? Format("%.2fx", dflt / best) : "-";
    std::string gflops = best > 0 && t.flops() > 0 ? Format("%.1f", t.flops() / best / 1e9) : "-";
    std::string name = t.name().empty() ? t.workload_key().substr(0, 24) : t.name();
    if (name.size() > 52) name = name.substr(0, 49) + "...";
    std::printf("%-52s %5.0f %6lld %6lld %11s %11s %7s %8s\n", name.c_str(), t.weight(),
                static_cast<long long>(t.trials()), static_cast<long long>(t.valid()), Cost(dflt).c_str(),
                Cost(best).c_str(), speedup.c_str(), gflops.c_str());
    complete = complete && dflt > 0 && best > 0;
    before += t.weight() * dflt;
    after += t.weight() * best;
  }
  if (complete && after > 0)
    std::printf("estimated model latency (kernels only): default %s, tuned %s (%.2fx)\n", Cost(before).c_str(),
                Cost(after).c_str(), before / after);
}

}  // namespace tunefarm::cli
