// The uint8 x int8 conv (ops/int8_conv.h) against the definition of a convolution on random
// data: unscheduled, and in the schedule that makes codegen emit VNNI (the 16 output lanes
// vectorized inside the channel loop), with strides and dilations, compiled for the host.
#include <gtest/gtest.h>

#include <regex>

#include "compiler/codegen/codegen.h"
#include "compiler/ops/int8_conv.h"
#include "compiler/tir/lower.h"
#include "tests/codegen/kernel_runner.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

using In = const std::vector<Tensor>&;

// Zen 4: AVX-512 with VNNI. Only compiled here, never run, so any host can check its code.
constexpr char kAvx512VnniTarget[] = "llvm -mtriple=x86_64-linux-gnu -mcpu=znver4";

// x [N, C, H, W] -> [N, C/B, H, W, B].
HostTensor PackData(const HostTensor& x, int64_t block = 4) {
  const Shape& s = x.shape;
  HostTensor p(DType::kUInt8, {s[0], s[1] / block, s[2], s[3], block});
  ForEachIndex(s, [&](const std::vector<int64_t>& i) {
    p.at({i[0], i[1] / block, i[2], i[3], i[1] % block}) = x.at(i);
  });
  return p;
}

// w [K, C, R, S] -> [K/16, C/4, R, S, 16, 4].
HostTensor PackWeights(const HostTensor& w) {
  const Shape& s = w.shape;
  HostTensor p(DType::kInt8, {s[0] / 16, s[1] / 4, s[2], s[3], 16, 4});
  ForEachIndex(s, [&](const std::vector<int64_t>& i) {
    p.at({i[0] / 16, i[1] / 4, i[2], i[3], i[0] % 16, i[1] % 4}) = w.at(i);
  });
  return p;
}

// The convolution, unpadded, into the op's blocked output [N, K/16, OH, OW, 16].
HostTensor Reference(const HostTensor& x, const HostTensor& w, const Int8ConvParams& p) {
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t k = w.shape[0], r = w.shape[2], s = w.shape[3];
  const int64_t oh = (h - (r - 1) * p.dilation_h - 1) / p.stride_h + 1, ow = (wd - (s - 1) * p.dilation_w - 1) / p.stride_w + 1;
  HostTensor y(DType::kInt32, {n, k / 16, oh, ow, 16});
  ForEachIndex(y.shape, [&](const std::vector<int64_t>& o) {
    int64_t sum = 0;
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t ri = 0; ri < r; ++ri)
        for (int64_t si = 0; si < s; ++si)
          sum += static_cast<int64_t>(x.at({o[0], ci, o[2] * p.stride_h + ri * p.dilation_h, o[3] * p.stride_w + si * p.dilation_w})) *
                 static_cast<int64_t>(w.at({o[1] * 16 + o[4], ci, ri, si}));
    y.at(o) = StoreAs(DType::kInt32, static_cast<double>(sum));
  });
  return y;
}

OpFn Conv(const Int8ConvParams& p) {
  return [p](DagBuilder& b, In in) { return Conv2dU8S8(b, in[0], in[1], p); };
}

TEST(Int8Conv, MatchesTheDefinitionUnscheduledAndCompiled) {
  const HostTensor x = Random(DType::kUInt8, {1, 8, 9, 10}, 1, 0, 255);
  const HostTensor w = Random(DType::kInt8, {32, 8, 3, 3}, 2, -128, 127);
  for (const Int8ConvParams& p : {Int8ConvParams{}, Int8ConvParams{2, 1, 1, 2}}) {
    const HostTensor want = Reference(x, w, p);
    EXPECT_TRUE(AllClose(RunOp({PackData(x), PackWeights(w)}, Conv(p)), want));
    auto dag = BuildOpDag({PackData(x), PackWeights(w)}, Conv(p));
    ASSERT_TRUE(dag.ok()) << dag.status();
    auto compiled = RunSharedObject(**dag, {PackData(x), PackWeights(w)});
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    EXPECT_TRUE(AllClose(*compiled, want)) << "stride " << p.stride_h << ", dilation " << p.dilation_w;
    // The 16 lanes vectorized inside the reduction: n, kb, oh, ow, lane, c4, r, s ->
    // n, kb, oh, ow, c4, r, s, lane.
    schedule::State s(*dag);
    const int out = (*dag)->outputs()[0];
    ASSERT_TRUE(s.Reorder(out, {0, 1, 2, 3, 5, 6, 7, 4}).ok());
    ASSERT_TRUE(s.Annotate(out, 7, schedule::IterAnnotation::kVectorize).ok());
    auto vectorized = RunStateSharedObject(s, {PackData(x), PackWeights(w)});
    ASSERT_TRUE(vectorized.ok()) << vectorized.status();
    EXPECT_TRUE(AllClose(*vectorized, want)) << "vectorized, stride " << p.stride_h;
  }
}

