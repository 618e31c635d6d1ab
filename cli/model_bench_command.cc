// `tunefarm bench MODEL.so`: end-to-end latency of a compiled model through the deploy runtime
// on fixed pseudo-random inputs — min / median / max over --runs runs after --warmup runs.
// --profile adds as many runs timing each kernel call, and prints the calls by median time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/model_runtime.h"
#include "cli/subcommands.h"
#include "cli/table.h"
#include "common/strings.h"

namespace tunefarm::cli {
namespace {

const CommandSpec& Spec() {
  static const CommandSpec spec{
      "bench",
      "Times a compiled model: latency min/median/max over repeated runs.",
      {{"runs", 'n', "N", "timed runs (default 20)"},
       {"warmup", 0, "N", "untimed runs first (default 2)"},
       {"threads", 0, "N", "threads (default: what the model was compiled for)"},
       {"profile", 0, "", "also time every kernel call (separate runs) and list them by time"},
       {"json", 0, "", "print one JSON document"}},
      {"MODEL.so"}};
  return spec;
}

struct CallTime {
  size_t call;
  double median_s;
};

// Per-call medians over `runs` profiled runs, slowest first.
absl::StatusOr<std::vector<CallTime>> ProfileCalls(LoadedModel& model, int64_t runs) {
  absl::StatusOr<std::vector<double>> medians = CallMedians(model, runs);
  if (!medians.ok()) return medians.status();
  std::vector<CallTime> out;
  for (size_t c = 0; c < medians->size(); ++c) out.push_back({c, (*medians)[c]});
  std::stable_sort(out.begin(), out.end(), [](const CallTime& a, const CallTime& b) { return a.median_s > b.median_s; });
  return out;
}

std::string ProfileTable(const LoadedModel& model, const std::vector<CallTime>& times) {
  double total = 0;
  for (const CallTime& t : times) total += t.median_s;
  using A = Table::Align;
  Table table({{"CALL", A::kRight}, {"MEDIAN", A::kRight}, {"SHARE", A::kRight}, {"GROUP"}, {"OPS"}});
  for (const CallTime& t : times) {
    const CallInfo& info = model.calls()[t.call];
    char share[16];
    std::snprintf(share, sizeof share, "%.1f%%", total > 0 ? 100 * t.median_s / total : 0.0);
    table.AddRow({std::to_string(t.call), FormatSeconds(t.median_s), share, info.group.empty() ? info.kernel : info.group,
                  info.ops});
  }
  return StrCat(table.ToString(), "sum of call medians: ", FormatSeconds(total), "\n");
}

}  // namespace

int RunBenchCommand(int argc, char** argv) {
  ParseResult parsed = ParseCommandLine(Spec(), argc, argv);
  if (!parsed.flags) return parsed.exit_code;
  const ParsedFlags& flags = *parsed.flags;
  auto runs = flags.GetInt("runs", 20, 1, 1000000);
  auto warmup = flags.GetInt("warmup", 2, 0, 1000000);
  auto threads = flags.GetInt("threads", 0, 0, 1024);
  for (const auto* s : {&runs, &warmup, &threads}) {
    if (!s->ok()) return ReportUsageError(Spec(), s->status());
  }
  const std::string path = flags.positionals()[0];
  auto model = LoadedModel::Load(path, static_cast<int>(*threads));
  if (!model.ok()) return ReportFailure("bench", model.status());
  if (absl::Status s = SetPseudoRandomInputs(**model, 42); !s.ok()) return ReportFailure("bench", s);
  for (int64_t i = 0; i < *warmup; ++i) {
    absl::Status s = (*model)->Run();
    if (!s.ok()) return ReportFailure("bench", s);
  }
  std::vector<double> seconds;
  auto last_report = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < *runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    absl::Status s = (*model)->Run();
    auto t1 = std::chrono::steady_clock::now();
    if (!s.ok()) return ReportFailure("bench", s);
    seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
    if (t1 - last_report > std::chrono::seconds(2)) {  // long runs say how far they are
      std::fprintf(stderr, "tunefarm bench: run %lld/%lld, last %s\n", static_cast<long long>(i + 1),
                   static_cast<long long>(*runs), FormatSeconds(seconds.back()).c_str());
      last_report = t1;
    }
  }
  const double min = *std::min_element(seconds.begin(), seconds.end());
  const double max = *std::max_element(seconds.begin(), seconds.end());
  const double median = Median(seconds);
  std::vector<CallTime> profile;
  if (flags.Has("profile")) {
    auto times = ProfileCalls(**model, *runs);
    if (!times.ok()) return ReportFailure("bench", times.status());
    profile = *std::move(times);
  }
  if (flags.Has("json")) {
    nlohmann::json doc = {{"model", path}, {"runs", *runs}, {"min_s", min}, {"median_s", median}, {"max_s", max}};
    if (flags.Has("profile")) {
      nlohmann::json calls = nlohmann::json::array();
      for (const CallTime& t : profile) {
        const CallInfo& info = (*model)->calls()[t.call];
        calls.push_back({{"call", t.call}, {"kernel", info.kernel}, {"group", info.group}, {"ops", info.ops},
                         {"median_s", t.median_s}});
      }
      doc["calls"] = calls;
    }
    std::printf("%s\n", doc.dump(2).c_str());
  } else {
    std::printf("%s: %lld runs, latency min %s, median %s, max %s\n", path.c_str(), static_cast<long long>(*runs),
                FormatSeconds(min).c_str(), FormatSeconds(median).c_str(), FormatSeconds(max).c_str());
    if (flags.Has("profile")) std::printf("%s", ProfileTable(**model, profile).c_str());
  }
  return kExitOk;
}

}  // namespace tunefarm::cli
