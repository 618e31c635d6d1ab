// Broadcasting binary ops, Where and BiasAdd against plain C++ references.
#include <cmath>

#include "compiler/ops/binary.h"
#include "compiler/ops/elementwise.h"
#include "tests/ops/op_test_util.h"

namespace tunefarm::ops::testing {
namespace {

// Numpy broadcasting, written out: the output index read from an input of shape `in`.
std::vector<int64_t> SourceIndex(const std::vector<int64_t>& out_index, const Shape& in) {
  std::vector<int64_t> index(in.size());
  size_t offset = out_index.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) index[d] = in[d] == 1 ? 0 : out_index[offset + d];
  return index;
}

// Pairs of shapes and their broadcast: equal, trailing vector, both sides stretched, scalar.
struct ShapePair {
  Shape x, y, out;
};
const ShapePair kShapePairs[] = {
    {{3, 4}, {3, 4}, {3, 4}},
    {{2, 3, 5}, {5}, {2, 3, 5}},
    {{2, 1, 4}, {3, 1}, {2, 3, 4}},
    {{1}, {5, 2}, {5, 2}},
    {{}, {2, 3}, {2, 3}},
    {{7, 1, 1}, {1, 1, 1}, {7, 1, 1}},
};

struct BinaryCase {
  BinaryOp op;
  DTypeSet dtypes;
  double lo, hi;
};

const BinaryCase kCases[] = {
    {BinaryOp::kAdd, DTypeSet::kNumeric, -100, 100},      {BinaryOp::kSub, DTypeSet::kNumeric, -100, 100},
    {BinaryOp::kMul, DTypeSet::kNumeric, -100, 100},      {BinaryOp::kDiv, DTypeSet::kNumeric, -100, 100},
    {BinaryOp::kMax, DTypeSet::kNumeric, -100, 100},      {BinaryOp::kMin, DTypeSet::kNumeric, -100, 100},
    {BinaryOp::kEqual, DTypeSet::kAny, -2, 2},            {BinaryOp::kLess, DTypeSet::kNumeric, -3, 3},
    {BinaryOp::kLessEqual, DTypeSet::kNumeric, -3, 3},    {BinaryOp::kGreater, DTypeSet::kNumeric, -3, 3},
    {BinaryOp::kGreaterEqual, DTypeSet::kNumeric, -3, 3}, {BinaryOp::kAnd, DTypeSet::kBool, 0, 1},
    {BinaryOp::kOr, DTypeSet::kBool, 0, 1},               {BinaryOp::kXor, DTypeSet::kBool, 0, 1},
    {BinaryOp::kPRelu, DTypeSet::kSignedNumeric, -100, 100}, {BinaryOp::kFmod, DTypeSet::kFloat, -100, 100},
};

double Reference(BinaryOp op, DType t, double x, double y) {
  switch (op) {
    case BinaryOp::kAdd: return x + y;
    case BinaryOp::kSub: return x - y;
    case BinaryOp::kMul: return x * y;
    case BinaryOp::kDiv:
      if (te::IsFloat(t)) return x / y;
      if (y == 0) return x;  // documented: integer division by zero gives x
      return std::trunc(x / y);
    case BinaryOp::kMax: return std::max(x, y);
    case BinaryOp::kMin: return std::min(x, y);
    case BinaryOp::kEqual: return x == y;
    case BinaryOp::kLess: return x < y;
    case BinaryOp::kLessEqual: return x <= y;
    case BinaryOp::kGreater: return x > y;
    case BinaryOp::kGreaterEqual: return x >= y;
    case BinaryOp::kAnd: return x != 0 && y != 0;
    case BinaryOp::kOr: return x != 0 || y != 0;
    case BinaryOp::kPow: return std::pow(x, y);
    case BinaryOp::kXor: return (x != 0) != (y != 0);
    case BinaryOp::kFmod: return std::fmod(x, y);
    case BinaryOp::kPRelu: return x < 0 ? y * x : x;
    // Their own tests, with chosen operands: Mod by zero (onnx_extras_test.cc), shifts past the
    // width (BitShiftsOfUnsignedIntegersWrapAndGiveZeroPastTheWidth below).
    case BinaryOp::kMod:
    case BinaryOp::kShiftLeft:
    case BinaryOp::kShiftRight: return NAN;
  }
  return 0;
}

bool IsComparison(BinaryOp op) {
  return op == BinaryOp::kEqual || op == BinaryOp::kLess || op == BinaryOp::kLessEqual ||
         op == BinaryOp::kGreater || op == BinaryOp::kGreaterEqual;
}

HostTensor BroadcastReference(const HostTensor& x, const HostTensor& y, const Shape& out_shape, DType out_t,
                              const std::function<double(double, double)>& fn) {
  HostTensor want(out_t, out_shape);
  ForEachIndex(out_shape, [&](const std::vector<int64_t>& i) {
    want.at(i) = StoreAs(out_t, fn(x.at(SourceIndex(i, x.shape)), y.at(SourceIndex(i, y.shape))));
  });
  return want;
}

TEST(Binary, EveryOpDTypeAndBroadcastMatchesReference) {
  uint64_t seed = 1;
  for (const BinaryCase& c : kCases) {
    for (DType t : DTypesOf(c.dtypes)) {
      for (const ShapePair& sp : kShapePairs) {
        double lo = te::IsSigned(t) ? c.lo : 0;
        HostTensor x = Random(t, sp.x, seed++, lo, c.hi), y = Random(t, sp.y, seed++, lo, c.hi);
        DType out_t = IsComparison(c.op) ? DType::kBool : t;
        HostTensor want = BroadcastReference(x, y, sp.out, out_t, [&](double a, double b) { return Reference(c.op, t, a, b); });
        HostTensor got = RunOp({x, y}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
          return Binary(b, in[0], in[1], c.op);
        });
        EXPECT_TRUE(AllClose(got, want, Tolerance(t), Tolerance(t)))
            << BinaryOpName(c.op) << " " << te::DTypeName(t) << " " << ShapeString(sp.x) << " " << ShapeString(sp.y);
      }
    }
  }
}

