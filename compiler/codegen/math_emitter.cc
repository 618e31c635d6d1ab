#include "compiler/codegen/math_emitter.h"

#include <cstdint>
#include <limits>
#include <span>

#include "common/check.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace tunefarm::codegen {
namespace {

using llvm::Value;

// Polynomial coefficients, highest degree first. The erf and log fits are Chebyshev fits
// (mpmath.chebyfit, 60 digits) of the functions named beside them; docs/codegen.md lists the
// fit errors and the measured accuracy of every function.

// e^r = 1 + r + r^2 * P(r): Taylor terms 1/k!, k = 2..7 (float) and 2..13 (double), on
// |r| <= ln2/2 the truncation error is below 1e-8 / 1e-17.
constexpr double kExpF32[] = {1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 1.0 / 2};
constexpr double kExpF64[] = {1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
                              1.0 / 362880,     1.0 / 40320,     1.0 / 5040,     1.0 / 720,
                              1.0 / 120,        1.0 / 24,        1.0 / 6,        1.0 / 2};
// log(1+f) = f - f^2/2 + s*(f^2/2 + z*G(z)), s = f/(2+f), z = s^2 <= 0.02944:
// G(z) = (log((1+s)/(1-s)) - 2s) / (s z).
constexpr double kLogF32[] = {2.333046794e-01, 2.855082154e-01, 4.000012279e-01, 6.666666865e-01};
constexpr double kLogF64[] = {1.46164496850434061e-01, 1.53317216005560419e-01,
                              1.81828891252617225e-01, 2.22222111347950807e-01,
                              2.85714286259754868e-01, 3.99999999998995048e-01,
                              6.66666666666666963e-01};
// |x| < 1: erf(x) = x + x * A(x^2), A(t) = erf(sqrt t)/sqrt t - 1 on [0, 1] (the "- 1" keeps the
// leading coefficient 2/sqrt(pi) from being rounded away in float).
constexpr double kErfSmallF32[] = {7.875874871e-05, -8.016864303e-04, 5.189087242e-03,
                                   -2.685421146e-02, 1.128359437e-01, -3.761262596e-01,
                                   1.283791670955126e-01};
constexpr double kErfSmallF64[] = {
    -7.79589882700214246e-10, 1.37200645467776862e-08, -1.62084838018717052e-07,
    1.64474247033173623e-06,  -1.49247369074196605e-05, 1.20552949048397074e-04,
    -8.54832597538969182e-04, 5.22397760711642255e-03, -2.68661706432377703e-02,
    1.12837916709450065e-01,  -3.76126389031835429e-01, 1.2837916709551256e-01};
// |x| >= 1: erf(x) = 1 - exp(-x^2) * B(x), B(x) = erfc(x) exp(x^2), fitted in x - center.
constexpr double kErfcF32[] = {-4.123142787e-07, 1.669836706e-06,  -3.834632025e-06,
                               1.436468210e-05,  -5.932730346e-05, 2.129504719e-04,
                               -7.333448739e-04, 2.465999685e-03,  -8.001617156e-03,
                               2.493819967e-02,  -7.434734702e-02, 2.108063549e-01};  // [1, 4], c 2.5
constexpr double kErfcF64Near[] = {  // [1, 2.5], center 1.75
    -1.21225026175371880e-09, 4.84367598686099484e-09, -1.58978923050666284e-08,
    6.04519123382932224e-08,  -2.27869554056205598e-07, 8.27575348940463609e-07,
    -2.92790236302554752e-06, 1.00865352319488644e-05, -3.37553622412374785e-05,
    1.09505317449618190e-04,  -3.43533352704098165e-04, 1.03920451926519481e-03,
    -3.02097465146720142e-03, 8.40431920750339852e-03, -2.22599952413874390e-02,
    5.57636300870835849e-02,  -1.30976345514485226e-01, 2.84972234737436381e-01};
constexpr double kErfcF64Far[] = {  // [2.5, 6], center 4.25
    8.62329762061107768e-13,  -4.97831051809104251e-12, 1.71804928225718808e-11,
    -9.53162541885136047e-11, 5.81787825019608465e-10,  -3.16176222879326204e-09,
    1.67730061714802379e-08,  -8.85081397237663621e-08, 4.60267518609338219e-07,
    -2.35464362540509397e-06, 1.18480900696216311e-05,  -5.85954791077570659e-05,
    2.84575157625540514e-04,  -1.35593317174132226e-03, 6.33186627382255167e-03,
    -2.89443314143189301e-02, 1.29345274785987924e-01};

// Arithmetic on one floating-point type (scalar or vector) and its same-width integer type.
class Fp {
 public:
  Fp(llvm::IRBuilderBase& b, llvm::Type* type) : b_(b), type_(type) {
    f64_ = type->getScalarType()->isDoubleTy();
    llvm::Type* int_scalar = b.getIntNTy(f64_ ? 64 : 32);
    itype_ = type->isVectorTy()
                 ? llvm::VectorType::get(int_scalar, llvm::cast<llvm::VectorType>(type)->getElementCount())
                 : int_scalar;
  }

