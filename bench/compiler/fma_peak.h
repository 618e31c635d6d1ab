// The machine's FP32 FMA peak, measured: every thread runs independent FMA chains (more chains
// than FMA latency x units, so the units never wait) on the widest vectors the CPU has, and the
// peak is the best of a few runs. Kernels are reported as a fraction of it. (Debian's OpenBLAS
// runs its Haswell kernel on AVX-512 machines, so this, not OpenBLAS, is the real limit there.)
#pragma once

#include <string>
#include <vector>

namespace tunefarm::bench {

struct FmaPeak {
  double gflops = 0;       // all threads together
  std::string vector_isa;  // "avx512f" or "avx2+fma" (the better of those the CPU has)
};

FmaPeak MeasureFmaPeak(int threads);

// The peak for each of `threads`, each printed on a line; indexed by thread count.
std::vector<double> MeasureAndPrintFmaPeaks(const std::vector<int>& threads);

// Thread counts from an environment variable ("1,2"); `fallback` when unset or empty.
std::vector<int> ThreadCountsFromEnvironment(const char* variable, std::vector<int> fallback);

}  // namespace tunefarm::bench
