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

#include "bench/compiler/fma_peak.h"
#include "bench/compiler/hand_schedules.h"
#include "bench/compiler/onednn_conv.h"
#include "bench/timing.h"
#include "compiler/codegen/codegen.h"
#include "compiler/common/strings.h"
#include "compiler/codegen/host_target.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/conv2d_nchwc.h"
#include "compiler/ops/matmul.h"
#include "compiler/schedule/default_rules.h"
#include "compiler/tir/lower.h"
#include "deploy/aligned_buffer.h"
#include "deploy/kernel_library.h"
#include "deploy/thread_pool.h"

using namespace tunefarm;
using tunefarm::StrCat;

namespace {

codegen::Target g_target;
double g_peak_gflops[3];  // the measured FMA peak at 1 and 2 threads

// A scheduled kernel built to a .so and loaded by the deploy runtime.
struct Compiled {
  std::string name;
  std::unique_ptr<deploy::KernelLibrary> lib;
};

std::unique_ptr<Compiled> Build(const std::string& name, const schedule::State& s) {
  auto f = tir::Lower(s, "kernel");
  if (!f.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(f.status().message()).c_str());
    return nullptr;
  }
  auto so = codegen::BuildSharedObject({*f}, g_target);
  if (!so.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(so.status().message()).c_str());
    return nullptr;
  }
  auto lib = deploy::KernelLibrary::LoadFromBytes(so->data(), so->size(), name);
  if (!lib.ok()) return nullptr;
  return std::make_unique<Compiled>(Compiled{name, std::move(lib.value())});
}

struct Arrays {
  std::vector<deploy::AlignedBuffer> buffers;
  std::vector<void*> args;
  float* out() { return static_cast<float*>(args.back()); }
};

// Inputs from `inputs` (copied into aligned buffers) plus an output of `out_elems`.
Arrays MakeArgs(const std::vector<const std::vector<float>*>& inputs, int64_t out_elems) {
  Arrays a;
  for (const auto* v : inputs) {
    a.buffers.push_back(std::move(deploy::AlignedBuffer::Allocate(v->size() * 4).value()));
    std::copy(v->begin(), v->end(), a.buffers.back().As<float>());
  }
  a.buffers.push_back(std::move(deploy::AlignedBuffer::Allocate(out_elems * 4).value()));
  for (auto& b : a.buffers) a.args.push_back(b.data());
  return a;
}

double TimeKernel(Compiled& k, Arrays& a, deploy::ThreadPool* pool, double min_ms) {
  k.lib->set_thread_pool(pool);
  return bench::MedianSecondsPerCall([&] { (void)k.lib->Call("kernel", a.args.data(), static_cast<int32_t>(a.args.size())); },
                                     3, min_ms);
}