  bool f64() const { return f64_; }
  llvm::Type* type() const { return type_; }
  llvm::Type* itype() const { return itype_; }
  llvm::IRBuilderBase& b() { return b_; }

  Value* C(double v) { return llvm::ConstantFP::get(type_, v); }
  Value* I(int64_t v) { return llvm::ConstantInt::get(itype_, static_cast<uint64_t>(v), true); }
  Value* Add(Value* x, Value* y) { return b_.CreateFAdd(x, y); }
  Value* Sub(Value* x, Value* y) { return b_.CreateFSub(x, y); }
  Value* Mul(Value* x, Value* y) { return b_.CreateFMul(x, y); }
  Value* Div(Value* x, Value* y) { return b_.CreateFDiv(x, y); }
  Value* Neg(Value* x) { return b_.CreateFNeg(x); }
  // x*y + z, fused where the target has FMA (never a libm call, unlike llvm.fma).
  Value* Fma(Value* x, Value* y, Value* z) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {type_}, {x, y, z});
  }
  Value* Horner(Value* x, std::span<const double> coeffs) {
    Value* acc = C(coeffs[0]);
    for (size_t i = 1; i < coeffs.size(); ++i) acc = Fma(acc, x, C(coeffs[i]));
    return acc;
  }
  Value* Gt(Value* x, Value* y) { return b_.CreateFCmpOGT(x, y); }
  Value* Lt(Value* x, Value* y) { return b_.CreateFCmpOLT(x, y); }
  Value* Ge(Value* x, Value* y) { return b_.CreateFCmpOGE(x, y); }
  Value* Eq(Value* x, Value* y) { return b_.CreateFCmpOEQ(x, y); }
  Value* IsNan(Value* x) { return b_.CreateFCmpUNO(x, x); }
  Value* Sel(Value* c, Value* x, Value* y) { return b_.CreateSelect(c, x, y); }
  // Clamps keep NaN (an ordered compare with NaN is false).
  Value* ClampAbove(Value* x, double hi) { return Sel(Gt(x, C(hi)), C(hi), x); }
  Value* ClampBelow(Value* x, double lo) { return Sel(Lt(x, C(lo)), C(lo), x); }
  Value* Abs(Value* x) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x); }
  Value* CopySign(Value* mag, Value* sign) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, mag, sign);
  }
  Value* ToBits(Value* x) { return b_.CreateBitCast(x, itype_); }
  Value* FromBits(Value* i) { return b_.CreateBitCast(i, type_); }

  int MantissaBits() const { return f64_ ? 52 : 23; }
  int ExponentBias() const { return f64_ ? 1023 : 127; }
  // 2^n for an integer vector n whose 2^n is a normal number.
  Value* Pow2(Value* n) { return FromBits(b_.CreateShl(b_.CreateAdd(n, I(ExponentBias())), MantissaBits())); }

 private:
  llvm::IRBuilderBase& b_;
  llvm::Type* type_;
  llvm::Type* itype_;
  bool f64_;
};

