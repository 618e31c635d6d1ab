// oneDNN's convolution as a benchmark peer: format_tag::any so oneDNN picks its blocked
// layouts, weights reordered once at setup, and Run() times only the primitive's execute.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace tunefarm::bench {

struct ConvShape {
  int64_t n, c, h, w, k, r, s, stride, pad;
  int64_t groups = 1;  // c and k divide by it; groups == c == k is a depthwise conv
  int64_t OutH() const { return (h + 2 * pad - r) / stride + 1; }
  int64_t OutW() const { return (w + 2 * pad - s) / stride + 1; }
  double Flops() const { return 2.0 * n * k * OutH() * OutW() * (c / groups) * r * s; }
};

class OneDnnConv {
 public:
  // src: NCHW, weights: OIHW [k, c / groups, r, s] (plain layouts; converted once here).
  OneDnnConv(const ConvShape& shape, const float* src, const float* weights);
  ~OneDnnConv();
  void Run();
  // The last result, converted back to NCHW.
  std::vector<float> OutputNchw();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

void SetOneDnnThreads(int threads);

}  // namespace tunefarm::bench
