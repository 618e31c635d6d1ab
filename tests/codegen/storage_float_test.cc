// Casts from and to the storage floats (float16, bfloat16) in generated code: every float16 and
// bfloat16 bit pattern widened, and float32/float64/integer values (random bit patterns and the
// rounding edge cases) narrowed, in vector and scalar loops, through the JIT and a .so. The
// reference is te/float_bits (tested against arithmetic in te_test); the loop-IR interpreter
// must agree too. A .so built here may import nothing but memcpy/memset/memmove (the runner
// checks), so these casts never call compiler-rt's __truncsfhf2 family.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "compiler/te/float_bits.h"
#include "compiler/tir/interpreter.h"
#include "tests/codegen/kernel_runner.h"

namespace tunefarm::codegen::testing {
namespace {

using te::DType;
using te::Expr;
using tir::ForKind;

bool IsNanBits(uint64_t bits, te::FloatFormat f) {
  return (bits & ((uint64_t{1} << (f.TotalBits() - 1)) - 1)) > f.InfinityBits();
}

// One kernel: out_k[i] = Cast(to_k, x[i]) for every `to`, run by `backend` (or interpreted when
// `interpret`); returns the output buffers' bytes.
std::vector<std::vector<uint8_t>> RunCasts(DType from, const std::vector<DType>& to_types,
                                           const std::vector<uint8_t>& input, ForKind loop, Backend backend,
                                           bool interpret, const std::string& target = "") {
  const int64_t n = static_cast<int64_t>(input.size()) / te::DTypeBytes(from);
  std::vector<tir::Buffer> buffers = {Arg("x", from, {n})};
  std::vector<tir::Stmt> stmts;
  Expr i = te::MakeVar("i", 1);
  for (DType to : to_types) {
    const int out = static_cast<int>(buffers.size());
    buffers.push_back(Arg("out" + std::to_string(out), to, {n}, tir::ArgRole::kOutput));
    stmts.push_back(tir::Store(out, i, te::Cast(to, te::Load(from, 0, {i}))));
  }
  tir::PrimFunc f = MakeFunc("casts", buffers, static_cast<int>(buffers.size()), tir::For(i, n, loop, tir::Seq(stmts)));
  std::vector<deploy::AlignedBuffer> storage;
  std::vector<void*> args;
  storage.push_back(std::move(deploy::AlignedBuffer::Allocate(input.size()).value()));
  std::memcpy(storage.back().data(), input.data(), input.size());
  args.push_back(storage.back().data());
  for (DType to : to_types) {
    storage.push_back(std::move(deploy::AlignedBuffer::Allocate(n * te::DTypeBytes(to)).value()));
    std::memset(storage.back().data(), 0xA5, n * te::DTypeBytes(to));
    args.push_back(storage.back().data());
  }
  if (interpret) {
    EXPECT_TRUE(tir::Interpret(f, args).ok());
  } else {
    auto runner = KernelRunner::Create({f}, backend, target);
    EXPECT_NE(runner, nullptr);
    if (runner == nullptr) return {};
    EXPECT_EQ(runner->Run("casts", args, loop == ForKind::kParallel ? 2 : 1), 0);
  }
  std::vector<std::vector<uint8_t>> outs;
  for (size_t k = 0; k < to_types.size(); ++k) {
    const uint8_t* p = static_cast<const uint8_t*>(args[k + 1]);
    outs.emplace_back(p, p + n * te::DTypeBytes(to_types[k]));
  }
  return outs;
}

template <typename T>
T At(const std::vector<uint8_t>& bytes, size_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
std::vector<uint8_t> BytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::vector<uint8_t> AllSixteenBitPatterns() {
  std::vector<uint16_t> v(65536);
  for (uint32_t h = 0; h < 65536; ++h) v[h] = static_cast<uint16_t>(h);
  return BytesOf(v);
}

// Float32 inputs: random bit patterns (every class: NaN, infinities, subnormals) plus values
// on and around float16's rounding boundaries.
std::vector<float> Float32Inputs() {
  std::mt19937 rng(3);
  std::vector<float> v;
  for (int k = 0; k < 4000; ++k) {
    uint32_t bits = rng();
    float x;
    std::memcpy(&x, &bits, 4);
    v.push_back(x);
    v.push_back(std::ldexp(std::uniform_real_distribution<float>(1, 2)(rng), int(rng() % 60) - 30));
  }
  for (float x : {1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 65504.0f, 65519.0f, 65520.0f, 5.96046448e-8f,
                  2.98023224e-8f, 8.94069672e-8f, 6.09755516e-5f, -0.0f, 1e-45f})
    v.push_back(x), v.push_back(-x);
  return v;
}

class StorageFloatTest : public ::testing::TestWithParam<std::tuple<Backend, ForKind>> {
 protected:
  Backend backend() const { return std::get<0>(GetParam()); }
  ForKind loop() const { return std::get<1>(GetParam()); }
  std::vector<std::vector<uint8_t>> Run(DType from, const std::vector<DType>& to, const std::vector<uint8_t>& in) {
    return RunCasts(from, to, in, loop(), backend(), false);
  }
};

TEST_P(StorageFloatTest, WidensEveryFloat16Exactly) {
  auto outs = Run(DType::kFloat16, {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kBool, DType::kBFloat16},
                  AllSixteenBitPatterns());
  ASSERT_EQ(outs.size(), 5u);
  for (uint32_t h = 0; h < 65536; ++h) {
    const double v = te::HalfBitsToDouble(static_cast<uint16_t>(h));
    float f = At<float>(outs[0], h);
    double d = At<double>(outs[1], h);
    if (std::isnan(v)) {
      ASSERT_TRUE(std::isnan(f) && std::isnan(d)) << h;
      ASSERT_EQ(At<int32_t>(outs[2], h), 0) << "NaN to int is 0";
      ASSERT_TRUE(IsNanBits(At<uint16_t>(outs[4], h), te::kBFloat16Format)) << h;
    } else {
      ASSERT_EQ(f, static_cast<float>(v)) << h;
      ASSERT_EQ(std::signbit(f), std::signbit(v)) << h;
      ASSERT_EQ(d, v) << h;
      const double t = std::trunc(v);
      const int32_t want_int = std::isinf(v) ? (v > 0 ? INT32_MAX : INT32_MIN) : static_cast<int32_t>(t);
      ASSERT_EQ(At<int32_t>(outs[2], h), want_int) << h;
      ASSERT_EQ(At<uint16_t>(outs[4], h), te::DoubleToBFloat16Bits(v)) << h;
    }
    ASSERT_EQ(At<uint8_t>(outs[3], h), v != 0 || std::isnan(v) ? 1 : 0) << h;
  }
}

TEST_P(StorageFloatTest, WidensEveryBFloat16Exactly) {
  auto outs = Run(DType::kBFloat16, {DType::kFloat32, DType::kFloat16}, AllSixteenBitPatterns());
  ASSERT_EQ(outs.size(), 2u);
  for (uint32_t h = 0; h < 65536; ++h) {
    ASSERT_EQ(At<uint32_t>(outs[0], h), h << 16) << "bfloat16 is float32's top half, NaN payloads included";
    const double v = te::BFloat16BitsToDouble(static_cast<uint16_t>(h));
    if (std::isnan(v)) {
      ASSERT_TRUE(IsNanBits(At<uint16_t>(outs[1], h), te::kHalfFormat));
    } else {
      ASSERT_EQ(At<uint16_t>(outs[1], h), te::DoubleToHalfBits(v)) << h;
    }
  }
}

TEST_P(StorageFloatTest, NarrowsFloat32AndFloat64RoundingToNearestEven) {
  std::vector<float> f32 = Float32Inputs();
  std::vector<double> f64;
  std::mt19937_64 rng(4);
  for (float x : f32) {
    f64.push_back(x);
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, 8);
    f64.push_back(d);
    // Just off a float16 tie, where rounding through float32 first would go wrong.
    f64.push_back(1.0 + 1.0 / 2048 + 1e-12);
  }
  for (DType from : {DType::kFloat32, DType::kFloat64}) {
    std::vector<uint8_t> in = from == DType::kFloat32 ? BytesOf(f32) : BytesOf(f64);
    const size_t n = from == DType::kFloat32 ? f32.size() : f64.size();
    auto outs = Run(from, {DType::kFloat16, DType::kBFloat16}, in);
    ASSERT_EQ(outs.size(), 2u);
    for (size_t i = 0; i < n; ++i) {
      const double v = from == DType::kFloat32 ? f32[i] : f64[i];
      for (int k = 0; k < 2; ++k) {
        te::FloatFormat to = k == 0 ? te::kHalfFormat : te::kBFloat16Format;
        uint16_t got = At<uint16_t>(outs[k], i);
        if (std::isnan(v)) {
          ASSERT_TRUE(IsNanBits(got, to)) << v;
          continue;
        }
        uint16_t want = k == 0 ? te::DoubleToHalfBits(v) : te::DoubleToBFloat16Bits(v);
        ASSERT_EQ(got, want) << te::DTypeName(from) << " " << v << " to " << (k == 0 ? "float16" : "bfloat16");
      }
    }
  }
}

TEST_P(StorageFloatTest, NarrowsIntegers) {
  std::vector<int64_t> ints = {0, 1, -1, 2049, 2051, 65504, 65519, 65520, 70000, -70000,
                               (int64_t{1} << 53) + 1, INT64_MIN, INT64_MAX};
  std::mt19937_64 rng(6);
  for (int k = 0; k < 500; ++k) ints.push_back(static_cast<int64_t>(rng()) >> (rng() % 64));
  auto outs = Run(DType::kInt64, {DType::kFloat16, DType::kBFloat16}, BytesOf(ints));
  ASSERT_EQ(outs.size(), 2u);
  for (size_t i = 0; i < ints.size(); ++i) {
    // Through float64, as the interpreter and host tensors convert.
    const double v = static_cast<double>(ints[i]);
    ASSERT_EQ(At<uint16_t>(outs[0], i), te::DoubleToHalfBits(v)) << ints[i];
    ASSERT_EQ(At<uint16_t>(outs[1], i), te::DoubleToBFloat16Bits(v)) << ints[i];
  }
}

INSTANTIATE_TEST_SUITE_P(BackendsAndLoops, StorageFloatTest,
                         ::testing::ValuesIn(EveryBackendWith({ForKind::kVectorized, ForKind::kSerial, ForKind::kParallel})),
                         [](const auto& info) { return BackendAndLoopName(info.param); });

// The loop-IR interpreter (the other tests' reference executor) gives the generated code's bits.
TEST(StorageFloatInterpreterTest, AgreesWithGeneratedCode) {
  std::vector<float> f32 = Float32Inputs();
  for (const auto& [from, in] : {std::pair{DType::kFloat32, BytesOf(f32)}, std::pair{DType::kFloat16, AllSixteenBitPatterns()}}) {
    std::vector<DType> to = {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kUInt64};
    to.erase(std::remove(to.begin(), to.end(), from), to.end());
    auto interpreted = RunCasts(from, to, in, ForKind::kSerial, Backend::kJit, true);
    auto compiled = RunCasts(from, to, in, ForKind::kVectorized, Backend::kJit, false);
    ASSERT_EQ(interpreted.size(), compiled.size());
    for (size_t k = 0; k < to.size(); ++k) {
      const int w = te::DTypeBytes(to[k]);
      for (size_t i = 0; i < interpreted[k].size() / w; ++i) {
        std::vector<uint8_t> a(interpreted[k].begin() + i * w, interpreted[k].begin() + (i + 1) * w);
        std::vector<uint8_t> b(compiled[k].begin() + i * w, compiled[k].begin() + (i + 1) * w);
        if (a == b) continue;
        // NaN payloads may differ (the interpreter goes through a double); NaN must stay NaN.
        bool both_nan = false;
        if (te::IsStorageFloat(to[k]))
          both_nan = IsNanBits(At<uint16_t>(a, 0), te::FormatOf(to[k])) && IsNanBits(At<uint16_t>(b, 0), te::FormatOf(to[k]));
        if (to[k] == DType::kFloat32) both_nan = std::isnan(At<float>(a, 0)) && std::isnan(At<float>(b, 0));
        ASSERT_TRUE(both_nan) << te::DTypeName(from) << " -> " << te::DTypeName(to[k]) << " element " << i;
      }
    }
  }
}

// Baseline x86-64 has no F16C: the casts must still be integer code, not libcalls (the .so
// import check) and still exact. Exists only in x86-64 builds, which can run the code.
#if defined(__x86_64__)
TEST(StorageFloatBaselineTest, NoHardwareConversionNeeded) {
  std::vector<float> f32 = Float32Inputs();
  auto outs = RunCasts(DType::kFloat32, {DType::kFloat16}, BytesOf(f32), ForKind::kVectorized,
                       Backend::kSharedObject, false, "llvm -mtriple=x86_64-linux-gnu");
  ASSERT_EQ(outs.size(), 1u);
  for (size_t i = 0; i < f32.size(); ++i) {
    if (std::isnan(f32[i])) continue;
    ASSERT_EQ(At<uint16_t>(outs[0], i), te::DoubleToHalfBits(f32[i])) << f32[i];
  }
}
#endif

}  // namespace
}  // namespace tunefarm::codegen::testing
