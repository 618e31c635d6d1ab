// The kernel benchmark: GEMM, the dense layer and the five ResNet-18 conv2d layers, each as the
// naive schedule, the default rule (compiler/schedule/default_rules.h) and the best hand-written
// template (bench/compiler/hand_schedules.h), beside OpenBLAS sgemm/sgemv and oneDNN's
// convolution measured in the same run, at 1 and 2 threads. The conv layers run twice: NCHW, and
// NCHW[x]c with packed weights as the layout pass compiles them (x = the vector lanes).
#include <cblas.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/compiler/bench_kernels.h"
#include "bench/compiler/fma_peak.h"
#include "bench/compiler/hand_schedules.h"
#include "bench/compiler/peers.h"
#include "bench/timing.h"
#include "compiler/codegen/host_target.h"
#include "common/strings.h"
#include "compiler/schedule/default_rules.h"

using namespace tunefarm;
using tunefarm::StrCat;

namespace {

codegen::Target g_target;
double g_peak_gflops[3];  // the measured FMA peak at 1 and 2 threads

// bench::Build, with the failure on stderr (the row then goes without that kernel).
std::unique_ptr<bench::Compiled> Build(const std::string& name, const schedule::State& s) {
  auto k = bench::Build(name, s, g_target);
  if (!k.ok()) {
    std::fprintf(stderr, "%s\n", std::string(k.status().message()).c_str());
    return nullptr;
  }
  return std::move(k.value());
}

struct Row {
  std::string kernel;
  double flops;
  std::shared_ptr<const te::ComputeDag> dag;
  std::vector<bench::NamedState> hand;
  std::vector<const std::vector<float>*> inputs;
  bench::Peer peer;
  // Hand templates on another form of the same computation (e.g. a constant operand packed once,
  // as oneDNN reorders its weights once), with their own inputs; same output.
  std::vector<bench::NamedState> hand_alt = {};
  std::vector<const std::vector<float>*> inputs_alt = {};
  // Our output in the peer's layout (NCHWc rows: back to NCHW); null when they agree.
  std::function<std::vector<float>(const float*)> to_peer_layout = nullptr;
};

void RunRow(Row& row) {
  // TUNEFARM_BENCH_FILTER=text runs only the rows whose name contains it.
  if (const char* only = std::getenv("TUNEFARM_BENCH_FILTER"); only && row.kernel.find(only) == std::string::npos)
    return;
  int64_t out_elems = row.dag->tensor(row.dag->outputs()[0]).NumElements();
  auto naive = Build("naive", schedule::State(row.dag));
  auto rule = schedule::ApplyDefaultSchedule(row.dag, {g_target.VectorLanes(te::DType::kFloat32), 2, g_target.VectorRegisters()});
  auto dflt = rule.ok() ? Build("default", *rule) : nullptr;
  // Each template with its own arguments: one that rewrote the weights' layout reads them so.
  struct HandKernel {
    std::unique_ptr<bench::Compiled> kernel;
    bench::Arrays args;
  };
  std::vector<HandKernel> hand;
  auto build_hand = [&](const std::vector<bench::NamedState>& templates, const std::vector<const std::vector<float>*>& inputs) {
    for (auto& h : templates) {
      auto k = Build(h.name, h.state);
      auto args = bench::MakeArgsFor(h.state, inputs, out_elems);
      if (!args.ok()) std::fprintf(stderr, "%s: %s\n", h.name.c_str(), std::string(args.status().message()).c_str());
      if (k && args.ok()) hand.push_back({std::move(k), std::move(*args)});
    }
  };
  build_hand(row.hand, row.inputs);
  build_hand(row.hand_alt, row.inputs_alt);
  bench::Arrays args = bench::MakeArgs(row.inputs, out_elems);
  for (int threads : {1, 2}) {
    deploy::ThreadPool pool(threads);
    row.peer.setup(threads);
    double peer_s = bench::MedianSecondsPerCall(row.peer.run, 3, 200);
    std::vector<float> ref = row.peer.output();
    auto gflops = [&](double s) { return row.flops / s / 1e9; };
    double naive_s = naive ? bench::TimeKernel(*naive, args, &pool, 50) : NAN;
    double dflt_s = dflt ? bench::TimeKernel(*dflt, args, &pool, 150) : NAN;
    // Our output in the peer's layout.
    auto peer_view = [&](const float* ours) {
      return row.to_peer_layout ? row.to_peer_layout(ours) : std::vector<float>(ours, ours + out_elems);
    };
    float dflt_diff = dflt ? bench::MaxDiff(peer_view(args.out()).data(), ref) : NAN;
    double hand_s = 1e30;
    std::string hand_name = "-";
    float hand_diff = NAN;
    for (HandKernel& h : hand) {
      double s = bench::TimeKernel(*h.kernel, h.args, &pool, 100);
      if (std::getenv("TUNEFARM_BENCH_VERBOSE"))
        std::fprintf(stderr, "  %-40s %2d threads: %7.1f GFLOP/s\n", h.kernel->name.c_str(), threads, gflops(s));
      if (s < hand_s) hand_s = s, hand_name = h.kernel->name, hand_diff = bench::MaxDiff(peer_view(h.args.out()).data(), ref);
    }
    if (hand_name == "-") hand_s = NAN;  // no template for this form
    std::printf("%-26s %2d | %7.1f %7.1f %7.1f %4.0f%% %4.0f%% | %-8s %7.1f %4.0f%% | %5.2fx %5.2fx %5.2fx | %-22s | %.1e %.1e\n",
                row.kernel.c_str(), threads, gflops(naive_s), gflops(dflt_s), gflops(hand_s),
                100 * gflops(dflt_s) / g_peak_gflops[threads], 100 * gflops(hand_s) / g_peak_gflops[threads],
                row.peer.name.c_str(), gflops(peer_s), 100 * gflops(peer_s) / g_peak_gflops[threads], peer_s / dflt_s,
                peer_s / hand_s, hand_s / dflt_s, hand_name.c_str(), dflt_diff, hand_diff);
    std::fflush(stdout);
  }
}

// C[i, j] = sum_k A[i, k] * Bp[j / nr, k, j % nr]: B packed once into column panels of nr, so
// the k loop of a register tile streams one contiguous panel.
std::shared_ptr<const te::ComputeDag> PackedMatmulDag(int64_t m, int64_t n, int64_t k, int64_t nr) {
  te::DagBuilder b;
  auto a = b.Placeholder("A", te::DType::kFloat32, {m, k});
  auto bp = b.Placeholder("Bp", te::DType::kFloat32, {n / nr, k, nr}, true);
  auto c = b.Reduce("C", te::ReduceKind::kSum, {m, n}, {k}, [&](const te::DagBuilder::Axes& i, const te::DagBuilder::Axes& r) {
    return a(i[0], r[0]) * bp(i[1] / nr, r[0], i[1] % nr);
  });
  return b.Build({c});
}

std::vector<float> PackColumns(const std::vector<float>& b, int64_t n, int64_t k, int64_t nr) {
  std::vector<float> packed(b.size());
  for (int64_t jo = 0; jo < n / nr; ++jo)
    for (int64_t r = 0; r < k; ++r)
      for (int64_t ji = 0; ji < nr; ++ji) packed[(jo * k + r) * nr + ji] = b[r * n + jo * nr + ji];
  return packed;
}

}  // namespace

