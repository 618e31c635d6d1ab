// The libraries the kernel benchmarks compare against, behind one interface: OpenBLAS for
// GEMM and the dense layer, oneDNN for convolutions. Each is measured in the same run as
// tunefarm's kernels, at the same thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/compiler/onednn_conv.h"

namespace tunefarm::bench {

struct Peer {
  std::string name;
  std::function<void(int threads)> setup;      // before timing at a thread count
  std::function<void()> run;                   // the timed call
  std::function<std::vector<float>()> output;  // the last run's result (row-major C, or NCHW)
};

// C[m, n] = A[m, k] B[k, n]: cblas_sgemv when m == 1, else cblas_sgemm. `a` and `b` must
// outlive the peer.
Peer BlasMatmulPeer(int64_t m, int64_t n, int64_t k, const std::vector<float>* a, const std::vector<float>* b);

// oneDNN's convolution; `x` (NCHW) and `w` (OIHW) must outlive the peer. oneDNN fixes its
// thread count when the primitive is created, so setup creates it for each thread count.
Peer OneDnnConvPeer(const ConvShape& p, const std::vector<float>* x, const std::vector<float>* w);

}  // namespace tunefarm::bench
