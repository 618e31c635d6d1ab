// The machine's FP32 FMA peak, measured: every thread runs independent FMA chains (more chains
// than FMA latency x units, so the units never wait) on the widest vectors the CPU has, and the
// peak is the best of a few runs. Kernels are reported as a fraction of it. (Debian's OpenBLAS
// runs its Haswell kernel on AVX-512 machines, so this, not OpenBLAS, is the real limit there.)
#pragma once

#include <string>

namespace tunefarm::bench {

struct FmaPeak {
  double gflops = 0;       // all threads together
  std::string vector_isa;  // "avx512f" or "avx2+fma" (the better of those the CPU has)
};

FmaPeak MeasureFmaPeak(int threads);

}  // namespace tunefarm::bench
