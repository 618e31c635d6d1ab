// The inline math intrinsics against long-double libm references on many random inputs, in
// vectorized and scalar loops, plus special values (inf, NaN, signed zeros, overflow).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "compiler/codegen/host_target.h"
#include "tests/codegen/kernel_runner.h"

namespace tunefarm::codegen::testing {
namespace {

using te::DType;
using te::Expr;
using te::Intrinsic;
using tir::ForKind;

struct MathCase {
  Intrinsic f;
  double lo, hi;      // input range
  bool log_uniform;   // |x| spread over decades (then lo, hi > 0)
  double ylo = 0, yhi = 0;  // pow's exponent
  double max_ulp_f32;
  double max_ulp_f64;
  bool f64_only = false;  // ranges only float64 can represent
};

// Bounds are a little above what docs/codegen.md reports as measured.
const MathCase kCases[] = {
    {Intrinsic::kExp, -87, 88, false, 0, 0, 1.5, 1.5},
    {Intrinsic::kExp, -1, 1, false, 0, 0, 1.5, 1.5},
    {Intrinsic::kExp, -103, -87, false, 0, 0, 1.5, 1.5},  // subnormal results (checked in ulps of the subnormal grid)
    {Intrinsic::kLog, 1e-37, 1e37, true, 0, 0, 1.5, 1.5},
    {Intrinsic::kLog, 0.5, 2, false, 0, 0, 1.5, 1.5},
    {Intrinsic::kLog, 1e-44, 1e-38, true, 0, 0, 1.5, 1.5},  // subnormal inputs
    {Intrinsic::kSqrt, 1e-30, 1e30, true, 0, 0, 0.51, 0.51},
    {Intrinsic::kRsqrt, 1e-30, 1e30, true, 0, 0, 1.5, 1.5},
    {Intrinsic::kTanh, -12, 12, false, 0, 0, 2.5, 2.5},
    {Intrinsic::kTanh, -0.01, 0.01, false, 0, 0, 2.5, 2.5},
    {Intrinsic::kSigmoid, -80, 30, false, 0, 0, 2.5, 2.5},
    {Intrinsic::kErf, -5, 5, false, 0, 0, 2.5, 4},
    {Intrinsic::kErf, -1e-3, 1e-3, false, 0, 0, 2.5, 4},
    {Intrinsic::kPow, 0.01, 100, true, -5, 5, 1.5, 48},
    {Intrinsic::kAbs, -1e3, 1e3, false, 0, 0, 0, 0},
    {Intrinsic::kFloor, -1e3, 1e3, false, 0, 0, 0, 0},
    {Intrinsic::kCeil, -1e3, 1e3, false, 0, 0, 0, 0},
    {Intrinsic::kFloor, -3e7, 3e7, false, 0, 0, 0, 0},
    {Intrinsic::kRoundEven, -1e3, 1e3, false, 0, 0, 0, 0},
    {Intrinsic::kRoundEven, -3e7, 3e7, false, 0, 0, 0, 0},
    {Intrinsic::kExp, -708, 709, false, 0, 0, 0, 1.5, true},
    {Intrinsic::kExp, -745, -708, false, 0, 0, 0, 1.5, true},  // subnormal results
    {Intrinsic::kLog, 1e-300, 1e300, true, 0, 0, 0, 1.5, true},
    {Intrinsic::kLog, 1e-320, 1e-308, true, 0, 0, 0, 1.5, true},  // subnormal inputs
    {Intrinsic::kTanh, -25, 25, false, 0, 0, 0, 2.5, true},
    {Intrinsic::kSigmoid, -700, 40, false, 0, 0, 0, 2.5, true},
    {Intrinsic::kErf, -7, 7, false, 0, 0, 0, 4, true},
    // float64 pow: error grows with |y ln x| (here up to 690): about |y ln x| ulp.
    {Intrinsic::kPow, 1e-10, 1e10, true, -30, 30, 0, 600, true},
    {Intrinsic::kFloor, -1e16, 1e16, false, 0, 0, 0, 0, true},
};

long double Reference(Intrinsic f, long double x, long double y) {
  switch (f) {
    case Intrinsic::kExp: return std::exp(x);
    case Intrinsic::kLog: return std::log(x);
    case Intrinsic::kSqrt: return std::sqrt(x);
    case Intrinsic::kRsqrt: return 1 / std::sqrt(x);
    case Intrinsic::kTanh: return std::tanh(x);
    case Intrinsic::kErf: return std::erf(x);
    case Intrinsic::kSigmoid: return 1 / (1 + std::exp(-x));
    case Intrinsic::kPow: return std::pow(x, y);
    case Intrinsic::kAbs: return std::fabs(x);
    case Intrinsic::kFloor: return std::floor(x);
    case Intrinsic::kCeil: return std::ceil(x);
    case Intrinsic::kRoundEven: return std::nearbyint(x);
  }
  return 0;
}

// Error of `got` in units of T's spacing at the exact value (subnormal spacing below it).
template <typename T>
double UlpError(T got, long double exact) {
  if (std::isnan(got) || std::isnan(exact)) return std::isnan(got) && std::isnan(exact) ? 0 : 1e30;
  if (std::isinf(exact) || std::isinf(got)) return got == exact ? 0 : 1e30;
  T rounded = static_cast<T>(std::fabs(exact));
  T spacing = std::nextafter(rounded, std::numeric_limits<T>::infinity()) - rounded;
  if (rounded == std::numeric_limits<T>::max()) spacing = rounded - std::nextafter(rounded, T(0));
  return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / spacing);
}

template <typename T>
std::vector<T> Sample(double lo, double hi, bool log_uniform, int n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (int i = 0; i < n; ++i) {
    double x = log_uniform ? std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng))
                           : std::uniform_real_distribution<double>(lo, hi)(rng);
    v[i] = static_cast<T>(x);
  }
  return v;
}