TEST(Binary, IntegerDivisionTruncatesAndNeverTraps) {
  for (DType t : {DType::kInt8, DType::kInt32, DType::kInt64}) {
    HostTensor x(t, {8}), y(t, {8});
    double lowest = t == DType::kInt64 ? -9e15 : static_cast<double>(Lowest(t)->int_value);
    x.data = {7, -7, 7, -7, 5, lowest, lowest, 0};
    y.data = {2, 2, -2, -2, 0, -1, 1, 3};
    HostTensor want(t, {8});
    want.data = {3, -3, -3, 3, 5, StoreAs(t, -lowest), lowest, 0};
    HostTensor got = RunOp({x, y}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return Binary(b, in[0], in[1], BinaryOp::kDiv);
    });
    EXPECT_TRUE(AllClose(got, want)) << te::DTypeName(t);
  }
}

TEST(Binary, PowFollowsNumpyForNegativeBasesAndIntegers) {
  // Float: integral exponents keep the sign rule, fractional ones on a negative base give NaN.
  for (DType t : DTypesOf(DTypeSet::kFloat)) {
    HostTensor x = Random(t, {4, 6}, 11, -2, 2), y = Random(t, {6}, 12, -2, 2);
    for (int k = 0; k < 3; ++k) y.data[k] = k - 1.0;  // -1, 0, 1
    y.data[3] = 3;
    HostTensor want = BroadcastReference(x, y, {4, 6}, t, [](double a, double b) { return std::pow(a, b); });
    HostTensor got = RunOp({x, y}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return Binary(b, in[0], in[1], BinaryOp::kPow);
    });
    EXPECT_TRUE(AllClose(got, want, 1e-6, 1e-5)) << te::DTypeName(t);
  }
  // Integers (and a float base with an integer exponent).
  for (DType t : {DType::kInt32, DType::kInt64}) {
    HostTensor x = Random(t, {3, 5}, 13, -6, 6), y = Random(t, {3, 5}, 14, 0, 7);
    HostTensor want = BroadcastReference(x, y, {3, 5}, t, [](double a, double b) { return std::pow(a, b); });
    HostTensor got = RunOp({x, y}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return Binary(b, in[0], in[1], BinaryOp::kPow);
    });
    EXPECT_TRUE(AllClose(got, want)) << te::DTypeName(t);
    HostTensor xf = Random(DType::kFloat32, {3, 5}, 15, -3, 3);
    HostTensor wantf = BroadcastReference(xf, y, {3, 5}, DType::kFloat32, [](double a, double b) { return std::pow(a, b); });
    HostTensor gotf = RunOp({xf, y}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
      return Binary(b, in[0], in[1], BinaryOp::kPow);
    });
    EXPECT_TRUE(AllClose(gotf, wantf, 1e-6, 1e-5)) << "float32 ^ " << te::DTypeName(t);
  }
}

