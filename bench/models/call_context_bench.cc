// Why does a kernel run slower (or faster) inside a model than the agent measured it? For the
// slowest calls of a model artifact, prints the call's median time in four contexts, in one run:
//   in model   - inside a whole run of the plan, as `tunefarm bench --profile` times it;
//   after prev - run alone right after the call before it (its producer, usually);
//   hot        - run alone again and again: inputs, weights and output stay in the caches;
//   evicted    - run alone after every argument was flushed from the caches (what the agent
//                does with flush_cache, the tuner's default).
// If "in model" is far from "evicted", the agent's timing does not predict the model's.
//
//   call_context_bench MODEL.so [--threads N] [--top K] [--runs R]
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/command_flags.h"
#include "deploy/model_executor.h"
#include "device_agent/cache_eviction.h"

namespace {

using tunefarm::deploy::ModelExecutor;
using Clock = std::chrono::steady_clock;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Seconds of one `run`, timed alone after `before` (untimed).
double TimeOnce(const std::function<void()>& before, const std::function<void()>& run) {
  before();
  const auto start = Clock::now();
  run();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void Check(const tunefarm::deploy::Status& status) {
  if (status.ok()) return;
  std::fprintf(stderr, "call_context_bench: %s\n", status.message().c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  const tunefarm::CommandSpec spec = {
      "call_context_bench",
      "a compiled model's kernels timed in the model against alone, largest first",
      {{"threads", 0, "N", "threads (default: the artifact's)"},
       {"top", 0, "K", "kernels shown (default 8)"},
       {"runs", 0, "R", "runs per timing (default 30)"}},
      {"MODEL.so"}};
  absl::StatusOr<tunefarm::ParsedFlags> flags = tunefarm::ParsedFlags::Parse(spec, argc, argv);
  absl::StatusOr<int64_t> threads_flag = flags.ok() ? flags->GetInt("threads", 0, 0, 1024) : flags.status();
  absl::StatusOr<int64_t> top_flag = flags.ok() ? flags->GetInt("top", 8, 1, 1 << 20) : flags.status();
  absl::StatusOr<int64_t> runs_flag = flags.ok() ? flags->GetInt("runs", 30, 1, 1 << 20) : flags.status();
  for (const absl::Status& s : {threads_flag.status(), top_flag.status(), runs_flag.status()}) {
    if (s.ok()) continue;
    std::fprintf(stderr, "%s\n%s", std::string(s.message()).c_str(), tunefarm::Usage(spec).c_str());
    return 2;
  }
  if (flags->help()) {
    std::fprintf(stderr, "%s", tunefarm::Usage(spec).c_str());
    return 0;
  }
  const int threads = static_cast<int>(*threads_flag), top = static_cast<int>(*top_flag),
            runs = static_cast<int>(*runs_flag);
  auto loaded = ModelExecutor::Load(flags->positionals()[0], threads);
  if (!loaded.ok()) Check(loaded.status());
  ModelExecutor& model = **loaded;

  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  for (size_t i = 0; i < model.plan().inputs.size(); ++i) {
    const auto& value = model.input(i);
    std::vector<uint8_t> bytes(value.bytes);
    if (value.dtype == "float32") {
      for (size_t k = 0; k + 4 <= bytes.size(); k += 4) {
        const float f = uniform(rng);
        std::memcpy(&bytes[k], &f, 4);
      }
    }
    Check(model.SetInput(i, bytes.data(), bytes.size()));
  }

  // The contexts are sampled in turns, one sample of each per round, so that the host's speed
  // drifting within the run (2x was seen on a 2-vCPU VM) moves every column alike.
  const size_t num_calls = model.plan().calls.size();
  std::vector<double> seconds;
  for (int r = 0; r < 3; ++r) Check(model.Run());
  Check(model.RunTimed(&seconds));
  std::vector<size_t> order(num_calls);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return seconds[a] > seconds[b]; });
  order.resize(std::min<size_t>(num_calls, static_cast<size_t>(std::max(top, 0))));

  enum Context { kInModel, kAfterPrevious, kHot, kEvicted, kNumContexts };
  std::vector<std::array<std::vector<double>, kNumContexts>> samples(order.size());
  const auto nothing = [] {};
  for (int r = 0; r < runs; ++r) {
    Check(model.RunTimed(&seconds));
    for (size_t k = 0; k < order.size(); ++k) {
      const size_t c = order[k];
      const auto run = [&] { Check(model.RunCall(c)); };
      const auto previous = [&] { if (c > 0) Check(model.RunCall(c - 1)); };
      const auto evict = [&] {
        for (const auto& arg : model.CallArgBytes(c)) tunefarm::agent::EvictFromCaches(arg.data, arg.bytes);
      };
      samples[k][kInModel].push_back(seconds[c]);
      samples[k][kAfterPrevious].push_back(TimeOnce(previous, run));
      samples[k][kHot].push_back(TimeOnce(nothing, run));
      samples[k][kHot].back() = TimeOnce(nothing, run);  // the first run after another context is not hot
      samples[k][kEvicted].push_back(TimeOnce(evict, run));
    }
  }

  std::printf("%s, %d threads, %d runs per figure (median, us)\n", flags->positionals()[0].c_str(), model.num_threads(), runs);
  std::printf("%5s %10s %10s %10s %10s  %s\n", "call", "in model", "after prev", "hot", "evicted", "kernel");
  for (size_t k = 0; k < order.size(); ++k) {
    std::printf("%5zu", order[k]);
    for (int context = 0; context < kNumContexts; ++context) std::printf(" %10.1f", Median(samples[k][context]) * 1e6);
    std::printf("  %s\n", model.plan().calls[order[k]].kernel.c_str());
  }
  return 0;
}
