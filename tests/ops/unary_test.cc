// Unary elementwise ops, clip and cast against plain C++ references.
#include <cmath>

#include "compiler/ops/unary.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

const std::vector<Shape> kShapes = {{1}, {7}, {3, 1, 5}, {2, 3, 4, 5}};

struct UnaryCase {
  UnaryOp op;
  DTypeSet dtypes;
  double lo, hi;  // input range
  double (*ref)(double);
};

double Relu(double x) { return x > 0 ? x : 0; }
double LeakyRelu(double x) { return x < 0 ? 0.01 * x : x; }
double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double Neg(double x) { return -x; }
double Gelu(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double HardSigmoid(double x) { return std::fmax(0, std::fmin(1, 0.2 * x + 0.5)); }
double HardSwish(double x) { return x * std::fmax(0, std::fmin(1, x / 6 + 0.5)); }
double Softplus(double x) { return std::log1p(std::exp(x)); }
double Not(double x) { return x == 0; }
double Elu(double x) { return x < 0 ? std::expm1(x) : x; }
double Selu(double x) { return 1.05070102214813232421875 * (x <= 0 ? 1.67326319217681884765625 * std::expm1(x) : x); }
double Sign(double x) { return (x > 0) - (x < 0); }

const UnaryCase kCases[] = {
    {UnaryOp::kRelu, DTypeSet::kSignedNumeric, -100, 100, Relu},
    {UnaryOp::kLeakyRelu, DTypeSet::kFloat, -3, 3, LeakyRelu},
    {UnaryOp::kSigmoid, DTypeSet::kFloat, -8, 8, Sigmoid},
    {UnaryOp::kTanh, DTypeSet::kFloat, -4, 4, [](double x) { return std::tanh(x); }},
    {UnaryOp::kExp, DTypeSet::kFloat, -5, 5, [](double x) { return std::exp(x); }},
    {UnaryOp::kLog, DTypeSet::kFloat, 0.01, 10, [](double x) { return std::log(x); }},
    {UnaryOp::kSqrt, DTypeSet::kFloat, 0, 10, [](double x) { return std::sqrt(x); }},
    {UnaryOp::kAbs, DTypeSet::kNumeric, -128, 127, [](double x) { return std::fabs(x); }},
    {UnaryOp::kNeg, DTypeSet::kSignedNumeric, -128, 127, Neg},
    {UnaryOp::kErf, DTypeSet::kFloat, -3, 3, [](double x) { return std::erf(x); }},
    {UnaryOp::kGelu, DTypeSet::kFloat, -4, 4, Gelu},
    {UnaryOp::kHardSigmoid, DTypeSet::kFloat, -4, 4, HardSigmoid},
    {UnaryOp::kHardSwish, DTypeSet::kFloat, -5, 5, HardSwish},
    {UnaryOp::kSoftplus, DTypeSet::kFloat, -20, 20, Softplus},
    {UnaryOp::kFloor, DTypeSet::kFloat, -5, 5, [](double x) { return std::floor(x); }},
    {UnaryOp::kCeil, DTypeSet::kFloat, -5, 5, [](double x) { return std::ceil(x); }},
    {UnaryOp::kNot, DTypeSet::kBool, 0, 1, Not},
    {UnaryOp::kReciprocal, DTypeSet::kFloat, 0.5, 4, [](double x) { return 1 / x; }},
    {UnaryOp::kRound, DTypeSet::kFloat, -5, 5, [](double x) { return std::nearbyint(x); }},
    {UnaryOp::kSin, DTypeSet::kFloat, -20, 20, [](double x) { return std::sin(x); }},
    {UnaryOp::kCos, DTypeSet::kFloat, -20, 20, [](double x) { return std::cos(x); }},
    {UnaryOp::kSoftsign, DTypeSet::kFloat, -5, 5, [](double x) { return x / (1 + std::fabs(x)); }},
    {UnaryOp::kElu, DTypeSet::kFloat, -3, 3, Elu},
    {UnaryOp::kSelu, DTypeSet::kFloat, -3, 3, Selu},
    {UnaryOp::kSign, DTypeSet::kNumeric, -100, 100, Sign},
    {UnaryOp::kTan, DTypeSet::kFloat, -1.4, 1.4, [](double x) { return std::tan(x); }},
    {UnaryOp::kSinh, DTypeSet::kFloat, -5, 5, [](double x) { return std::sinh(x); }},
    {UnaryOp::kCosh, DTypeSet::kFloat, -5, 5, [](double x) { return std::cosh(x); }},
    {UnaryOp::kAsinh, DTypeSet::kFloat, -20, 20, [](double x) { return std::asinh(x); }},
    {UnaryOp::kAcosh, DTypeSet::kFloat, 1, 20, [](double x) { return std::acosh(x); }},
    {UnaryOp::kAtanh, DTypeSet::kFloat, -0.95, 0.95, [](double x) { return std::atanh(x); }},
    {UnaryOp::kAtan, DTypeSet::kFloat, -50, 50, [](double x) { return std::atan(x); }},
    {UnaryOp::kAsin, DTypeSet::kFloat, -1, 1, [](double x) { return std::asin(x); }},
    {UnaryOp::kAcos, DTypeSet::kFloat, -1, 1, [](double x) { return std::acos(x); }},
    {UnaryOp::kCelu, DTypeSet::kFloat, -4, 4, [](double x) { return std::fmax(0, x) + std::fmin(0, std::expm1(x)); }},
    {UnaryOp::kShrink, DTypeSet::kFloat, -2, 2, [](double x) { return x < -0.5 ? x : x > 0.5 ? x : 0; }},
    {UnaryOp::kThresholdedRelu, DTypeSet::kFloat, -3, 3, [](double x) { return x > 1 ? x : 0; }},
};

TEST(Unary, EveryOpDTypeAndShapeMatchesReference) {
  uint64_t seed = 1;
  for (const UnaryCase& c : kCases) {
    for (DType t : DTypesOf(c.dtypes)) {
      for (const Shape& shape : kShapes) {
        HostTensor x = Random(t, shape, seed++, c.lo, c.hi);
        HostTensor want(t, shape);
        for (int64_t k = 0; k < x.size(); ++k) want.data[k] = StoreAs(t, c.ref(x.data[k]));
        UnaryParams p;
        p.op = c.op;
        HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Unary(b, in[0], p); });
        EXPECT_TRUE(AllClose(got, want, Tolerance(t), 4 * Tolerance(t)))
            << UnaryOpName(c.op) << " " << te::DTypeName(t) << " " << ShapeString(shape);
      }
    }
  }
}

