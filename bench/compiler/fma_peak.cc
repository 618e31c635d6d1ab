#include "bench/compiler/fma_peak.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "common/strings.h"

namespace tunefarm::bench {
namespace {

constexpr int kChains = 16;  // >= FMA latency (4) x FMA pipes (2) on current x86 cores
constexpr long kIterations = 20'000'000;

float SumOf(const float* v, int n) {
  float total = 0;
  for (int i = 0; i < n; ++i) total += v[i];
  return total;
}

// Each function returns a value derived from every chain so nothing is optimized away.
__attribute__((target("avx512f"))) float Chains512(long iters) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(0.001f * c);
  const __m512 m = _mm512_set1_ps(0.999999f), a = _mm512_set1_ps(1e-7f);
  for (long i = 0; i < iters; ++i) {
#pragma GCC unroll 16  // keeps every chain in a register (no store/load between FMAs)
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], m, a);
  }
  float out[kChains * 16];
  for (int c = 0; c < kChains; ++c) _mm512_storeu_ps(out + 16 * c, acc[c]);
  return SumOf(out, kChains * 16);
}

__attribute__((target("avx2,fma"))) float Chains256(long iters) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(0.001f * c);
  const __m256 m = _mm256_set1_ps(0.999999f), a = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < iters; ++i) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], m, a);
  }
  float out[kChains * 8];
  for (int c = 0; c < kChains; ++c) _mm256_storeu_ps(out + 8 * c, acc[c]);
  return SumOf(out, kChains * 8);
}

// GFLOP/s of `threads` threads each running `fn` once (2 flops per lane per FMA).
double Run(int threads, int lanes, float (*fn)(long)) {
  std::vector<float> sink(threads);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { sink[t] = fn(kIterations); });
  for (auto& th : pool) th.join();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  volatile float keep = sink[0];
  (void)keep;
  return 2.0 * lanes * kChains * kIterations * threads / s / 1e9;
}

}  // namespace

FmaPeak MeasureFmaPeak(int threads) {
  FmaPeak best;
  for (int run = 0; run < 3; ++run) {
    if (__builtin_cpu_supports("avx512f")) {
      double g = Run(threads, 16, Chains512);
      if (g > best.gflops) best = {g, "avx512f"};
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      double g = Run(threads, 8, Chains256);
      if (g > best.gflops) best = {g, "avx2+fma"};
    }
  }
  return best;
}

std::vector<double> MeasureAndPrintFmaPeaks(const std::vector<int>& threads) {
  std::vector<double> peaks(*std::max_element(threads.begin(), threads.end()) + 1, NAN);
  for (int t : threads) {
    FmaPeak peak = MeasureFmaPeak(t);
    peaks[t] = peak.gflops;
    std::printf("FP32 FMA peak, %d thread%s: %.1f GFLOP/s (%s)\n", t, t > 1 ? "s" : "", peak.gflops,
                peak.vector_isa.c_str());
  }
  return peaks;
}

std::vector<int> ThreadCountsFromEnvironment(const char* variable, std::vector<int> fallback) {
  const char* v = std::getenv(variable);
  if (v == nullptr) return fallback;
  std::vector<int> threads;
  for (std::string_view part : StrSplit(v, ',', true)) {
    int64_t t = 0;
    if (ParseInt64(part, &t) && t >= 1) threads.push_back(static_cast<int>(t));
  }
  return threads.empty() ? fallback : threads;
}

}  // namespace tunefarm::bench