int main() {
  g_target = codegen::HostTarget();
  const int lanes = g_target.VectorLanes(te::DType::kFloat32);
  std::printf("target: %s\nOpenBLAS core: %s (OPENBLAS_CORETYPE=%s)\n", g_target.ToString().c_str(),
              openblas_get_corename(), std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE") : "unset");
  for (int threads : {1, 2}) {
    bench::FmaPeak peak = bench::MeasureFmaPeak(threads);
    g_peak_gflops[threads] = peak.gflops;
    std::printf("FP32 FMA peak, %d thread%s: %.1f GFLOP/s (%s, independent FMA chains)\n", threads,
                threads > 1 ? "s" : "", peak.gflops, peak.vector_isa.c_str());
  }
  std::printf("GFLOP/s and %% of that peak; ratios are peer time / tunefarm time (>1: tunefarm faster); max|diff| vs the peer\n");
  std::printf("%-26s %2s | %7s %7s %7s %5s %5s | %-8s %7s %5s | %6s %6s %6s | %-22s | %s\n", "kernel", "th", "naive",
              "default", "hand", "%pk", "%pk", "peer", "peer", "%pk", "dflt", "hand", "dflt/h", "best hand template",
              "diff dflt/hand");

  std::vector<std::vector<float>> keep;  // inputs outlive their rows
  auto hold = [&](std::vector<float> v) -> const std::vector<float>* {
    keep.push_back(std::move(v));
    return &keep.back();
  };
  keep.reserve(64);

  // GEMM and the dense layer against OpenBLAS.
  struct GemmShape {
    int64_t m, n, k;
  };
  for (GemmShape g : {GemmShape{512, 512, 512}, GemmShape{1024, 1024, 1024}, GemmShape{1, 1000, 512}}) {
    auto dag = bench::MatmulDag(g.m, g.n, g.k);
    const auto* a = hold(bench::Filled(g.m * g.k, 0.001));
    const auto* b = hold(bench::Filled(g.k * g.n, 0.002));
    Row row{StrCat(g.m == 1 ? "dense " : "gemm ", g.m, "x", g.n, "x", g.k), 2.0 * g.m * g.n * g.k, dag,
            bench::GemmTemplates(dag, lanes), {a, b}, bench::BlasMatmulPeer(g.m, g.n, g.k, a, b)};
    for (auto& t : bench::GemmTileTemplates(dag, lanes)) row.hand.push_back(std::move(t));
    const int64_t nr = 4 * lanes;
    if (g.m > 1 && g.n % nr == 0) {
      auto packed = PackedMatmulDag(g.m, g.n, g.k, nr);
      for (auto& t : bench::GemmTemplates(packed, lanes)) {
        if (t.name.find(StrCat("nr=", nr, " ")) == std::string::npos) continue;  // tiles must match the panels
        row.hand_alt.push_back({"packedB " + t.name, std::move(t.state)});
      }
      row.inputs_alt = {a, hold(PackColumns(*b, g.n, g.k, nr))};
    }
    RunRow(row);
  }

  // ResNet-18's conv2d layers against oneDNN.
  // Then MobileNetV2's pointwise convs: expansion (96 -> 576 at 14x14) and projection
  // (144 -> 24 at 56x56, 96 -> 24 at 56x56: output blocks narrower than a vector).
  // Then SqueezeNet 1.1's classifier (512 -> 1000 at 13x13, padded to 63 blocks of 16 as the
  // layout pass does; 13 is prime) and its 3x3 expand convs with few input channels.
  const bench::ConvShape convs[] = {
      {1, 64, 56, 56, 64, 3, 3, 1, 1},  {1, 128, 28, 28, 128, 3, 3, 1, 1}, {1, 256, 14, 14, 256, 3, 3, 1, 1},
      {1, 512, 7, 7, 512, 3, 3, 1, 1},  {1, 3, 224, 224, 64, 7, 7, 2, 3},   {1, 96, 14, 14, 576, 1, 1, 1, 0},
      {1, 144, 56, 56, 24, 1, 1, 1, 0}, {1, 96, 56, 56, 24, 1, 1, 1, 0},  {1, 512, 13, 13, 1008, 1, 1, 1, 0},
      {1, 16, 55, 55, 64, 3, 3, 1, 1},  {1, 32, 27, 27, 128, 3, 3, 1, 1},  {1, 48, 13, 13, 192, 3, 3, 1, 1},
  };
  for (const auto& p : convs) {
    auto dag = bench::ConvDag(p);
    const auto* x = hold(bench::Filled(p.n * p.c * p.h * p.w, 0.001));
    const auto* w = hold(bench::Filled(p.k * p.c * p.r * p.s, 0.003));
    Row row{StrCat("conv C=", p.c, " K=", p.k, " ", p.h, "x", p.w, " ", p.r, "x", p.s, "/", p.stride), p.Flops(), dag,
            bench::ConvTemplates(dag, lanes), {x, w}, bench::OneDnnConvPeer(p, x, w)};
    RunRow(row);

    // The same layer as the layout pass compiles it: NCHW[x]c activations, packed weights.
    const int64_t xb = bench::Block(p.c, lanes), yb = bench::Block(p.k, lanes), ohw = p.OutH() * p.OutW();
    auto nchwc = bench::ConvNchwcDag(p, xb, yb);
    std::vector<bench::NamedState> nchwc_templates = bench::ConvNchwcTileTemplates(nchwc, lanes);
    for (auto& t : bench::ConvNchwcBlockTemplates(nchwc, lanes)) nchwc_templates.push_back(std::move(t));
    Row blocked{StrCat("nchw", yb, "c C=", p.c, " K=", p.k, " ", p.h, "x", p.w, " ", p.r, "x", p.s, "/", p.stride),
                p.Flops(), nchwc, std::move(nchwc_templates),
                {hold(bench::ToNchwc(*x, p.n, p.c, p.h * p.w, xb)),
                 hold(bench::PackWeight(*w, p.k, p.c, p.r * p.s, xb, yb))},
                row.peer};
    blocked.to_peer_layout = [p, yb, ohw](const float* out) { return bench::FromNchwc(out, p.n, p.k, ohw, yb); };
    RunRow(blocked);
  }
  return 0;
}