class MathTest : public ::testing::TestWithParam<std::tuple<Backend, ForKind>> {
 protected:
  Backend backend() const { return std::get<0>(GetParam()); }
  ForKind loop() const { return std::get<1>(GetParam()); }

  template <typename T>
  void CheckAccuracy() {
    const DType t = std::is_same_v<T, float> ? DType::kFloat32 : DType::kFloat64;
    const int n = 4099;
    // Buffers in ABI order: x and y of every case, then the outputs.
    std::vector<MathCase> cases;
    for (const MathCase& c : kCases) {
      if (!c.f64_only || std::is_same_v<T, double>) cases.push_back(c);
    }
    const int nc = static_cast<int>(cases.size());
    std::vector<tir::Buffer> buffers;
    for (int c = 0; c < nc; ++c) {
      buffers.push_back(Arg("x" + std::to_string(c), t, {n}));
      buffers.push_back(Arg("y" + std::to_string(c), t, {n}));
    }
    std::vector<tir::Stmt> stmts;
    for (int c = 0; c < nc; ++c) {
      buffers.push_back(Arg("out" + std::to_string(c), t, {n}, tir::ArgRole::kOutput));
      Expr i = te::MakeVar("i", c + 1);
      std::vector<Expr> args = {te::Load(t, 2 * c, {i})};
      if (cases[c].f == Intrinsic::kPow) args.push_back(te::Load(t, 2 * c + 1, {i}));
      stmts.push_back(tir::For(i, n, loop(), tir::Store(2 * nc + c, i, te::Call(cases[c].f, args))));
    }
    tir::PrimFunc f = MakeFunc("math", buffers, static_cast<int>(buffers.size()), tir::Seq(stmts));
    auto runner = KernelRunner::Create({f}, backend());
    ASSERT_NE(runner, nullptr);

    std::vector<std::vector<T>> xs, ys;
    std::vector<std::unique_ptr<Array<T>>> arrays(buffers.size());
    std::vector<void*> args;
    for (size_t b = 0; b < buffers.size(); ++b) {
      arrays[b] = std::make_unique<Array<T>>(n);
      args.push_back(arrays[b]->data());
    }
    uint32_t seed = 100;
    for (int c = 0; c < nc; ++c) {
      const MathCase& mc = cases[c];
      xs.push_back(Sample<T>(mc.lo, mc.hi, mc.log_uniform, n, seed++));
      ys.push_back(Sample<T>(mc.ylo, mc.yhi, false, n, seed++));
      for (int i = 0; i < n; ++i) {
        (*arrays[2 * c])[i] = xs[c][i];
        (*arrays[2 * c + 1])[i] = ys[c][i];
      }
    }
    ASSERT_EQ(runner->Run("math", args, 1), 0);

    for (int c = 0; c < nc; ++c) {
      const MathCase& mc = cases[c];
      const double bound = std::is_same_v<T, float> ? mc.max_ulp_f32 : mc.max_ulp_f64;
      double worst = 0;
      int worst_at = 0;
      for (int i = 0; i < n; ++i) {
        long double exact = Reference(mc.f, xs[c][i], ys[c][i]);
        double err = UlpError<T>((*arrays[2 * nc + c])[i], exact);
        if (err > worst) worst = err, worst_at = i;
      }
      std::printf("[accuracy] %-7s %s [%g, %g] %s loop: max %.3f ulp\n", std::string(te::IntrinsicName(mc.f)).c_str(),
                  te::DTypeName(t).data(), mc.lo, mc.hi, std::string(tir::ForKindName(loop())).c_str(), worst);
      EXPECT_LE(worst, bound) << te::IntrinsicName(mc.f) << "(" << xs[c][worst_at] << ", " << ys[c][worst_at]
                              << ") = " << (*arrays[2 * nc + c])[worst_at] << ", exact "
                              << static_cast<double>(Reference(mc.f, xs[c][worst_at], ys[c][worst_at]));
    }
  }
};