TEST(Unary, AlphaAndBetaParameters) {
  HostTensor x = Random(DType::kFloat64, {4, 6}, 7, -5, 5);
  HostTensor leaky(DType::kFloat64, x.shape), hard(DType::kFloat64, x.shape);
  for (int64_t k = 0; k < x.size(); ++k) {
    double v = x.data[k];
    leaky.data[k] = v < 0 ? 0.3 * v : v;
    hard.data[k] = std::fmax(0, std::fmin(1, 0.25 * v + 0.4));
  }
  UnaryParams pl{UnaryOp::kLeakyRelu, 0.3, std::nullopt};
  UnaryParams ph{UnaryOp::kHardSigmoid, 0.25, 0.4};
  EXPECT_TRUE(AllClose(RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Unary(b, in[0], pl); }),
                       leaky, 1e-12));
  EXPECT_TRUE(AllClose(RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Unary(b, in[0], ph); }),
                       hard, 1e-12));
}

TEST(Unary, IntegerAbsAndNegWrapAtTheLowestValue) {
  HostTensor x(DType::kInt8, {3});
  x.data = {-128, -1, 127};
  UnaryParams abs{UnaryOp::kAbs, std::nullopt, std::nullopt}, neg{UnaryOp::kNeg, std::nullopt, std::nullopt};
  HostTensor want_abs(DType::kInt8, {3}), want_neg(DType::kInt8, {3});
  want_abs.data = {-128, 1, 127};
  want_neg.data = {-128, 1, -127};
  EXPECT_TRUE(AllClose(RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Unary(b, in[0], abs); }), want_abs));
  EXPECT_TRUE(AllClose(RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Unary(b, in[0], neg); }), want_neg));
}

TEST(Unary, SoftplusDoesNotOverflow) {
  HostTensor x(DType::kFloat32, {3});
  x.data = {-200, 0, 200};
  HostTensor want(DType::kFloat32, {3});
  want.data = {0, StoreAs(DType::kFloat32, std::log(2.0)), 200};
  UnaryParams p{UnaryOp::kSoftplus, std::nullopt, std::nullopt};
  EXPECT_TRUE(AllClose(RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Unary(b, in[0], p); }), want, 1e-6, 1e-6));
}

