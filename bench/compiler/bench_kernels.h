// What the kernel benchmarks share: the workloads as compute DAGs (GEMM, conv2d in NCHW and in
// NCHW[x]c with packed weights, as the layout pass compiles it) with their inputs in each
// layout, and the plumbing around one scheduled kernel: build it to a shared object, load it,
// give it aligned arguments, time it, compare its output.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/compiler/onednn_conv.h"
#include "compiler/codegen/target.h"
#include "compiler/schedule/state.h"
#include "compiler/tir/stmt.h"
#include "deploy/aligned_buffer.h"
#include "deploy/kernel_library.h"
#include "deploy/thread_pool.h"

namespace tunefarm::bench {

// ---- Workloads ----

// C[m, n] = A[m, k] B[k, n], B constant (the dense layer is m = 1).
std::shared_ptr<const te::ComputeDag> MatmulDag(int64_t m, int64_t n, int64_t k);

// conv2d NCHW: x [n, c, h, w], w OIHW [k, c / groups, r, s] constant.
std::shared_ptr<const te::ComputeDag> ConvDag(const ConvShape& p);

// The channel block of the layout pass: the largest divisor of c that is <= lanes.
int64_t Block(int64_t c, int64_t lanes);

// conv2d NCHW[x]c: x [n, c/x, h, w, x], w packed [k/y, cg/xi, r, s, xi, y] (cg = c / groups;
// xi = x for groups == 1, 1 for a depthwise conv, whose x must equal y).
std::shared_ptr<const te::ComputeDag> ConvNchwcDag(const ConvShape& p, int64_t x, int64_t y);
// The input block xi of ConvNchwcDag's packed weight.
int64_t WeightInBlock(const ConvShape& p, int64_t x);

// NCHW [n, c, hw] -> [n, c/x, hw, x].
std::vector<float> ToNchwc(const std::vector<float>& v, int64_t n, int64_t c, int64_t hw, int64_t x);
// [n, c/x, hw, x] -> NCHW [n, c, hw].
std::vector<float> FromNchwc(const float* v, int64_t n, int64_t c, int64_t hw, int64_t x);
// OIHW [k, c, rs] -> [k/y, c/x, rs, x, y] (c: the input channels of one group).
std::vector<float> PackWeight(const std::vector<float>& w, int64_t k, int64_t c, int64_t rs, int64_t x, int64_t y);

// n deterministic values in [-1, 1]: sin(scale * i + 0.3).
std::vector<float> Filled(int64_t n, double scale);

// ---- One scheduled kernel ----

// A schedule lowered to an entry "kernel", built to a .so and loaded by the deploy runtime.
struct Compiled {
  std::string name;
  std::unique_ptr<deploy::KernelLibrary> lib;
};

// The shared object of `s` for `target`: lowered, compiled and linked (safe to call from
// several threads at once). With TUNEFARM_BENCH_DUMP_IR=FILE set, each kernel's loop IR is
// appended to FILE first, to see what a bench row ran.
absl::StatusOr<std::string> CompileKernel(const schedule::State& s, const codegen::Target& target);
// The same for a program already lowered (its entry is renamed to the one CallKernel calls).
absl::StatusOr<std::string> CompileLowered(tir::PrimFunc f, const codegen::Target& target);
// Loads a shared object from CompileKernel. Errors start with `name`.
absl::StatusOr<std::unique_ptr<Compiled>> LoadKernel(const std::string& name, const std::string& so);
// Both. Errors (lowering, codegen, loading) start with `name`.
absl::StatusOr<std::unique_ptr<Compiled>> Build(const std::string& name, const schedule::State& s,
                                                const codegen::Target& target);

// A kernel's arguments in 64-byte aligned buffers: the inputs, then one float32 output.
struct Arrays {
  std::vector<deploy::AlignedBuffer> buffers;
  std::vector<void*> args;
  float* out() { return static_cast<float*>(args.back()); }
};

// Inputs copied from `inputs`, plus an output of `out_elems`.
Arrays MakeArgs(const std::vector<const std::vector<float>*>& inputs, int64_t out_elems);

// The same for `program`'s kernel: every weight tensor whose layout the program rewrote (the LR
// step) is transformed as the compiler does at build time.
absl::StatusOr<Arrays> MakeArgsFor(const schedule::State& program, const std::vector<const std::vector<float>*>& inputs,
                                   int64_t out_elems);

// Runs the kernel once on `pool`; false when it reports an error.
bool CallKernel(Compiled& k, Arrays& a, deploy::ThreadPool* pool);

// Median seconds per call (bench/timing.h) on `pool`.
double TimeKernel(Compiled& k, Arrays& a, deploy::ThreadPool* pool, double min_repeat_ms, int repeats = 3);

// max |a[i] - b[i]|; NaN when some a[i] is NaN (e.g. an output the kernel never wrote).
float MaxDiff(const float* a, const std::vector<float>& b);

// ---- Wall time ----

using Clock = std::chrono::steady_clock;

inline double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// ---- The machine ----

// /proc/cpuinfo's first "model name" ("unknown" when there is none, as on many ARM boards).
std::string CpuModelName();

}  // namespace tunefarm::bench
