// How long the tuner pays per candidate before codegen: replaying a typical conv2d schedule
// from its JSON on the task's DAG, then lowering it to the loop IR. The tuner does this
// thousands of times a round (DESIGN.md "The tuner": about a millisecond).
#include <cstdio>

#include "bench/timing.h"
#include "compiler/ops/conv2d.h"
#include "compiler/ops/elementwise.h"
#include "compiler/schedule/state.h"
#include "compiler/tir/lower.h"

using namespace tunefarm;

namespace {

// ResNet-18's 3x3 conv on 56x56x64 with bias and relu, Ansor-style: multi-level tiles of the
// output, a local accumulator computed per tile, padding and bias inlined.
schedule::State TypicalConvSchedule() {
  te::DagBuilder b;
  auto x = b.Placeholder("x", te::DType::kFloat32, {1, 64, 56, 56});
  auto w = b.Placeholder("w", te::DType::kFloat32, {64, 64, 3, 3}, true);
  auto bias = b.Placeholder("bias", te::DType::kFloat32, {64}, true);
  ops::Conv2dParams p;
  p.padding = {1, 1, 1, 1};
  auto conv = ops::Conv2dNchw(b, x, w, p);
  auto out = ops::Relu(b, ops::BiasAdd(b, conv, bias, 1));
  schedule::State s(b.Build({out}));
  // 0 x, 1 w, 2 bias, 3 pad, 4 conv, 5 bias_add, 6 relu
  auto check = [](absl::Status st) {
    if (!st.ok()) {
      std::fprintf(stderr, "schedule step failed: %s\n", std::string(st.message()).c_str());
      std::exit(1);
    }
  };
  check(s.ComputeInline(3));
  check(s.ComputeInline(5));
  check(s.CacheWrite(4, "local"));  // 4 conv.local, 5 conv, 6 bias_add, 7 relu
  check(s.ComputeInline(5));
  // relu: n k oh ow -> k.0 oh.0 ow.0 | k.1 oh.1 ow.1
  check(s.Split(7, 1, {8}));            // n k.0 k.1 oh ow
  check(s.Split(7, 3, {4}));            // n k.0 k.1 oh.0 oh.1 ow
  check(s.Split(7, 5, {8}));            // n k.0 k.1 oh.0 oh.1 ow.0 ow.1
  check(s.Reorder(7, {0, 1, 3, 5, 2, 4, 6}));
  check(s.Fuse(7, {0, 1, 2, 3}));       // n@k.0@oh.0@ow.0 k.1 oh.1 ow.1
  check(s.Annotate(7, 0, schedule::IterAnnotation::kParallel));
  check(s.Annotate(7, 3, schedule::IterAnnotation::kVectorize));
  // conv.local: n k oh ow rc ry rx, tiled to match and computed per output tile
  check(s.Split(4, 1, {8}));
  check(s.Split(4, 3, {4}));
  check(s.Split(4, 5, {8}));
  check(s.Split(4, 7, {8}));            // rc
  check(s.Reorder(4, {0, 1, 3, 5, 7, 9, 10, 2, 8, 4, 6}));
  check(s.Annotate(4, 10, schedule::IterAnnotation::kVectorize));
  check(s.PragmaAutoUnroll(4, 0, 64));
  check(s.ComputeAt(4, 7, 0));
  return s;
}

}  // namespace

int main() {
  schedule::State s = TypicalConvSchedule();
  std::string json = s.ToJson();
  auto dag = s.original_dag();
  size_t nodes = 0;
  double replay = bench::MedianSecondsPerCall([&] {
    auto r = schedule::State::FromJson(dag, json);
    if (!r.ok()) std::abort();
    nodes += r->steps().size();
  });
  double replay_lower = bench::MedianSecondsPerCall([&] {
    auto r = schedule::State::FromJson(dag, json);
    auto f = tir::Lower(*r, "conv");
    if (!f.ok()) {
      std::fprintf(stderr, "%s\n", std::string(f.status().message()).c_str());
      std::abort();
    }
  });
  std::printf("conv2d 64x56x56 3x3 + bias + relu, %zu steps:\n%s", s.steps().size(), s.ToString().c_str());
  std::printf("replay          %8.3f ms\n", replay * 1e3);
  std::printf("replay + lower  %8.3f ms   (target: about 1 ms)\n", replay_lower * 1e3);
  return nodes == 0;
}