TEST(Unary, RejectsDTypesOutsideTheOpsSet) {
  UnaryParams exp{UnaryOp::kExp, std::nullopt, std::nullopt}, not_op{UnaryOp::kNot, std::nullopt, std::nullopt};
  UnaryParams neg{UnaryOp::kNeg, std::nullopt, std::nullopt};
  auto status = [](const HostTensor& x, const UnaryParams& p) {
    return BuildStatus({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Unary(b, in[0], p); });
  };
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kInt32, {2}), exp)));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kFloat32, {2}), not_op)));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kUInt8, {2}), neg)));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kFloat32, {2, 0}), exp)));
}

// --- Clip ---

TEST(Clip, EveryNumericDTypeWithOneOrBothBounds) {
  uint64_t seed = 100;
  for (DType t : DTypesOf(DTypeSet::kNumeric)) {
    for (int bounds = 0; bounds < 3; ++bounds) {
      ClipParams p;
      if (bounds != 1) p.min = te::IsSigned(t) ? -20.5 : 20;
      if (bounds != 2) p.max = 30.5;
      HostTensor x = Random(t, {5, 1, 7}, seed++, -60, 60);
      if (!te::IsSigned(t)) x = Random(t, {5, 1, 7}, seed++, 0, 60);
      HostTensor want(t, x.shape);
      for (int64_t k = 0; k < x.size(); ++k) {
        double v = x.data[k];
        // Integer bounds truncate toward zero: -20.5 -> -20, 30.5 -> 30.
        double lo = te::IsFloat(t) ? p.min.value_or(-1e300) : std::trunc(p.min.value_or(-1e300));
        double hi = te::IsFloat(t) ? p.max.value_or(1e300) : std::trunc(p.max.value_or(1e300));
        want.data[k] = StoreAs(t, std::fmin(std::fmax(v, lo), hi));
      }
      HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Clip(b, in[0], p); });
      EXPECT_TRUE(AllClose(got, want)) << te::DTypeName(t) << " bounds " << bounds;
    }
  }
}

TEST(Clip, BoundsOutsideTheDTypeSaturate) {
  HostTensor x(DType::kUInt8, {4});
  x.data = {0, 1, 200, 255};
  ClipParams p{-5.0, 300.0};  // as uint8 bit patterns these would be 251 and 44
  EXPECT_TRUE(AllClose(RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Clip(b, in[0], p); }), x));
  ClipParams inverted{3.0, 2.0};
  EXPECT_TRUE(absl::IsInvalidArgument(
      BuildStatus({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Clip(b, in[0], inverted); })));
}

// --- Cast ---

TEST(Cast, EveryPairOfDTypes) {
  const std::vector<DType> all = DTypesOf(DTypeSet::kAny);
  uint64_t seed = 200;
  for (DType from : all) {
    for (DType to : all) {
      // Float sources stay inside the target's range (outside it the result is undefined).
      bool to_unsigned = !te::IsSigned(to);
      double lo = to_unsigned && te::IsFloat(from) ? 0 : -120, hi = 120;
      if (!te::IsFloat(from) && from != DType::kBool) lo = te::IsSigned(from) ? -1e9 : 0, hi = 1e9;
      HostTensor x = Random(from, {3, 5}, seed++, lo, hi);
      x.data[0] = 0;  // exercise -> bool on an exact zero
      if (te::IsFloat(from)) x.data[1] = StoreAs(from, -0.75), x.data[2] = StoreAs(from, 2.5);
      if (to_unsigned && te::IsFloat(from)) x.data[1] = 0.75;
      HostTensor want(to, x.shape);
      for (int64_t k = 0; k < x.size(); ++k)
        want.data[k] = StoreAs(to, te::IsFloat(to) || to == DType::kBool ? x.data[k] : std::trunc(x.data[k]));
      HostTensor got = RunOp({x}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Cast(b, in[0], to); });
      EXPECT_TRUE(AllClose(got, want)) << te::DTypeName(from) << " -> " << te::DTypeName(to);
    }
  }
}

}  // namespace
}  // namespace tunefarm::ops::testing
