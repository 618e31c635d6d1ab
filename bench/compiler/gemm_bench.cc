// GEMM (C = A * B, float32) compiled by tunefarm beside OpenBLAS sgemm, measured in the same
// run, at M=N=K=512 and 1024 on 1 and 2 threads. tunefarm's figure is the best of a small set of
// hand-written schedule templates (split/reorder/fuse/annotate/compute_at only, no packing
// layout): the starting point the tuner must beat.
#include <cblas.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/timing.h"
#include "compiler/codegen/codegen.h"
#include "compiler/codegen/host_target.h"
#include "compiler/ops/matmul.h"
#include "compiler/tir/lower.h"
#include "deploy/aligned_buffer.h"
#include "deploy/kernel_library.h"
#include "deploy/thread_pool.h"

using namespace tunefarm;

namespace {

struct Template {
  int64_t mr, nr, kc;  // register tile rows/cols, k block (0: no k split)
};

std::shared_ptr<const te::ComputeDag> GemmDag(int64_t n) {
  te::DagBuilder b;
  auto a = b.Placeholder("A", te::DType::kFloat32, {n, n});
  auto w = b.Placeholder("B", te::DType::kFloat32, {n, n}, true);
  return b.Build({ops::Matmul(b, a, w, false, "C")});
}

// i.0 (parallel) j.0 [k.0] k.1 i.1 (unrolled) j.1 (vectorized): an mr x nr block of C stays in
// registers across the k loop.
absl::StatusOr<schedule::State> Schedule(std::shared_ptr<const te::ComputeDag> dag, Template t) {
  schedule::State s(std::move(dag));
  using schedule::IterAnnotation;
  for (absl::Status st : {s.Split(2, 0, {t.mr}), s.Split(2, 2, {t.nr})})
    if (!st.ok()) return st;
  if (t.kc > 0) {
    if (auto st = s.Split(2, 4, {t.kc}); !st.ok()) return st;
    // i.0 i.1 j.0 j.1 k.0 k.1 -> i.0 j.0 k.0 k.1 i.1 j.1
    if (auto st = s.Reorder(2, {0, 2, 4, 5, 1, 3}); !st.ok()) return st;
  } else {
    // i.0 i.1 j.0 j.1 k -> i.0 j.0 k i.1 j.1
    if (auto st = s.Reorder(2, {0, 2, 4, 1, 3}); !st.ok()) return st;
  }
  int n = static_cast<int>(s.stage(2).iters.size());
  for (absl::Status st : {s.Annotate(2, 0, IterAnnotation::kParallel), s.Annotate(2, n - 2, IterAnnotation::kUnroll),
                          s.Annotate(2, n - 1, IterAnnotation::kVectorize)})
    if (!st.ok()) return st;
  return s;
}

struct Buffers {
  deploy::AlignedBuffer a, b, c;
};

double Gflops(int64_t n, double seconds) { return 2.0 * n * n * n / seconds / 1e9; }

}  // namespace

int main() {
  codegen::Target target = codegen::HostTarget();
  std::printf("target: %s\nOpenBLAS core: %s (OPENBLAS_CORETYPE=%s)\n", target.ToString().c_str(), openblas_get_corename(),
              std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE") : "unset");
  std::printf("%-6s %-7s %-22s %12s %12s %8s %10s\n", "size", "threads", "tunefarm schedule", "tunefarm", "OpenBLAS",
              "ratio", "max|diff|");
  const int lanes = target.VectorLanes(te::DType::kFloat32);
  std::vector<Template> templates;
  for (int64_t mr : {4, 6, 8})
    for (int64_t nr : {2 * lanes, 4 * lanes})
      for (int64_t kc : {0, 128}) templates.push_back({mr, nr, kc});

  for (int64_t n : {512, 1024}) {
    auto dag = GemmDag(n);
    Buffers buf{std::move(deploy::AlignedBuffer::Allocate(n * n * 4).value()),
                std::move(deploy::AlignedBuffer::Allocate(n * n * 4).value()),
                std::move(deploy::AlignedBuffer::Allocate(n * n * 4).value())};
    float *a = buf.a.As<float>(), *b = buf.b.As<float>(), *c = buf.c.As<float>();
    for (int64_t i = 0; i < n * n; ++i) a[i] = std::sin(0.001 * i), b[i] = std::cos(0.002 * i);
    std::vector<float> ref(n * n);

    // Build every template once.
    struct Built {
      Template t;
      std::unique_ptr<deploy::KernelLibrary> lib;
    };
    std::vector<Built> built;
    for (Template t : templates) {
      auto s = Schedule(dag, t);
      if (!s.ok()) continue;
      auto f = tir::Lower(*s, "gemm");
      if (!f.ok()) continue;
      auto so = codegen::BuildSharedObject({*f}, target);
      if (!so.ok()) {
        std::fprintf(stderr, "build failed: %s\n", std::string(so.status().message()).c_str());
        continue;
      }
      auto lib = deploy::KernelLibrary::LoadFromBytes(so->data(), so->size(), "gemm.so");
      if (!lib.ok()) {
        std::fprintf(stderr, "load failed: %s\n", lib.status().message().c_str());
        continue;
      }
      built.push_back({t, std::move(lib.value())});
    }

    for (int threads : {1, 2}) {
      deploy::ThreadPool pool(threads);
      openblas_set_num_threads(threads);
      auto blas = [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, a, n, b, n, 0.f, ref.data(), n);
      };
      double blas_s = bench::MedianSecondsPerCall(blas);
      double best_s = 1e30;
      Template best{};
      float diff = 0;
      for (Built& k : built) {
        k.lib->set_thread_pool(&pool);
        void* args[] = {a, b, c};
        auto run = [&] { (void)k.lib->Call("gemm", args, 3); };
        double s = bench::MedianSecondsPerCall(run, 3, 100);
        if (s < best_s) {
          best_s = s;
          best = k.t;
          run();
          diff = 0;
          for (int64_t i = 0; i < n * n; ++i) diff = std::max(diff, std::fabs(c[i] - ref[i]));
        }
      }
      char name[64];
      std::snprintf(name, sizeof(name), "mr=%ld nr=%ld kc=%ld", static_cast<long>(best.mr), static_cast<long>(best.nr),
                    static_cast<long>(best.kc));
      std::printf("%-6ld %-7d %-22s %8.1f GF/s %8.1f GF/s %7.2fx %10.2e\n", static_cast<long>(n), threads, name,
                  Gflops(n, best_s), Gflops(n, blas_s), blas_s / best_s, diff);
      std::fflush(stdout);
    }
  }
  return 0;
}
