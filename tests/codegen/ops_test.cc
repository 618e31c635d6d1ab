// Every binary operator, floor division/modulo with negative operands, every cast, select and
// logic, per dtype, in vectorized and scalar loops, against C++ references.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>

#include "tests/codegen/kernel_runner.h"

namespace tunefarm::codegen::testing {
namespace {

using te::DType;
using te::Expr;
using te::ExprKind;
using tir::ForKind;

template <typename T>
DType DTypeOf() {
  if constexpr (std::is_same_v<T, bool>) return DType::kBool;
  if constexpr (std::is_same_v<T, int8_t>) return DType::kInt8;
  if constexpr (std::is_same_v<T, int16_t>) return DType::kInt16;
  if constexpr (std::is_same_v<T, int32_t>) return DType::kInt32;
  if constexpr (std::is_same_v<T, int64_t>) return DType::kInt64;
  if constexpr (std::is_same_v<T, uint8_t>) return DType::kUInt8;
  if constexpr (std::is_same_v<T, uint16_t>) return DType::kUInt16;
  if constexpr (std::is_same_v<T, uint32_t>) return DType::kUInt32;
  if constexpr (std::is_same_v<T, uint64_t>) return DType::kUInt64;
  if constexpr (std::is_same_v<T, float>) return DType::kFloat32;
  return DType::kFloat64;
}

// Floor division and modulo, the loop IR's integer semantics (plain for unsigned dtypes).
template <typename T>
T FloorDiv(T a, T b) {
  if constexpr (std::is_unsigned_v<T>) return static_cast<T>(a / b);
  int64_t q = int64_t(a) / int64_t(b), r = int64_t(a) % int64_t(b);
  return static_cast<T>((r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q);
}
template <typename T>
T FloorMod(T a, T b) {
  if constexpr (std::is_unsigned_v<T>) return static_cast<T>(a % b);
  int64_t r = int64_t(a) % int64_t(b);
  return static_cast<T>((r != 0 && ((r < 0) != (b < 0))) ? r + b : r);
}

template <typename T>
bool SameValue(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::memcmp(&a, &b, sizeof(T)) == 0;  // also tells -0 from 0
  }
  return a == b;
}

struct OpCase {
  ExprKind kind;
  bool compare;
};
constexpr OpCase kOps[] = {
    {ExprKind::kAdd, false}, {ExprKind::kSub, false}, {ExprKind::kMul, false}, {ExprKind::kDiv, false},
    {ExprKind::kMod, false}, {ExprKind::kMin, false}, {ExprKind::kMax, false}, {ExprKind::kEq, true},
    {ExprKind::kNe, true},   {ExprKind::kLt, true},   {ExprKind::kLe, true},   {ExprKind::kGt, true},
    {ExprKind::kGe, true},
};

template <typename T>
T ArithRef(ExprKind k, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (k) {
      case ExprKind::kAdd: return a + b;
      case ExprKind::kSub: return a - b;
      case ExprKind::kMul: return a * b;
      case ExprKind::kDiv: return a / b;
      case ExprKind::kMin: return std::min(a, b);
      case ExprKind::kMax: return std::max(a, b);
      default: return 0;
    }
  } else {
    // Integer arithmetic wraps in the dtype (computed wide, then truncated).
    switch (k) {
      case ExprKind::kAdd: return static_cast<T>(uint64_t(a) + uint64_t(b));
      case ExprKind::kSub: return static_cast<T>(uint64_t(a) - uint64_t(b));
      case ExprKind::kMul: return static_cast<T>(uint64_t(int64_t(a)) * uint64_t(int64_t(b)));
      case ExprKind::kDiv: return FloorDiv(a, b);
      case ExprKind::kMod: return FloorMod(a, b);
      case ExprKind::kMin: return std::min(a, b);
      case ExprKind::kMax: return std::max(a, b);
      default: return 0;
    }
  }
}

template <typename T>
bool CompareRef(ExprKind k, T a, T b) {
  switch (k) {
    case ExprKind::kEq: return a == b;
    case ExprKind::kNe: return a != b;
    case ExprKind::kLt: return a < b;
    case ExprKind::kLe: return a <= b;
    case ExprKind::kGt: return a > b;
    case ExprKind::kGe: return a >= b;
    default: return false;
  }
}

class OpsTest : public ::testing::TestWithParam<std::tuple<Backend, ForKind>> {
 protected:
  Backend backend() const { return std::get<0>(GetParam()); }
  ForKind loop() const { return std::get<1>(GetParam()); }
  int threads() const { return loop() == ForKind::kParallel ? 3 : 1; }