// Cody-Waite reduction x = n*ln2 + r, |r| <= ln2/2, and e^r = 1 + q. Returns q and n (as an
// integer). x must already be clamped to the finite range of exp.
struct ExpParts {
  Value* q;
  Value* n;
};
ExpParts ReduceExp(Fp& m, Value* x) {
  // Adding 1.5*2^mantissa rounds x*log2(e) to an integer, which then sits in the low bits of
  // the sum: no float->int conversion (and no poison for NaN).
  const double magic = m.f64() ? 6755399441055744.0 : 12582912.0;
  const double log2e = 1.4426950408889634;
  // ln2 split in a high part with trailing zero bits (n*hi is exact) and the rest.
  const double ln2_hi = m.f64() ? 6.93147180369123816490e-01 : 0.693359375;
  const double ln2_lo = m.f64() ? 1.90821492927058770002e-10 : -2.12194440e-4;
  Value* shifted = m.Fma(x, m.C(log2e), m.C(magic));
  Value* n = m.Sub(shifted, m.C(magic));
  Value* n_int = m.b().CreateSub(m.ToBits(shifted), m.ToBits(m.C(magic)));
  Value* r = m.Fma(n, m.C(-ln2_hi), x);
  r = m.Fma(n, m.C(-ln2_lo), r);
  Value* p = m.f64() ? m.Horner(r, kExpF64) : m.Horner(r, kExpF32);
  return {m.Fma(m.Mul(r, r), p, r), n_int};
}

Value* Exp(Fp& m, Value* x) {
  // Beyond these bounds the result is inf / 0 anyway; clamping keeps n in range.
  Value* xc = m.ClampAbove(x, m.f64() ? 710.0 : 89.0);
  xc = m.ClampBelow(xc, m.f64() ? -746.0 : -104.0);
  ExpParts e = ReduceExp(m, xc);
  // Scale by 2^n in two halves so that results that overflow become inf and results in the
  // subnormal range round once, instead of building an out-of-range exponent.
  Value* n1 = m.b().CreateAShr(e.n, 1);
  Value* n2 = m.b().CreateSub(e.n, n1);
  return m.Mul(m.Mul(m.Add(m.C(1.0), e.q), m.Pow2(n1)), m.Pow2(n2));
}

// e^y - 1 for 0 <= y <= 40 without cancellation for small y: 2^n*q + (2^n - 1).
Value* Expm1NonNegative(Fp& m, Value* y) {
  ExpParts e = ReduceExp(m, y);
  Value* s = m.Pow2(e.n);
  return m.Fma(e.q, s, m.Sub(s, m.C(1.0)));
}

Value* Log(Fp& m, Value* x) {
  llvm::IRBuilderBase& b = m.b();
  const bool f64 = m.f64();
  // Subnormal inputs are scaled into the normal range first.
  const double min_normal = f64 ? 2.2250738585072014e-308 : 1.17549435e-38;
  const double scale = f64 ? 18014398509481984.0 : 8388608.0;  // 2^54, 2^23
  const int scale_log2 = f64 ? 54 : 23;
  Value* subnormal = m.Lt(x, m.C(min_normal));
  Value* xs = m.Sel(subnormal, m.Mul(x, m.C(scale)), x);
  // frexp: x = 2^k * m, m in [sqrt(1/2), sqrt(2)).
  Value* bits = m.ToBits(xs);
  Value* k = b.CreateSub(b.CreateLShr(bits, m.MantissaBits()), m.I(m.ExponentBias()));
  k = b.CreateSub(k, m.Sel(subnormal, m.I(scale_log2), m.I(0)));
  const int64_t mantissa_mask = (int64_t{1} << m.MantissaBits()) - 1;
  const int64_t one_bits = int64_t{m.ExponentBias()} << m.MantissaBits();
  Value* mant = m.FromBits(b.CreateOr(b.CreateAnd(bits, m.I(mantissa_mask)), m.I(one_bits)));
  Value* big = m.Gt(mant, m.C(1.4142135623730951));
  mant = m.Sel(big, m.Mul(mant, m.C(0.5)), mant);
  k = b.CreateAdd(k, b.CreateZExt(big, m.itype()));
  Value* f = m.Sub(mant, m.C(1.0));  // exact (Sterbenz)
  Value* s = m.Div(f, m.Add(m.C(2.0), f));
  Value* z = m.Mul(s, s);
  Value* r = m.Mul(z, f64 ? m.Horner(z, kLogF64) : m.Horner(z, kLogF32));
  Value* hfsq = m.Mul(m.C(0.5), m.Mul(f, f));
  Value* dk = b.CreateSIToFP(k, m.type());
  const double ln2_hi = f64 ? 6.93147180369123816490e-01 : 0.693115234375;
  const double ln2_lo = f64 ? 1.90821492927058770002e-10 : 3.194618330e-05;
  // log(x) = k*ln2_hi - ((hfsq - (s*(hfsq+R) + k*ln2_lo)) - f), as in fdlibm.
  Value* inner = m.Fma(s, m.Add(hfsq, r), m.Mul(dk, m.C(ln2_lo)));
  Value* result = m.Sub(m.Mul(dk, m.C(ln2_hi)), m.Sub(m.Sub(hfsq, inner), f));
  const double inf = std::numeric_limits<double>::infinity();
  result = m.Sel(m.Eq(x, m.C(inf)), m.C(inf), result);
  result = m.Sel(m.Eq(x, m.C(0.0)), m.C(-inf), result);
  result = m.Sel(m.Lt(x, m.C(0.0)), m.C(std::numeric_limits<double>::quiet_NaN()), result);
  return m.Sel(m.IsNan(x), x, result);
}

