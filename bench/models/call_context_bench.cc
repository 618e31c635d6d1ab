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
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "deploy/model_executor.h"
#include "device_agent/cache_eviction.h"

namespace {

using tunefarm::deploy::ModelExecutor;
using Clock = std::chrono::steady_clock;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Median seconds of `run` over `runs` runs, each timed alone after `before` (untimed).
double TimeAlone(int runs, const std::function<void()>& before, const std::function<void()>& run) {
  std::vector<double> seconds;
  for (int r = 0; r < runs; ++r) {
    before();
    const auto start = Clock::now();
    run();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return Median(seconds);
}

void Check(const tunefarm::deploy::Status& status) {
  if (status.ok()) return;
  std::fprintf(stderr, "call_context_bench: %s\n", status.message().c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: call_context_bench MODEL.so [--threads N] [--top K] [--runs R]\n");
    return 2;
  }
  int threads = 0, top = 8, runs = 30;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int value = std::atoi(argv[i + 1]);
    if (flag == "--threads") threads = value;
    else if (flag == "--top") top = value;
    else if (flag == "--runs") runs = value;
  }
  auto loaded = ModelExecutor::Load(argv[1], threads);
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

  const size_t num_calls = model.plan().calls.size();
  std::vector<std::vector<double>> in_model(num_calls);
  std::vector<double> seconds;
  for (int r = 0; r < 3; ++r) Check(model.Run());
  for (int r = 0; r < runs; ++r) {
    Check(model.RunTimed(&seconds));
    for (size_t c = 0; c < num_calls; ++c) in_model[c].push_back(seconds[c]);
  }
  std::vector<double> median(num_calls);
  for (size_t c = 0; c < num_calls; ++c) median[c] = Median(in_model[c]);
  std::vector<size_t> order(num_calls);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return median[a] > median[b]; });

  std::printf("%s, %d threads, %d runs per figure (median, us)\n", argv[1], model.num_threads(), runs);
  std::printf("%5s %10s %10s %10s %10s  %s\n", "call", "in model", "after prev", "hot", "evicted", "kernel");
  const auto nothing = [] {};
  for (int k = 0; k < top && k < static_cast<int>(num_calls); ++k) {
    const size_t c = order[k];
    const auto run = [&] { Check(model.RunCall(c)); };
    const auto previous = [&] { if (c > 0) Check(model.RunCall(c - 1)); };
    const auto evict = [&] {
      for (const auto& arg : model.CallArgBytes(c)) tunefarm::agent::EvictFromCaches(arg.data, arg.bytes);
    };
    const double after_prev = TimeAlone(runs, previous, run);
    const double hot = TimeAlone(runs, nothing, run);
    const double evicted = TimeAlone(runs, evict, run);
    std::printf("%5zu %10.1f %10.1f %10.1f %10.1f  %s\n", c, median[c] * 1e6, after_prev * 1e6, hot * 1e6,
                evicted * 1e6, model.plan().calls[c].kernel.c_str());
  }
  return 0;
}