  template <typename T>
  void CheckBinaryOps() {
    const int64_t n = 67;
    const DType t = DTypeOf<T>();
    std::vector<tir::Buffer> buffers = {Arg("a", t, {n}), Arg("b", t, {n})};
    std::vector<tir::Stmt> stmts;
    Expr i = te::MakeVar("i", 1);
    Expr a = te::Load(t, 0, {i}), b = te::Load(t, 1, {i});
    std::vector<OpCase> ops;
    for (OpCase op : kOps) {
      if (op.kind == ExprKind::kMod && te::IsFloat(t)) continue;
      ops.push_back(op);
      const int out = static_cast<int>(buffers.size());
      buffers.push_back(Arg("out" + std::to_string(out), op.compare ? DType::kBool : t, {n}, tir::ArgRole::kOutput));
      stmts.push_back(tir::Store(out, i, te::Binary(op.kind, a, b)));
    }
    // Floor division/modulo by constants of both signs (the cheap fixup form).
    std::vector<int64_t> divisors;
    if (te::IsInt(t)) divisors = te::IsSigned(t) ? std::vector<int64_t>{7, -3} : std::vector<int64_t>{7};
    for (int64_t d : divisors) {
      for (ExprKind k : {ExprKind::kDiv, ExprKind::kMod}) {
        const int out = static_cast<int>(buffers.size());
        buffers.push_back(Arg("out" + std::to_string(out), t, {n}, tir::ArgRole::kOutput));
        stmts.push_back(tir::Store(out, i, te::Binary(k, a, te::IntImm(t, d))));
      }
    }
    tir::PrimFunc f = MakeFunc("ops", buffers, static_cast<int>(buffers.size()),
                               tir::For(i, n, loop(), tir::Seq(stmts)));
    auto runner = KernelRunner::Create({f}, backend());
    ASSERT_NE(runner, nullptr);

    std::mt19937 rng(11);
    Array<T> va(n), vb(n);
    for (int64_t p = 0; p < n; ++p) {
      if constexpr (std::is_floating_point_v<T>) {
        va[p] = static_cast<T>(std::uniform_real_distribution<double>(-10, 10)(rng));
        vb[p] = static_cast<T>(std::uniform_real_distribution<double>(0.5, 10)(rng)) * (p % 2 ? 1 : -1);
      } else if constexpr (std::is_unsigned_v<T>) {
        // The whole range: uint64 above 2^63 must divide and compare as unsigned.
        va[p] = static_cast<T>((uint64_t{rng()} << 32) | rng());
        vb[p] = static_cast<T>(p % 3 ? 1 + rng() % 40 : (uint64_t{rng()} << 32) | rng());
        if (vb[p] == 0) vb[p] = 1;
      } else {
        va[p] = static_cast<T>(int64_t(rng() % 201) - 100);
        int64_t d = 1 + int64_t(rng() % 20);
        vb[p] = static_cast<T>(p % 2 ? d : -d);
      }
      if (p % 5 == 0) vb[p] = va[p] == 0 ? T(1) : va[p];  // equal operands for ==, <=, ...
    }
    std::vector<std::unique_ptr<Array<T>>> outs;
    std::vector<std::unique_ptr<Array<bool>>> bool_outs;
    std::vector<void*> args = {va.data(), vb.data()};
    for (size_t o = 2; o < buffers.size(); ++o) {
      if (buffers[o].dtype == DType::kBool) {
        bool_outs.push_back(std::make_unique<Array<bool>>(n));
        args.push_back(bool_outs.back()->data());
      } else {
        outs.push_back(std::make_unique<Array<T>>(n));
        args.push_back(outs.back()->data());
      }
    }
    ASSERT_EQ(runner->Run("ops", args, threads()), 0);
    size_t arith = 0, cmp = 0;
    for (OpCase op : ops) {
      for (int64_t p = 0; p < n; ++p) {
        if (op.compare) {
          ASSERT_EQ((*bool_outs[cmp])[p], CompareRef(op.kind, va[p], vb[p]))
              << te::ExprKindName(op.kind) << " at " << p << ": " << +va[p] << ", " << +vb[p];
        } else {
          T want = ArithRef(op.kind, va[p], vb[p]);
          ASSERT_TRUE(SameValue((*outs[arith])[p], want))
              << te::ExprKindName(op.kind) << " at " << p << ": " << +va[p] << ", " << +vb[p] << " gave "
              << +(*outs[arith])[p] << " want " << +want;
        }
      }
      op.compare ? ++cmp : ++arith;
    }
    for (int64_t d : divisors) {
      for (ExprKind k : {ExprKind::kDiv, ExprKind::kMod}) {
        for (int64_t p = 0; p < n; ++p) {
          T want = k == ExprKind::kDiv ? FloorDiv<T>(va[p], T(d)) : FloorMod<T>(va[p], T(d));
          ASSERT_EQ((*outs[arith])[p], want) << te::ExprKindName(k) << " by " << d << " of " << +va[p];
        }
        ++arith;
      }
    }
  }
};

TEST_P(OpsTest, Int8) { CheckBinaryOps<int8_t>(); }
TEST_P(OpsTest, Int16) { CheckBinaryOps<int16_t>(); }
TEST_P(OpsTest, Int32) { CheckBinaryOps<int32_t>(); }
TEST_P(OpsTest, Int64) { CheckBinaryOps<int64_t>(); }
TEST_P(OpsTest, UInt8) { CheckBinaryOps<uint8_t>(); }
TEST_P(OpsTest, UInt16) { CheckBinaryOps<uint16_t>(); }
TEST_P(OpsTest, UInt32) { CheckBinaryOps<uint32_t>(); }
TEST_P(OpsTest, UInt64) { CheckBinaryOps<uint64_t>(); }
TEST_P(OpsTest, Float32) { CheckBinaryOps<float>(); }
TEST_P(OpsTest, Float64) { CheckBinaryOps<double>(); }

// --- Casts ---

// The cast semantics codegen implements: to bool is != 0; float -> int truncates toward zero,
// saturates at the integer's range, NaN -> 0; int -> narrower int wraps; int -> float rounds.
template <typename From, typename To>
To CastRef(From x) {
  if constexpr (std::is_same_v<To, bool>) {
    return x != From(0) || (std::is_floating_point_v<From> && std::isnan(double(x)));
  } else if constexpr (std::is_floating_point_v<From> && !std::is_floating_point_v<To>) {
    double v = double(x);
    if (std::isnan(v)) return 0;
    v = std::trunc(v);
    if (v <= double(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    if (v >= double(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(x);
  }
}

template <typename From>
std::vector<From> CastInputs(int64_t n) {
  std::mt19937_64 rng(17);
  std::vector<From> v(n);
  for (int64_t p = 0; p < n; ++p) {
    if constexpr (std::is_same_v<From, bool>) {
      v[p] = rng() % 2;
    } else if constexpr (std::is_floating_point_v<From>) {
      v[p] = static_cast<From>(std::uniform_real_distribution<double>(-300.75, 300.75)(rng));
    } else {
      v[p] = static_cast<From>(rng());  // the whole range: wrapping and sign matter
    }
  }
  if constexpr (std::is_floating_point_v<From>) {
    v[0] = std::numeric_limits<From>::quiet_NaN();
    v[1] = std::numeric_limits<From>::infinity();
    v[2] = -std::numeric_limits<From>::infinity();
    v[3] = From(-0.0);
    v[4] = From(1e10);
    v[5] = From(-0.75);
    v[6] = From(255.5);
    // int32's edges: 2^31 and below -2^31 saturate; the largest float32 below 2^31 does not.
    v[7] = From(2147483648.0);
    v[8] = From(-2147483904.0);
    v[9] = From(2147483520.0);
    v[10] = From(-2147483648.0);
  }
  return v;
}

template <typename From, typename To>
void CheckCastOutput(const std::vector<From>& in, void* out, const char* name) {
  const To* got = static_cast<const To*>(out);
  for (size_t p = 0; p < in.size(); ++p) {
    To want = CastRef<From, To>(in[p]);
    ASSERT_TRUE(SameValue(got[p], want)) << name << " at " << p << ": " << +in[p] << " gave " << +got[p]
                                         << " want " << +want;
  }
}

template <typename From, typename... To>
void CheckCastsTo(Backend backend, ForKind loop, int threads) {
  const int64_t n = 45;
  const DType from = DTypeOf<From>();
  const std::vector<DType> to_types = {DTypeOf<To>()...};
  std::vector<tir::Buffer> buffers = {Arg("x", from, {n})};
  std::vector<tir::Stmt> stmts;
  Expr i = te::MakeVar("i", 1);
  for (DType to : to_types) {
    const int out = static_cast<int>(buffers.size());
    buffers.push_back(Arg(std::string(te::DTypeName(to)), to, {n}, tir::ArgRole::kOutput));
    stmts.push_back(tir::Store(out, i, te::Cast(to, te::Load(from, 0, {i}))));
  }
  tir::PrimFunc f = MakeFunc("casts", buffers, static_cast<int>(buffers.size()), tir::For(i, n, loop, tir::Seq(stmts)));
  auto runner = KernelRunner::Create({f}, backend);
  ASSERT_NE(runner, nullptr);
  std::vector<From> in = CastInputs<From>(n);
  Array<From> x(n);
  for (int64_t p = 0; p < n; ++p) x[p] = in[p];
  std::vector<deploy::AlignedBuffer> outs;
  std::vector<void*> args = {x.data()};
  for (DType to : to_types) {
    outs.push_back(std::move(deploy::AlignedBuffer::Allocate(n * te::DTypeBytes(to)).value()));
    args.push_back(outs.back().data());
  }
  ASSERT_EQ(runner->Run("casts", args, threads), 0);
  size_t k = 1;
  (CheckCastOutput<From, To>(in, args[k++], te::DTypeName(DTypeOf<To>()).data()), ...);
}

template <typename From>
void CheckCastsFrom(Backend backend, ForKind loop, int threads) {
  CheckCastsTo<From, bool, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, float, double>(
      backend, loop, threads);
}

TEST_P(OpsTest, CastsFromBool) { CheckCastsFrom<bool>(backend(), loop(), threads()); }
TEST_P(OpsTest, CastsFromInt8) { CheckCastsFrom<int8_t>(backend(), loop(), threads()); }
TEST_P(OpsTest, CastsFromInt16) { CheckCastsFrom<int16_t>(backend(), loop(), threads()); }
TEST_P(OpsTest, CastsFromInt32) { CheckCastsFrom<int32_t>(backend(), loop(), threads()); }
TEST_P(OpsTest, CastsFromInt64) { CheckCastsFrom<int64_t>(backend(), loop(), threads()); }
TEST_P(OpsTest, CastsFromUInt8) { CheckCastsFrom<uint8_t>(backend(), loop(), threads()); }
TEST_P(OpsTest, CastsFromUInt16) { CheckCastsFrom<uint16_t>(backend(), loop(), threads()); }
TEST_P(OpsTest, CastsFromUInt32) { CheckCastsFrom<uint32_t>(backend(), loop(), threads()); }
TEST_P(OpsTest, CastsFromUInt64) { CheckCastsFrom<uint64_t>(backend(), loop(), threads()); }
TEST_P(OpsTest, CastsFromFloat32) { CheckCastsFrom<float>(backend(), loop(), threads()); }
TEST_P(OpsTest, CastsFromFloat64) { CheckCastsFrom<double>(backend(), loop(), threads()); }

// select, and/or/not and bool loads/stores.
TEST_P(OpsTest, SelectAndLogic) {
  const int64_t n = 53;
  Expr i = te::MakeVar("i", 1);
  Expr a = te::Load(DType::kFloat32, 0, {i}), b = te::Load(DType::kFloat32, 1, {i});
  Expr flag = te::Load(DType::kBool, 2, {i});
  Expr k = te::Load(DType::kInt32, 3, {i});
  tir::Stmt body = tir::Seq({
      tir::Store(4, i, te::Select(te::Gt(a, b), a * te::FloatImm(DType::kFloat32, 2), b - te::FloatImm(DType::kFloat32, 1))),
      tir::Store(5, i, te::Select(flag, k, -k)),
      tir::Store(6, i, te::Or(te::And(te::Gt(a, te::FloatImm(DType::kFloat32, 0)), te::Lt(k, 3)), te::Not(flag))),
  });
  tir::PrimFunc f = MakeFunc("logic",
                             {Arg("a", DType::kFloat32, {n}), Arg("b", DType::kFloat32, {n}), Arg("flag", DType::kBool, {n}),
                              Arg("k", DType::kInt32, {n}), Arg("s", DType::kFloat32, {n}, tir::ArgRole::kOutput),
                              Arg("t", DType::kInt32, {n}, tir::ArgRole::kOutput),
                              Arg("u", DType::kBool, {n}, tir::ArgRole::kOutput)},
                             7, tir::For(i, n, loop(), body));
  auto runner = KernelRunner::Create({f}, backend());
  ASSERT_NE(runner, nullptr);
  Array<float> va(n), vb(n), s(n);
  Array<bool> fl(n), u(n);
  Array<int32_t> vk(n), t(n);
  std::mt19937 rng(23);
  for (int64_t p = 0; p < n; ++p) {
    va[p] = std::uniform_real_distribution<float>(-2, 2)(rng);
    vb[p] = std::uniform_real_distribution<float>(-2, 2)(rng);
    fl[p] = rng() % 2;
    vk[p] = int32_t(rng() % 9) - 4;
  }
  ASSERT_EQ(runner->Run("logic", {va.data(), vb.data(), fl.data(), vk.data(), s.data(), t.data(), u.data()}, threads()), 0);
  for (int64_t p = 0; p < n; ++p) {
    ASSERT_EQ(s[p], va[p] > vb[p] ? va[p] * 2 : vb[p] - 1) << p;
    ASSERT_EQ(t[p], fl[p] ? vk[p] : -vk[p]) << p;
    bool want = (va[p] > 0 && vk[p] < 3) || !fl[p];
    ASSERT_EQ(reinterpret_cast<uint8_t*>(u.data())[p], want ? 1 : 0) << p;  // one byte, 0 or 1
  }
}

INSTANTIATE_TEST_SUITE_P(BackendsAndLoops, OpsTest,
                         ::testing::ValuesIn(EveryBackendWith({ForKind::kVectorized, ForKind::kSerial, ForKind::kParallel})),
                         [](const auto& info) { return BackendAndLoopName(info.param); });

}  // namespace
}  // namespace tunefarm::codegen::testing