Value* Tanh(Fp& m, Value* x) {
  // tanh|x| = expm1(2|x|) / (expm1(2|x|) + 2); beyond the clamp tanh rounds to 1.
  Value* a = m.ClampAbove(m.Abs(x), m.f64() ? 20.0 : 10.0);
  Value* e = Expm1NonNegative(m, m.Add(a, a));
  return m.CopySign(m.Div(e, m.Add(e, m.C(2.0))), x);
}

Value* Sigmoid(Fp& m, Value* x) {
  // One exp of -|x| serves both signs: 1/(1+e) for x >= 0, e/(1+e) below, so large negative
  // inputs keep their relative accuracy instead of cancelling.
  Value* e = Exp(m, m.Neg(m.Abs(x)));
  Value* s = m.Div(m.C(1.0), m.Add(m.C(1.0), e));
  return m.Sel(m.Ge(x, m.C(0.0)), s, m.Mul(e, s));
}

Value* Erf(Fp& m, Value* x) {
  Value* a = m.Abs(x);
  Value* t = m.Mul(a, a);
  Value* small = m.Fma(a, m.f64() ? m.Horner(t, kErfSmallF64) : m.Horner(t, kErfSmallF32), a);
  // Past 4 (float) / 6 (double) erf rounds to 1.
  Value* ab = m.ClampAbove(a, m.f64() ? 6.0 : 4.0);
  Value* tail;
  if (m.f64()) {
    Value* near = m.Horner(m.Sub(ab, m.C(1.75)), kErfcF64Near);
    Value* far = m.Horner(m.Sub(ab, m.C(4.25)), kErfcF64Far);
    tail = m.Sel(m.Lt(ab, m.C(2.5)), near, far);
  } else {
    tail = m.Horner(m.Sub(ab, m.C(2.5)), kErfcF32);
  }
  Value* erfc = m.Mul(Exp(m, m.Neg(m.Mul(ab, ab))), tail);
  Value* large = m.Sub(m.C(1.0), erfc);
  return m.CopySign(m.Sel(m.Lt(a, m.C(1.0)), small, large), x);
}

Value* Pow(Fp& m, Value* x, Value* y) {
  // pow(x, y) = exp(y * log(x)) for x >= 0 (negative x gives NaN). float32 works in double,
  // so the error of log is not amplified by |y log x|.
  Value* r;
  if (m.f64()) {
    r = Exp(m, m.Mul(y, Log(m, x)));
  } else {
    llvm::Type* dtype = m.type()->isVectorTy()
                            ? llvm::VectorType::get(m.b().getDoubleTy(),
                                                    llvm::cast<llvm::VectorType>(m.type())->getElementCount())
                            : m.b().getDoubleTy();
    Fp md(m.b(), dtype);
    Value* xd = m.b().CreateFPExt(x, dtype);
    Value* yd = m.b().CreateFPExt(y, dtype);
    r = m.b().CreateFPTrunc(Exp(md, md.Mul(yd, Log(md, xd))), m.type());
  }
  // As C's pow: x^0 = 1 and 1^y = 1, even for NaN.
  r = m.Sel(m.Eq(y, m.C(0.0)), m.C(1.0), r);
  return m.Sel(m.Eq(x, m.C(1.0)), m.C(1.0), r);
}

