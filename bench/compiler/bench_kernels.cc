#include "bench/compiler/bench_kernels.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <mutex>

#include "bench/timing.h"
#include "compiler/codegen/codegen.h"
#include "common/strings.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/conv2d_nchwc.h"
#include "compiler/ops/matmul.h"
#include "compiler/tir/layout_transform.h"
#include "compiler/tir/lower.h"
#include "proto/hardware_facts.h"

namespace tunefarm::bench {

std::shared_ptr<const te::ComputeDag> MatmulDag(int64_t m, int64_t n, int64_t k) {
  te::DagBuilder b;
  auto a = b.Placeholder("A", te::DType::kFloat32, {m, k});
  auto w = b.Placeholder("B", te::DType::kFloat32, {k, n}, true);
  return b.Build({ops::Matmul(b, a, w, false, "C")});
}

namespace {

ops::Conv2dParams ConvParams(const ConvShape& p) {
  ops::Conv2dParams cp;
  cp.stride = {p.stride, p.stride};
  cp.padding = {p.pad, p.pad, p.pad, p.pad};
  cp.groups = p.groups;
  return cp;
}

}  // namespace

std::shared_ptr<const te::ComputeDag> ConvDag(const ConvShape& p) {
  te::DagBuilder b;
  auto x = b.Placeholder("x", te::DType::kFloat32, {p.n, p.c, p.h, p.w});
  auto w = b.Placeholder("w", te::DType::kFloat32, {p.k, p.c / p.groups, p.r, p.s}, true);
  return b.Build({ops::Conv2dNchw(b, x, w, ConvParams(p))});
}

int64_t Block(int64_t c, int64_t lanes) {
  for (int64_t b = std::min(c, lanes); b > 1; --b)
    if (c % b == 0) return b;
  return 1;
}

int64_t WeightInBlock(const ConvShape& p, int64_t x) { return p.groups == 1 ? x : Block(p.c / p.groups, x); }

std::shared_ptr<const te::ComputeDag> ConvNchwcDag(const ConvShape& p, int64_t x, int64_t y) {
  const int64_t cg = p.c / p.groups, xi = WeightInBlock(p, x);
  te::DagBuilder b;
  auto d = b.Placeholder("x", te::DType::kFloat32, {p.n, p.c / x, p.h, p.w, x});
  auto w = b.Placeholder("w", te::DType::kFloat32, {p.k / y, cg / xi, p.r, p.s, xi, y}, true);
  return b.Build({*ops::Conv2dNchwc(b, d, w, ConvParams(p))});
}

std::vector<float> ToNchwc(const std::vector<float>& v, int64_t n, int64_t c, int64_t hw, int64_t x) {
  std::vector<float> out(v.size());
  for (int64_t i = 0; i < n * c * hw; ++i) {
    int64_t p = i % hw, ch = (i / hw) % c, b = i / (hw * c);
    out[((b * (c / x) + ch / x) * hw + p) * x + ch % x] = v[i];
  }
  return out;
}

std::vector<float> FromNchwc(const float* v, int64_t n, int64_t c, int64_t hw, int64_t x) {
  std::vector<float> out(n * c * hw);
  for (int64_t i = 0; i < n * c * hw; ++i) {
    int64_t p = i % hw, ch = (i / hw) % c, b = i / (hw * c);
    out[i] = v[((b * (c / x) + ch / x) * hw + p) * x + ch % x];
  }
  return out;
}

std::vector<float> PackWeight(const std::vector<float>& w, int64_t k, int64_t c, int64_t rs, int64_t x, int64_t y) {
  std::vector<float> out(w.size());
  for (int64_t i = 0; i < k * c * rs; ++i) {
    int64_t p = i % rs, ci = (i / rs) % c, ko = i / (rs * c);
    out[(((ko / y) * (c / x) + ci / x) * rs + p) * x * y + (ci % x) * y + ko % y] = w[i];
  }
  return out;
}

std::vector<float> Filled(int64_t n, double scale) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(std::sin(scale * static_cast<double>(i) + 0.3));
  return v;
}

absl::StatusOr<std::string> CompileKernel(const schedule::State& s, const codegen::Target& target) {
  auto f = tir::Lower(s, "kernel");
  if (!f.ok()) return absl::InternalError(StrCat("lower: ", std::string(f.status().message())));
  return CompileLowered(std::move(*f), target);
}

absl::StatusOr<std::string> CompileLowered(tir::PrimFunc f, const codegen::Target& target) {
  f.name = "kernel";
  if (const char* path = std::getenv("TUNEFARM_BENCH_DUMP_IR")) {  // bench_kernels.h
    static std::mutex dump_mutex;
    std::lock_guard<std::mutex> lock(dump_mutex);
    if (std::FILE* out = std::fopen(path, "a")) {
      std::fputs(tir::PrimFuncToString(f).c_str(), out);
      std::fclose(out);
    }
  }
  auto so = codegen::BuildSharedObject({f}, target);
  if (!so.ok()) return absl::InternalError(StrCat("codegen: ", std::string(so.status().message())));
  return std::move(*so);
}

absl::StatusOr<std::unique_ptr<Compiled>> LoadKernel(const std::string& name, const std::string& so) {
  auto lib = deploy::KernelLibrary::LoadFromBytes(so.data(), so.size(), name);
  if (!lib.ok()) return absl::InternalError(StrCat(name, ": load: ", lib.status().message()));
  return std::make_unique<Compiled>(Compiled{name, std::move(lib.value())});
}

absl::StatusOr<std::unique_ptr<Compiled>> Build(const std::string& name, const schedule::State& s,
                                                const codegen::Target& target) {
  auto so = CompileKernel(s, target);
  if (!so.ok()) return absl::InternalError(StrCat(name, ": ", std::string(so.status().message())));
  return LoadKernel(name, *so);
}

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

absl::StatusOr<Arrays> MakeArgsFor(const schedule::State& program, const std::vector<const std::vector<float>*>& inputs,
                                   int64_t out_elems) {
  Arrays a = MakeArgs(inputs, out_elems);
  auto rewritten = tir::TransformRewrittenArgs(program, [&](int arg) {
    return std::string_view(reinterpret_cast<const char*>(inputs[arg]->data()), inputs[arg]->size() * sizeof(float));
  });
  if (!rewritten.ok()) return rewritten.status();
  for (const auto& [arg, bytes] : *rewritten) {
    a.buffers[arg] = std::move(deploy::AlignedBuffer::Allocate(bytes.size()).value());
    std::memcpy(a.buffers[arg].data(), bytes.data(), bytes.size());
    a.args[arg] = a.buffers[arg].data();
  }
  return a;
}

bool CallKernel(Compiled& k, Arrays& a, deploy::ThreadPool* pool) {
  k.lib->set_thread_pool(pool);
  return k.lib->Call("kernel", a.args.data(), static_cast<int32_t>(a.args.size())).ok();
}

double TimeKernel(Compiled& k, Arrays& a, deploy::ThreadPool* pool, double min_repeat_ms, int repeats) {
  return MedianSecondsPerCall([&] { (void)CallKernel(k, a, pool); }, repeats, min_repeat_ms);
}

float MaxDiff(const float* a, const std::vector<float>& b) {
  float d = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    if (std::isnan(a[i])) return NAN;
    d = std::max(d, std::fabs(a[i] - b[i]));
  }
  return d;
}

std::string CpuModelName() {
  const std::string model = wire::ReadHardwareFacts().cpu_model();
  return model.empty() ? "unknown" : model;
}

}  // namespace tunefarm::bench
