// The kernel benchmarks' workloads with their inputs and peers: GEMM / dense (OpenBLAS) and
// convolutions in the NCHW[x]c form the layout pass gives them (oneDNN), and the ResNet-18
// conv layers.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/compiler/bench_kernels.h"
#include "bench/compiler/peers.h"

namespace tunefarm::bench {

struct Workload {
  std::string name;
  double flops;
  std::shared_ptr<const te::ComputeDag> dag;
  std::vector<const std::vector<float>*> inputs;
  Peer peer;
  // Our output in the peer's layout (NCHWc: back to NCHW); null when they agree.
  std::function<std::vector<float>(const float*)> to_peer_layout = nullptr;
};

// Owns the input arrays the workloads point to.
class WorkloadInputs {
 public:
  const std::vector<float>* Hold(std::vector<float> v) {
    arrays_.push_back(std::move(v));
    return &arrays_.back();
  }

 private:
  std::deque<std::vector<float>> arrays_;  // a deque: pointers stay valid as it grows
};

// "gemm MxNxK" (or "dense 1xNxK"), B constant, against OpenBLAS.
Workload MatmulWorkload(WorkloadInputs& inputs, int64_t m, int64_t n, int64_t k);
// NCHW[x]c, x the largest divisor of C up to `lanes` (a depthwise conv blocks its input and
// output channels alike), weights packed, against oneDNN. `prefix` starts its name.
Workload ConvNchwcWorkload(WorkloadInputs& inputs, std::string_view prefix, const ConvShape& p, int lanes);

// The same 3x3 stride-1 conv by Winograd F(m x m, 3 x 3) (compiler/ops/winograd.h), the
// weights transformed as the compiler does; GFLOP/s count the direct conv's flops.
Workload ConvWinogradWorkload(WorkloadInputs& inputs, const ConvShape& p, int lanes, int m);

// Its three stages as kernels of their own (data_pack with the padding, bgemm, inverse), each
// on inputs of the right shape; GFLOP/s count the stage's own flops, and the peer is still the
// whole direct conv, so peer/b is the stage's share of oneDNN's time.
std::vector<Workload> WinogradStageWorkloads(WorkloadInputs& inputs, const ConvShape& p, int lanes, int m);

// The default-rule schedule of `w` at `threads` threads, built; null (and a line on stderr)
// when it fails. The search benches' reference output and baseline.
std::unique_ptr<Compiled> BuildDefaultKernel(const Workload& w, const codegen::Target& target, int threads);

// ResNet-18's five distinct conv2d layers (3x3 at 56, 28, 14, 7, and the 7x7/2 stem).
const std::vector<ConvShape>& ResNet18Convs();

}  // namespace tunefarm::bench