// floor/ceil without a rounding instruction: truncate through an integer conversion (exact
// below 2^mantissa, where every float is already an integer) and correct by one.
Value* RoundManual(Fp& m, Value* x, bool floor) {
  const double limit = m.f64() ? 4503599627370496.0 : 8388608.0;
  Value* in_range = m.Lt(m.Abs(x), m.C(limit));  // false for NaN and inf
  Value* safe = m.Sel(in_range, x, m.C(0.0));
  Value* t = m.b().CreateSIToFP(m.b().CreateFPToSI(safe, m.itype()), m.type());
  Value* r = floor ? m.Sel(m.Gt(t, x), m.Sub(t, m.C(1.0)), t)
                   : m.Sel(m.Lt(t, x), m.Add(t, m.C(1.0)), t);
  return m.Sel(in_range, m.CopySign(r, x), x);  // copysign: ceil(-0.5) is -0
}

// Ties to even from floor: up when the fraction is above one half, or exactly one half and the
// floor is odd. Beyond 2^mantissa every float is an integer, and NaN and infinities pass as they are.
Value* RoundEvenManual(Fp& m, Value* x) {
  const double limit = m.f64() ? 4503599627370496.0 : 8388608.0;
  Value* in_range = m.Lt(m.Abs(x), m.C(limit));  // false for NaN and inf
  Value* safe = m.Sel(in_range, x, m.C(0.0));
  Value* f = RoundManual(m, safe, /*floor=*/true);
  Value* frac = m.Sub(safe, f);
  Value* half = m.C(0.5);
  Value* odd = m.Sub(f, m.Mul(RoundManual(m, m.Mul(f, half), /*floor=*/true), m.C(2.0)));  // 0 or 1
  Value* r = m.Sel(m.Gt(frac, half), m.Add(f, m.C(1.0)), m.Sel(m.Lt(frac, half), f, m.Add(f, odd)));
  return m.Sel(in_range, m.CopySign(r, x), x);  // copysign: -0.4 rounds to -0
}

}  // namespace

Value* EmitIntrinsic(llvm::IRBuilderBase& b, te::Intrinsic f, Value* x, Value* y, bool is_signed,
                     const MathOptions& options) {
  llvm::Type* type = x->getType();
  if (!type->getScalarType()->isFloatingPointTy()) {
    TF_CHECK(f == te::Intrinsic::kAbs, "math intrinsic on an integer");
    if (!is_signed) return x;
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b.getFalse());
  }
  Fp m(b, type);
  switch (f) {
    case te::Intrinsic::kExp: return Exp(m, x);
    case te::Intrinsic::kLog: return Log(m, x);
    case te::Intrinsic::kSqrt: return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    case te::Intrinsic::kRsqrt:
      return m.Div(m.C(1.0), b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
    case te::Intrinsic::kTanh: return Tanh(m, x);
    case te::Intrinsic::kErf: return Erf(m, x);
    case te::Intrinsic::kSigmoid: return Sigmoid(m, x);
    case te::Intrinsic::kPow: return Pow(m, x, y);
    case te::Intrinsic::kAbs: return m.Abs(x);
    case te::Intrinsic::kFloor:
      return options.native_rounding ? b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x)
                                     : RoundManual(m, x, /*floor=*/true);
    case te::Intrinsic::kCeil:
      return options.native_rounding ? b.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x)
                                     : RoundManual(m, x, /*floor=*/false);
    case te::Intrinsic::kRoundEven:
      return options.native_rounding ? b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x) : RoundEvenManual(m, x);
  }
  TF_CHECK(false, "unknown intrinsic");
  return nullptr;
}

}  // namespace tunefarm::codegen