TEST(Binary, PowTakesEveryIntegerDTypeAsExponent) {
  uint64_t seed = 40;
  for (DType e : DTypesOf(DTypeSet::kNumeric)) {
    if (te::IsFloat(e)) continue;
    HostTensor y = Random(e, {3, 5}, seed++, 0, 6);
    for (DType base : {DType::kFloat32, DType::kInt64}) {
      HostTensor x = Random(base, {3, 5}, seed++, -3, 3);
      HostTensor want = BroadcastReference(x, y, {3, 5}, base, [](double a, double b) { return std::pow(a, b); });
      HostTensor got = RunOp({x, y}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return Binary(b, in[0], in[1], BinaryOp::kPow);
      });
      EXPECT_TRUE(AllClose(got, want, 1e-6, 1e-5)) << te::DTypeName(base) << " ^ " << te::DTypeName(e);
    }
  }
}

TEST(Binary, RejectsMismatchedShapesAndDTypes) {
  auto status = [](const HostTensor& x, const HostTensor& y, BinaryOp op) {
    return BuildStatus({x, y}, [&](DagBuilder& b, const std::vector<Tensor>& in) { return Binary(b, in[0], in[1], op); });
  };
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kFloat32, {3, 4}), HostTensor(DType::kFloat32, {3}), BinaryOp::kAdd)));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kFloat32, {3}), HostTensor(DType::kInt32, {3}), BinaryOp::kAdd)));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kBool, {3}), HostTensor(DType::kBool, {3}), BinaryOp::kAdd)));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kInt32, {3}), HostTensor(DType::kInt32, {3}), BinaryOp::kAnd)));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kInt8, {3}), HostTensor(DType::kInt8, {3}), BinaryOp::kPow)));
  // float16/bfloat16 are storage types: no op computes on them.
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kFloat32, {3}), HostTensor(DType::kFloat16, {3}), BinaryOp::kPow)));
  EXPECT_TRUE(absl::IsInvalidArgument(status(HostTensor(DType::kBFloat16, {3}), HostTensor(DType::kBFloat16, {3}), BinaryOp::kAdd)));
}

// --- Where ---

TEST(Where, EveryDTypeWithThreeWayBroadcasting) {
  uint64_t seed = 300;
  for (DType t : DTypesOf(DTypeSet::kAny)) {
    for (const auto& [cs, xs, ys] : {std::tuple<Shape, Shape, Shape>{{2, 3}, {2, 3}, {2, 3}},
                                     {{4, 1}, {1, 5}, {5}}, {{1}, {3, 2}, {}}, {{2, 1, 3}, {1}, {4, 1}}}) {
      HostTensor c = Random(DType::kBool, cs, seed++), x = Random(t, xs, seed++, -50, 50), y = Random(t, ys, seed++, -50, 50);
      auto out = BroadcastShapes("test", {cs, xs, ys});
      ASSERT_TRUE(out.ok());
      HostTensor want(t, *out);
      ForEachIndex(*out, [&](const std::vector<int64_t>& i) {
        want.at(i) = c.at(SourceIndex(i, cs)) != 0 ? x.at(SourceIndex(i, xs)) : y.at(SourceIndex(i, ys));
      });
      HostTensor got = RunOp({c, x, y}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return Where(b, in[0], in[1], in[2]);
      });
      EXPECT_TRUE(AllClose(got, want)) << te::DTypeName(t) << " " << ShapeString(*out);
    }
  }
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus(
      {HostTensor(DType::kInt32, {2}), HostTensor(DType::kFloat32, {2}), HostTensor(DType::kFloat32, {2})},
      [](DagBuilder& b, const std::vector<Tensor>& in) { return Where(b, in[0], in[1], in[2]); })));
}

// --- BiasAdd and the short forms ---