TEST_P(MathTest, Float32Accuracy) { CheckAccuracy<float>(); }
TEST_P(MathTest, Float64Accuracy) { CheckAccuracy<double>(); }

INSTANTIATE_TEST_SUITE_P(BackendsAndLoops, MathTest,
                         ::testing::ValuesIn(EveryBackendWith({ForKind::kVectorized, ForKind::kSerial})),
                         [](const auto& info) { return BackendAndLoopName(info.param); });

// --- Special values ---

struct Special {
  Intrinsic f;
  double x, y, want;  // want NaN: any NaN
  bool check_sign_of_zero = false;
};

template <typename T>
void CheckSpecials(const std::string& target) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const double big = std::is_same_v<T, float> ? 89.0 : 710.0;
  const std::vector<Special> cases = {
      {Intrinsic::kExp, inf, 0, inf},        {Intrinsic::kExp, -inf, 0, 0},       {Intrinsic::kExp, nan, 0, nan},
      {Intrinsic::kExp, 0, 0, 1},            {Intrinsic::kExp, -0.0, 0, 1},       {Intrinsic::kExp, big, 0, inf},
      {Intrinsic::kExp, -big - 40, 0, 0},    {Intrinsic::kLog, 0, 0, -inf},       {Intrinsic::kLog, -0.0, 0, -inf},
      {Intrinsic::kLog, -1, 0, nan},         {Intrinsic::kLog, inf, 0, inf},      {Intrinsic::kLog, nan, 0, nan},
      {Intrinsic::kLog, 1, 0, 0},            {Intrinsic::kLog, -inf, 0, nan},     {Intrinsic::kTanh, inf, 0, 1},
      {Intrinsic::kTanh, -inf, 0, -1},       {Intrinsic::kTanh, nan, 0, nan},     {Intrinsic::kTanh, -0.0, 0, -0.0, true},
      {Intrinsic::kTanh, 1e4, 0, 1},         {Intrinsic::kSigmoid, inf, 0, 1},    {Intrinsic::kSigmoid, -inf, 0, 0},
      {Intrinsic::kSigmoid, nan, 0, nan},    {Intrinsic::kSigmoid, 0, 0, 0.5},    {Intrinsic::kErf, inf, 0, 1},
      {Intrinsic::kErf, -inf, 0, -1},        {Intrinsic::kErf, nan, 0, nan},      {Intrinsic::kErf, -0.0, 0, -0.0, true},
      {Intrinsic::kErf, 10, 0, 1},           {Intrinsic::kPow, 0, 0, 1},          {Intrinsic::kPow, nan, 0, 1},
      {Intrinsic::kPow, 1, nan, 1},          {Intrinsic::kPow, 0, 2, 0},          {Intrinsic::kPow, 0, -1, inf},
      {Intrinsic::kPow, 2, 10, 1024},        {Intrinsic::kPow, -2, 2, nan},       {Intrinsic::kPow, inf, 2, inf},
      {Intrinsic::kPow, inf, -2, 0},         {Intrinsic::kSqrt, -1, 0, nan},      {Intrinsic::kSqrt, inf, 0, inf},
      {Intrinsic::kRsqrt, 0, 0, inf},        {Intrinsic::kRsqrt, 4, 0, 0.5},      {Intrinsic::kAbs, -0.0, 0, 0, true},
      {Intrinsic::kFloor, -0.5, 0, -1},      {Intrinsic::kFloor, 2.5, 0, 2},      {Intrinsic::kFloor, -0.0, 0, -0.0, true},
      {Intrinsic::kFloor, 1e20, 0, 1e20},    {Intrinsic::kFloor, -inf, 0, -inf},  {Intrinsic::kFloor, nan, 0, nan},
      {Intrinsic::kCeil, -0.5, 0, -0.0, true}, {Intrinsic::kCeil, 2.5, 0, 3},     {Intrinsic::kCeil, -2.5, 0, -2},
      {Intrinsic::kCeil, 1e20, 0, 1e20},     {Intrinsic::kCeil, inf, 0, inf},
      // Ties go to the even neighbour; the sign of a zero result is the input's.
      {Intrinsic::kRoundEven, 0.5, 0, 0, true},   {Intrinsic::kRoundEven, 1.5, 0, 2},
      {Intrinsic::kRoundEven, 2.5, 0, 2},         {Intrinsic::kRoundEven, -2.5, 0, -2},
      {Intrinsic::kRoundEven, -3.5, 0, -4},       {Intrinsic::kRoundEven, 2.4999, 0, 2},
      {Intrinsic::kRoundEven, 2.5001, 0, 3},      {Intrinsic::kRoundEven, -0.4, 0, -0.0, true},
      {Intrinsic::kRoundEven, 1e20, 0, 1e20},     {Intrinsic::kRoundEven, -inf, 0, -inf},
      {Intrinsic::kRoundEven, inf, 0, inf},       {Intrinsic::kRoundEven, nan, 0, nan},
      {Intrinsic::kRoundEven, 8388609, 0, 8388609},
  };
  const DType t = std::is_same_v<T, float> ? DType::kFloat32 : DType::kFloat64;
  const int64_t n = static_cast<int64_t>(cases.size());
  // out[i] = select over the intrinsic id, so one kernel runs every case; scalar loop.
  Expr i = te::MakeVar("i", 1);
  Expr x = te::Load(t, 0, {i}), y = te::Load(t, 1, {i});
  Expr which = te::Load(DType::kInt32, 2, {i});
  Expr value = te::FloatImm(t, 0);
  for (int f = 0; f <= static_cast<int>(te::kLastIntrinsic); ++f) {
    auto id = static_cast<Intrinsic>(f);
    std::vector<Expr> args = {x};
    if (id == Intrinsic::kPow) args.push_back(y);
    value = te::Select(te::Eq(which, te::IntImm(DType::kInt32, f)), te::Call(id, args), value);
  }
  tir::PrimFunc fn = MakeFunc("specials",
                              {Arg("x", t, {n}), Arg("y", t, {n}), Arg("which", DType::kInt32, {n}),
                               Arg("out", t, {n}, tir::ArgRole::kOutput)},
                              4, tir::For(i, n, ForKind::kSerial, tir::Store(3, i, value)));
  auto runner = KernelRunner::Create({fn}, Backend::kJit, target);
  ASSERT_NE(runner, nullptr);
  Array<T> xs(n), ys(n), out(n);
  Array<int32_t> ids(n);
  for (int64_t k = 0; k < n; ++k) {
    xs[k] = static_cast<T>(cases[k].x);
    ys[k] = static_cast<T>(cases[k].y);
    ids[k] = static_cast<int32_t>(cases[k].f);
  }
  ASSERT_EQ(runner->Run("specials", {xs.data(), ys.data(), ids.data(), out.data()}, 1), 0);
  for (int64_t k = 0; k < n; ++k) {
    const Special& c = cases[k];
    std::string what = std::string(te::IntrinsicName(c.f)) + "(" + std::to_string(c.x) + ", " + std::to_string(c.y) + ")";
    if (std::isnan(c.want)) {
      EXPECT_TRUE(std::isnan(out[k])) << what << " = " << out[k];
    } else if (std::isfinite(c.want) && c.want != 0) {
      EXPECT_NEAR(out[k], c.want, std::fabs(c.want) * 4 * std::numeric_limits<T>::epsilon()) << what;
    } else {
      EXPECT_EQ(out[k], static_cast<T>(c.want)) << what;
      if (c.check_sign_of_zero) {
        EXPECT_EQ(std::signbit(out[k]), std::signbit(c.want)) << what << " sign";
      }
    }
  }
}

TEST(MathSpecialsTest, Float32) { CheckSpecials<float>(""); }
TEST(MathSpecialsTest, Float64) { CheckSpecials<double>(""); }

// Baseline x86-64 (SSE2) has no rounding instruction: floor/ceil/roundeven take the integer-conversion
// path there and must still be exact. The kernel is JIT-compiled for baseline x86-64 and run in
// this process, so the test exists only in x86-64 builds (an AArch64 host cannot run it, and its
// own floor/ceil are covered by the tests above).
#if defined(__x86_64__)
TEST(MathSpecialsTest, FloorCeilWithoutSse41) {
  CheckSpecials<float>("llvm -mtriple=x86_64-linux-gnu");
  CheckSpecials<double>("llvm -mtriple=x86_64-linux-gnu");
}
#endif

}  // namespace
}  // namespace tunefarm::codegen::testing