float MaxDiff(const float* a, const std::vector<float>& b) {
  float d = 0;
  for (size_t i = 0; i < b.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

struct Row {
  std::string kernel;
  double flops;
  std::shared_ptr<const te::ComputeDag> dag;
  std::vector<bench::NamedState> hand;
  std::vector<const std::vector<float>*> inputs;
  std::string peer_name;
  // Hand templates on another form of the same computation (e.g. a constant operand packed once,
  // as oneDNN reorders its weights once), with their own inputs; same output.
  std::vector<bench::NamedState> hand_alt;
  std::vector<const std::vector<float>*> inputs_alt;
  std::function<void(int threads)> peer_setup;
  std::function<void()> peer_run;
  std::function<std::vector<float>()> peer_output;
  // Our output in the peer's layout (NCHWc rows: back to NCHW); null when they agree.
  std::function<std::vector<float>(const float*)> to_peer_layout;
};

void RunRow(Row& row) {
  // TUNEFARM_BENCH_FILTER=text runs only the rows whose name contains it.
  if (const char* only = std::getenv("TUNEFARM_BENCH_FILTER"); only && row.kernel.find(only) == std::string::npos)
    return;
  int64_t out_elems = row.dag->tensor(row.dag->outputs()[0]).NumElements();
  auto naive = Build("naive", schedule::State(row.dag));
  auto rule = schedule::ApplyDefaultSchedule(row.dag, {g_target.VectorLanes(te::DType::kFloat32), 2});
  auto dflt = rule.ok() ? Build("default", *rule) : nullptr;
  std::vector<std::unique_ptr<Compiled>> hand, hand_alt;
  for (auto& h : row.hand)
    if (auto k = Build(h.name, h.state)) hand.push_back(std::move(k));
  for (auto& h : row.hand_alt)
    if (auto k = Build(h.name, h.state)) hand_alt.push_back(std::move(k));
  Arrays args = MakeArgs(row.inputs, out_elems);
  Arrays args_alt = MakeArgs(row.inputs_alt, out_elems);
  for (int threads : {1, 2}) {
    deploy::ThreadPool pool(threads);
    row.peer_setup(threads);
    double peer_s = bench::MedianSecondsPerCall(row.peer_run, 3, 200);
    std::vector<float> ref = row.peer_output();
    auto gflops = [&](double s) { return row.flops / s / 1e9; };
    double naive_s = naive ? TimeKernel(*naive, args, &pool, 50) : NAN;
    double dflt_s = dflt ? TimeKernel(*dflt, args, &pool, 150) : NAN;
    // Our output in the peer's layout.
    auto peer_view = [&](const float* ours) {
      return row.to_peer_layout ? row.to_peer_layout(ours) : std::vector<float>(ours, ours + out_elems);
    };
    float dflt_diff = dflt ? MaxDiff(peer_view(args.out()).data(), ref) : NAN;
    double hand_s = 1e30;
    std::string hand_name = "-";
    float hand_diff = NAN;
    for (auto* set : {&hand, &hand_alt}) {
      Arrays& a = set == &hand ? args : args_alt;
      for (auto& k : *set) {
        double s = TimeKernel(*k, a, &pool, 100);
        if (std::getenv("TUNEFARM_BENCH_VERBOSE"))
          std::fprintf(stderr, "  %-40s %2d threads: %7.1f GFLOP/s\n", k->name.c_str(), threads, gflops(s));
        if (s < hand_s) hand_s = s, hand_name = k->name, hand_diff = MaxDiff(peer_view(a.out()).data(), ref);
      }
    }
    if (hand_name == "-") hand_s = NAN;  // no template for this form
    std::printf("%-26s %2d | %7.1f %7.1f %7.1f %4.0f%% %4.0f%% | %-8s %7.1f %4.0f%% | %5.2fx %5.2fx %5.2fx | %-22s | %.1e %.1e\n",
                row.kernel.c_str(), threads, gflops(naive_s), gflops(dflt_s), gflops(hand_s),
                100 * gflops(dflt_s) / g_peak_gflops[threads], 100 * gflops(hand_s) / g_peak_gflops[threads],
                row.peer_name.c_str(), gflops(peer_s), 100 * gflops(peer_s) / g_peak_gflops[threads], peer_s / dflt_s,
                peer_s / hand_s, hand_s / dflt_s, hand_name.c_str(), dflt_diff, hand_diff);
    std::fflush(stdout);
  }
}

std::vector<float> Filled(int64_t n, double scale) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(std::sin(scale * static_cast<double>(i) + 0.3));
  return v;
}

std::shared_ptr<const te::ComputeDag> MatmulDag(int64_t m, int64_t n, int64_t k) {
  te::DagBuilder b;
  auto a = b.Placeholder("A", te::DType::kFloat32, {m, k});
  auto w = b.Placeholder("B", te::DType::kFloat32, {k, n}, true);
  return b.Build({ops::Matmul(b, a, w, false, "C")});
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

// The channel block of the layout pass: the largest divisor of c that is <= lanes.
int64_t Block(int64_t c, int64_t lanes) {
  for (int64_t b = std::min(c, lanes); b > 1; --b)
    if (c % b == 0) return b;
  return 1;
}

std::shared_ptr<const te::ComputeDag> ConvNchwcDag(const bench::ConvShape& p, int64_t x, int64_t y) {
  te::DagBuilder b;
  auto d = b.Placeholder("x", te::DType::kFloat32, {p.n, p.c / x, p.h, p.w, x});
  auto w = b.Placeholder("w", te::DType::kFloat32, {p.k / y, p.c / x, p.r, p.s, x, y}, true);
  ops::Conv2dParams cp;
  cp.stride = {p.stride, p.stride};
  cp.padding = {p.pad, p.pad, p.pad, p.pad};
  return b.Build({*ops::Conv2dNchwc(b, d, w, cp)});
}

// NCHW [n, c, hw] -> [n, c/x, hw, x].
std::vector<float> ToNchwc(const std::vector<float>& v, int64_t n, int64_t c, int64_t hw, int64_t x) {
  std::vector<float> out(v.size());
  for (int64_t i = 0; i < n * c * hw; ++i) {
    int64_t p = i % hw, ch = (i / hw) % c, b = i / (hw * c);
    out[((b * (c / x) + ch / x) * hw + p) * x + ch % x] = v[i];
  }
  return out;
}

// OIHW [k, c, rs] -> [k/y, c/x, rs, x, y].
std::vector<float> PackWeight(const std::vector<float>& w, int64_t k, int64_t c, int64_t rs, int64_t x, int64_t y) {
  std::vector<float> out(w.size());
  for (int64_t i = 0; i < k * c * rs; ++i) {
    int64_t p = i % rs, ci = (i / rs) % c, ko = i / (rs * c);
    out[(((ko / y) * (c / x) + ci / x) * rs + p) * x * y + (ci % x) * y + ko % y] = w[i];
  }
  return out;
}

std::shared_ptr<const te::ComputeDag> ConvDag(const bench::ConvShape& p) {
  te::DagBuilder b;
  auto x = b.Placeholder("x", te::DType::kFloat32, {p.n, p.c, p.h, p.w});
  auto w = b.Placeholder("w", te::DType::kFloat32, {p.k, p.c, p.r, p.s}, true);
  ops::Conv2dParams cp;
  cp.stride = {p.stride, p.stride};
  cp.padding = {p.pad, p.pad, p.pad, p.pad};
  return b.Build({ops::Conv2dNchw(b, x, w, cp)});
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
  std::vector<float> blas_out;

  // GEMM and the dense layer against OpenBLAS.
  struct GemmShape {
    int64_t m, n, k;
  };
  for (GemmShape g : {GemmShape{512, 512, 512}, GemmShape{1024, 1024, 1024}, GemmShape{1, 1000, 512}}) {
    auto dag = MatmulDag(g.m, g.n, g.k);
    const auto* a = hold(Filled(g.m * g.k, 0.001));
    const auto* b = hold(Filled(g.k * g.n, 0.002));
    Row row{StrCat(g.m == 1 ? "dense " : "gemm ", g.m, "x", g.n, "x", g.k), 2.0 * g.m * g.n * g.k, dag,
            bench::GemmTemplates(dag, lanes), {a, b}, g.m == 1 ? "sgemv" : "sgemm"};
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
    row.peer_setup = [](int t) { openblas_set_num_threads(t); };
    row.peer_run = [&, g, a, b] {
      blas_out.resize(g.m * g.n);
      if (g.m == 1) {
        cblas_sgemv(CblasRowMajor, CblasTrans, g.k, g.n, 1.f, b->data(), g.n, a->data(), 1, 0.f, blas_out.data(), 1);
      } else {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g.m, g.n, g.k, 1.f, a->data(), g.k, b->data(), g.n, 0.f,
                    blas_out.data(), g.n);
      }
    };
    row.peer_output = [&] { return blas_out; };
    RunRow(row);
  }

  // ResNet-18's conv2d layers against oneDNN.
  const bench::ConvShape convs[] = {
      {1, 64, 56, 56, 64, 3, 3, 1, 1},  {1, 128, 28, 28, 128, 3, 3, 1, 1}, {1, 256, 14, 14, 256, 3, 3, 1, 1},
      {1, 512, 7, 7, 512, 3, 3, 1, 1},  {1, 3, 224, 224, 64, 7, 7, 2, 3},
  };
  for (const auto& p : convs) {
    auto dag = ConvDag(p);
    const auto* x = hold(Filled(p.n * p.c * p.h * p.w, 0.001));
    const auto* w = hold(Filled(p.k * p.c * p.r * p.s, 0.003));
    auto dnn = std::make_shared<std::unique_ptr<bench::OneDnnConv>>();
    Row row{StrCat("conv C=", p.c, " K=", p.k, " ", p.h, "x", p.w, " ", p.r, "x", p.s, "/", p.stride), p.Flops(), dag,
            bench::ConvTemplates(dag, lanes), {x, w}, "oneDNN"};
    // oneDNN fixes its thread count when the primitive is created: create it per thread count.
    row.peer_setup = [dnn, p, x, w](int t) {
      bench::SetOneDnnThreads(t);
      *dnn = std::make_unique<bench::OneDnnConv>(p, x->data(), w->data());
    };
    row.peer_run = [dnn] { (*dnn)->Run(); };
    row.peer_output = [dnn] { return (*dnn)->OutputNchw(); };
    RunRow(row);

    // The same layer as the layout pass compiles it: NCHW[x]c activations, packed weights.
    const int64_t xb = Block(p.c, lanes), yb = Block(p.k, lanes), ohw = p.OutH() * p.OutW();
    auto nchwc = ConvNchwcDag(p, xb, yb);
    Row blocked{StrCat("nchw", yb, "c C=", p.c, " K=", p.k, " ", p.h, "x", p.w, " ", p.r, "x", p.s, "/", p.stride),
                p.Flops(), nchwc, bench::ConvNchwcTileTemplates(nchwc, lanes),
                {hold(ToNchwc(*x, p.n, p.c, p.h * p.w, xb)), hold(PackWeight(*w, p.k, p.c, p.r * p.s, xb, yb))},
                "oneDNN"};
    blocked.peer_setup = row.peer_setup;
    blocked.peer_run = row.peer_run;
    blocked.peer_output = row.peer_output;
    blocked.to_peer_layout = [p, yb, ohw](const float* out) {
      std::vector<float> nchw(p.n * p.k * ohw);
      for (int64_t i = 0; i < static_cast<int64_t>(nchw.size()); ++i) {
        int64_t q = i % ohw, k = (i / ohw) % p.k, b = i / (ohw * p.k);
        nchw[i] = out[((b * (p.k / yb) + k / yb) * ohw + q) * yb + k % yb];
      }
      return nchw;
    };
    RunRow(blocked);
  }
  return 0;
}