TEST(BiasAdd, AnyAxisEveryNumericDType) {
  uint64_t seed = 400;
  for (DType t : DTypesOf(DTypeSet::kNumeric)) {
    for (int64_t axis : {0, 1, -1}) {
      Shape shape = {3, 4, 5};
      int a = axis < 0 ? 2 : static_cast<int>(axis);
      HostTensor x = Random(t, shape, seed++, 0, 60), bias = Random(t, {shape[a]}, seed++, 0, 60);
      HostTensor want(t, shape);
      ForEachIndex(shape, [&](const std::vector<int64_t>& i) { want.at(i) = StoreAs(t, x.at(i) + bias.data[i[a]]); });
      HostTensor got = RunOp({x, bias}, [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return BiasAdd(b, in[0], in[1], BiasAddParams{axis});
      });
      EXPECT_TRUE(AllClose(got, want, Tolerance(t))) << te::DTypeName(t) << " axis " << axis;
    }
  }
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus({HostTensor(DType::kFloat32, {3, 4}), HostTensor(DType::kFloat32, {3})},
                                                  [](DagBuilder& b, const std::vector<Tensor>& in) {
                                                    return BiasAdd(b, in[0], in[1], BiasAddParams{1});
                                                  })));
}

TEST(Binary, BitShiftsOfUnsignedIntegersWrapAndGiveZeroPastTheWidth) {
  uint64_t seed = 900;
  for (DType t : {DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64}) {
    const int bits = te::DTypeBytes(t) * 8;
    // uint64 values stay below 2^53 here: the test's tensors hold doubles.
    const double top = bits == 64 ? 9.0e15 : std::ldexp(1.0, bits) - 1;
    HostTensor x = Random(t, {4, 9}, seed++, 0, top), y = Random(t, {4, 9}, seed++, 0, bits + 2);
    for (bool left : {true, false}) {
      HostTensor want(t, x.shape);
      for (int64_t k = 0; k < x.size(); ++k) {
        const uint64_t xv = static_cast<uint64_t>(x.data[k]), yv = static_cast<uint64_t>(y.data[k]);
        const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
        want.data[k] = yv >= static_cast<uint64_t>(bits) ? 0 : static_cast<double>(((left ? xv << yv : xv >> yv)) & mask);
      }
      const OpFn op = [&](DagBuilder& b, const std::vector<Tensor>& in) {
        return Binary(b, in[0], in[1], left ? BinaryOp::kShiftLeft : BinaryOp::kShiftRight);
      };
      if (bits < 64) {
        EXPECT_TRUE(AllClose(RunOp({x, y}, op), want)) << te::DTypeName(t) << " left " << left;
      }
      auto dag = BuildOpDag({x, y}, op);
      ASSERT_TRUE(dag.ok());
      auto compiled = RunSharedObject(**dag, {x, y});
      ASSERT_TRUE(compiled.ok()) << compiled.status();
      if (bits < 64) {
        EXPECT_TRUE(AllClose(*compiled, want)) << "compiled " << te::DTypeName(t) << " left " << left;
      }
    }
  }
  EXPECT_TRUE(absl::IsInvalidArgument(BuildStatus({HostTensor(DType::kInt32, {2}), HostTensor(DType::kInt32, {2})},
                                                  [](DagBuilder& b, const std::vector<Tensor>& in) {
                                                    return Binary(b, in[0], in[1], BinaryOp::kShiftLeft);
                                                  })));
}

TEST(ShortForms, AddMulReluMatchReference) {
  HostTensor x = Random(DType::kFloat32, {5, 7}, 500), y = Random(DType::kFloat32, {5, 7}, 501);
  HostTensor want(DType::kFloat32, x.shape);
  for (int64_t k = 0; k < x.size(); ++k) want.data[k] = StoreAs(DType::kFloat32, std::max(0.0, StoreAs(DType::kFloat32, x.data[k] * y.data[k]) + x.data[k]));
  HostTensor got = RunOp({x, y}, [](DagBuilder& b, const std::vector<Tensor>& in) -> absl::StatusOr<Tensor> {
    return Relu(b, Add(b, Mul(b, in[0], in[1]), in[0]));
  });
  EXPECT_TRUE(AllClose(got, want, 1e-6));
}

}  // namespace
}  // namespace tunefarm::ops::testing
