#include "bench/compiler/bench_workloads.h"

#include <cstdio>

#include "common/strings.h"
#include "compiler/ops/winograd.h"
#include "compiler/schedule/default_rules.h"

namespace tunefarm::bench {

Workload MatmulWorkload(WorkloadInputs& inputs, int64_t m, int64_t n, int64_t k) {
  const auto* a = inputs.Hold(Filled(m * k, 0.001));
  const auto* b = inputs.Hold(Filled(k * n, 0.002));
  return Workload{StrCat(m == 1 ? "dense " : "gemm ", m, "x", n, "x", k),
                  2.0 * m * n * k,
                  MatmulDag(m, n, k),
                  {a, b},
                  BlasMatmulPeer(m, n, k, a, b)};
}

Workload ConvNchwcWorkload(WorkloadInputs& inputs, std::string_view prefix, const ConvShape& p, int lanes) {
  const int64_t yb = Block(p.k, lanes), xb = p.groups == 1 ? Block(p.c, lanes) : yb;
  const int64_t xi = WeightInBlock(p, xb), ohw = p.OutH() * p.OutW();
  const auto* x = inputs.Hold(Filled(p.n * p.c * p.h * p.w, 0.001));
  const auto* w = inputs.Hold(Filled(p.k * (p.c / p.groups) * p.r * p.s, 0.003));
  Workload wl{StrCat(prefix, "nchw", yb, "c C=", p.c, " K=", p.k, " ", p.h, "x", p.w, " ", p.r, "x", p.s, "/",
                     p.stride),
              p.Flops(),
              ConvNchwcDag(p, xb, yb),
              {inputs.Hold(ToNchwc(*x, p.n, p.c, p.h * p.w, xb)),
               inputs.Hold(PackWeight(*w, p.k, p.c / p.groups, p.r * p.s, xi, yb))},
              OneDnnConvPeer(p, x, w)};
  wl.to_peer_layout = [p, yb, ohw](const float* out) { return FromNchwc(out, p.n, p.k, ohw, yb); };
  return wl;
}

Workload ConvWinogradWorkload(WorkloadInputs& inputs, const ConvShape& p, int lanes, int m) {
  const int64_t yb = Block(p.k, lanes), xb = Block(p.c, lanes), alpha = m + 2;
  const auto* x = inputs.Hold(Filled(p.n * p.c * p.h * p.w, 0.001));
  const auto* w = inputs.Hold(Filled(p.k * p.c * p.r * p.s, 0.003));
  te::DagBuilder b;
  auto d = b.Placeholder("x", te::DType::kFloat32, {p.n, p.c / xb, p.h, p.w, xb});
  auto u = b.Placeholder("u", te::DType::kFloat32, {alpha, alpha, p.k / yb, p.c / xb, xb, yb}, true);
  auto y = ops::Conv2dWinogradNchwc(b, d, u, ops::WinogradParams{m, {p.pad, p.pad, p.pad, p.pad}});
  Workload wl{StrCat("winograd F", m, " C=", p.c, " K=", p.k, " ", p.h, "x", p.w),
              p.Flops(),
              b.Build({*y}),
              {inputs.Hold(ToNchwc(*x, p.n, p.c, p.h * p.w, xb)),
               inputs.Hold(ops::TransformWinogradWeight(*w, p.k, p.c, m, xb, yb))},
              OneDnnConvPeer(p, x, w)};
  const int64_t ohw = p.OutH() * p.OutW();
  wl.to_peer_layout = [p, yb, ohw](const float* out) { return FromNchwc(out, p.n, p.k, ohw, yb); };
  return wl;
}

std::vector<Workload> WinogradStageWorkloads(WorkloadInputs& inputs, const ConvShape& p, int lanes, int m) {
  const int64_t yb = Block(p.k, lanes), xb = Block(p.c, lanes), alpha = m + 2;
  const int64_t tiles = p.n * ((p.OutH() + m - 1) / m) * ((p.OutW() + m - 1) / m);
  const auto* x = inputs.Hold(Filled(p.n * p.c * p.h * p.w, 0.001));
  const auto* w = inputs.Hold(Filled(p.k * p.c * p.r * p.s, 0.003));
  const std::string prefix = StrCat("wino F", m, " C=", p.c, " K=", p.k, " ", p.h, "x", p.w, " ");
  std::vector<Workload> stages;
  auto add = [&](const char* stage, double flops, std::shared_ptr<const te::ComputeDag> dag,
                 std::vector<const std::vector<float>*> in) {
    stages.push_back(Workload{prefix + stage, flops, std::move(dag), std::move(in), OneDnnConvPeer(p, x, w)});
  };
  const ops::WinogradParams params{m, {p.pad, p.pad, p.pad, p.pad}};
  {
    te::DagBuilder b;
    auto d = b.Placeholder("x", te::DType::kFloat32, {p.n, p.c / xb, p.h, p.w, xb});
    add("data_pack", 2.0 * alpha * alpha * alpha * alpha * tiles * p.c,
        b.Build({*ops::WinogradDataPack(b, d, params, "data_pack")}),
        {inputs.Hold(ToNchwc(*x, p.n, p.c, p.h * p.w, xb))});
  }
  {
    te::DagBuilder b;
    auto v = b.Placeholder("v", te::DType::kFloat32, {p.c / xb, tiles, alpha, alpha, xb});
    auto u = b.Placeholder("u", te::DType::kFloat32, {alpha, alpha, p.k / yb, p.c / xb, xb, yb}, true);
    add("bgemm", 2.0 * alpha * alpha * tiles * p.c * p.k, b.Build({*ops::WinogradBatchGemm(b, v, u, "bgemm")}),
        {inputs.Hold(Filled(alpha * alpha * p.c * tiles, 0.001)),
         inputs.Hold(ops::TransformWinogradWeight(*w, p.k, p.c, m, xb, yb))});
  }
  {
    te::DagBuilder b;
    auto mat = b.Placeholder("m", te::DType::kFloat32, {alpha, alpha, p.k / yb, tiles, yb});
    add("inverse", 2.0 * alpha * alpha * p.OutH() * p.OutW() * p.k,
        b.Build({*ops::WinogradInverse(b, mat, m, p.n, p.OutH(), p.OutW(), "inverse")}),
        {inputs.Hold(Filled(alpha * alpha * p.k * tiles, 0.001))});
  }
  return stages;
}

std::unique_ptr<Compiled> BuildDefaultKernel(const Workload& w, const codegen::Target& target, int threads) {
  auto rule = schedule::ApplyDefaultSchedule(w.dag, {target.VectorLanes(te::DType::kFloat32), threads, target.VectorRegisters()});
  if (!rule.ok()) {
    std::fprintf(stderr, "%s: default schedule: %s\n", w.name.c_str(), std::string(rule.status().message()).c_str());
    return nullptr;
  }
  auto k = Build(StrCat(w.name, " default"), *rule, target);
  if (!k.ok()) {
    std::fprintf(stderr, "%s\n", std::string(k.status().message()).c_str());
    return nullptr;
  }
  return std::move(k.value());
}

const std::vector<ConvShape>& ResNet18Convs() {
  static const std::vector<ConvShape> convs = {
      {1, 64, 56, 56, 64, 3, 3, 1, 1}, {1, 128, 28, 28, 128, 3, 3, 1, 1}, {1, 256, 14, 14, 256, 3, 3, 1, 1},
      {1, 512, 7, 7, 512, 3, 3, 1, 1}, {1, 3, 224, 224, 64, 7, 7, 2, 3},
  };
  return convs;
}

}  // namespace tunefarm::bench