// x in blocks of 16 channels (the layout of another int8 conv's output): four channels per
// group as before, four groups per block of x. Unscheduled, default, and vectorized, where the
// VNNI target gets vpdpbusd and no gather.
TEST(Int8Conv, SixteenChannelBlocksOfXMatchTheDefinition) {
  const HostTensor x = Random(DType::kUInt8, {1, 32, 7, 8}, 11, 0, 255);
  const HostTensor w = Random(DType::kInt8, {16, 32, 3, 3}, 12, -128, 127);
  const std::vector<HostTensor> in = {PackData(x, 16), PackWeights(w)};
  for (const Int8ConvParams& p : {Int8ConvParams{}, Int8ConvParams{2, 1, 1, 2}}) {
    const HostTensor want = Reference(x, w, p);
    EXPECT_TRUE(AllClose(RunOp(in, Conv(p)), want));
    auto dag = BuildOpDag(in, Conv(p));
    ASSERT_TRUE(dag.ok()) << dag.status();
    auto compiled = RunSharedObject(**dag, in);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    EXPECT_TRUE(AllClose(*compiled, want)) << "stride " << p.stride_h << ", dilation " << p.dilation_w;
    // n, kb, oh, ow, lane, cb, r, s, quad -> n, kb, oh, ow, cb, r, s, quad, lane.
    schedule::State s(*dag);
    const int out = (*dag)->outputs()[0];
    ASSERT_TRUE(s.Reorder(out, {0, 1, 2, 3, 5, 6, 7, 8, 4}).ok());
    ASSERT_TRUE(s.Annotate(out, 8, schedule::IterAnnotation::kVectorize).ok());
    auto vectorized = RunStateSharedObject(s, in);
    ASSERT_TRUE(vectorized.ok()) << vectorized.status();
    EXPECT_TRUE(AllClose(*vectorized, want)) << "vectorized, stride " << p.stride_h;
    auto f = tir::Lower(s, "op");
    ASSERT_TRUE(f.ok()) << f.status();
    auto target = codegen::Target::Parse(kAvx512VnniTarget);
    ASSERT_TRUE(target.ok()) << target.status();
    auto so = codegen::BuildSharedObject({*f}, *target);
    ASSERT_TRUE(so.ok()) << so.status();
    const std::string text = codegen::testing::Disassemble(*so);
    EXPECT_TRUE(std::regex_search(text, std::regex(R"(vpdpbusd\s+.*%zmm)"))) << text.substr(0, 6000);
    EXPECT_EQ(text.find("gather"), std::string::npos) << text.substr(0, 6000);
  }
}

TEST(Int8Conv, RefusesLayoutsThatDoNotFit) {
  const HostTensor x = PackData(Random(DType::kUInt8, {1, 4, 5, 5}, 3, 0, 255));
  const HostTensor w = PackWeights(Random(DType::kInt8, {16, 4, 3, 3}, 4, -128, 127));
  absl::Status s = BuildStatus({x, PackWeights(Random(DType::kInt8, {16, 8, 3, 3}, 5, -128, 127))}, Conv({}));
  EXPECT_NE(s.message().find("C/4"), std::string::npos) << s;
  s = BuildStatus({x, w}, Conv({1, 1, 3, 3}));
  EXPECT_NE(s.message().find("does not fit"), std::string::npos) << s;
  s = BuildStatus({Random(DType::kInt8, {1, 1, 5, 5, 4}, 6, -128, 127), w}, Conv({}));
  EXPECT_NE(s.message().find("uint8"), std::string::npos) << s;
  s = BuildStatus({Random(DType::kUInt8, {1, 1, 5, 5, 6}, 7, 0, 255), w}, Conv({}));
  EXPECT_NE(s.message().find("B a multiple of 4"), std::string::npos) << s;
}

}  // namespace
}  // namespace tunefarm::ops::testing
