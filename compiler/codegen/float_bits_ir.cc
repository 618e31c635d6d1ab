#include "compiler/codegen/float_bits_ir.h"

#include "common/check.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace tunefarm::codegen {
namespace {

using llvm::Value;

// An integer type of `bits` bits with the lane count of `like` (scalar when `like` is scalar).
llvm::Type* IntLike(llvm::Value* like, unsigned bits) {
  llvm::Type* elem = llvm::Type::getIntNTy(like->getContext(), bits);
  if (auto* v = llvm::dyn_cast<llvm::VectorType>(like->getType())) return llvm::VectorType::get(elem, v->getElementCount());
  return elem;
}

// The float format of an LLVM float or double type (scalar or vector).
te::FloatFormat FormatOfType(llvm::Type* t) {
  llvm::Type* elem = t->getScalarType();
  if (elem->isFloatTy()) return te::kSingleFormat;
  TF_CHECK(elem->isDoubleTy(), "EmitNarrowFloat: not a float32 or float64 value");
  return te::kDoubleFormat;
}

}  // namespace

Value* EmitNarrowFloat(llvm::IRBuilderBase& b, Value* value, te::FloatFormat to) {
  const te::FloatFormat from = FormatOfType(value->getType());
  // Everything in 64-bit lanes, as te::NarrowFloatBits computes; see it for the reasoning.
  Value* bits = b.CreateZExt(b.CreateBitCast(value, IntLike(value, from.TotalBits())), IntLike(value, 64));
  llvm::Type* i64 = bits->getType();
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(i64, v); };
  auto low_bits = [&](int n) { return c((uint64_t{1} << n) - 1); };

  Value* sign = b.CreateAnd(b.CreateLShr(bits, c(from.TotalBits() - 1)), c(1));
  Value* out_sign = b.CreateShl(sign, c(to.TotalBits() - 1));
  Value* exponent = b.CreateAnd(b.CreateLShr(bits, c(from.mantissa_bits)), low_bits(from.exponent_bits));
  Value* mantissa = b.CreateAnd(bits, low_bits(from.mantissa_bits));

  // Infinity and NaN (quieted, top payload bits kept).
  Value* infinity = b.CreateOr(out_sign, c(to.InfinityBits()));
  Value* nan = b.CreateOr(b.CreateOr(infinity, c(uint64_t{1} << (to.mantissa_bits - 1))),
                          b.CreateLShr(mantissa, c(from.mantissa_bits - to.mantissa_bits)));
  Value* special = b.CreateSelect(b.CreateICmpEQ(mantissa, c(0)), infinity, nan);
  Value* is_special = b.CreateICmpEQ(exponent, low_bits(from.exponent_bits));

  // Finite: significand * 2^(unbiased - mantissa_bits), rounded at the result's quantum.
  Value* is_subnormal = b.CreateICmpEQ(exponent, c(0));
  Value* significand =
      b.CreateSelect(is_subnormal, mantissa, b.CreateOr(mantissa, c(uint64_t{1} << from.mantissa_bits)));
  Value* unbiased = b.CreateSub(b.CreateSelect(is_subnormal, c(1), exponent), c(from.Bias()));
  Value* result_exponent =
      b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, unbiased, c(static_cast<uint64_t>(int64_t{1} - to.Bias())));
  Value* drop = b.CreateAdd(b.CreateSub(result_exponent, unbiased), c(from.mantissa_bits - to.mantissa_bits));
  drop = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, drop, c(63));
  Value* rounded = b.CreateLShr(significand, drop);
  Value* rest = b.CreateAnd(significand, b.CreateSub(b.CreateShl(c(1), drop), c(1)));
  Value* half = b.CreateShl(c(1), b.CreateSub(drop, c(1)));
  Value* odd = b.CreateICmpNE(b.CreateAnd(rounded, c(1)), c(0));
  Value* round_up = b.CreateOr(b.CreateICmpUGT(rest, half), b.CreateAnd(b.CreateICmpEQ(rest, half), odd));
  rounded = b.CreateAdd(rounded, b.CreateZExt(round_up, i64));
  Value* exponent_field = b.CreateAdd(result_exponent, c(static_cast<uint64_t>(to.Bias() - 1)));
  Value* magnitude = b.CreateAdd(b.CreateShl(exponent_field, c(to.mantissa_bits)), rounded);
  magnitude = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, magnitude, c(to.InfinityBits()));
  Value* result = b.CreateSelect(is_special, special, b.CreateOr(out_sign, magnitude));
  return b.CreateTrunc(result, IntLike(value, to.TotalBits()));
}

Value* EmitWidenToFloat32(llvm::IRBuilderBase& b, Value* bits, te::FloatFormat from) {
  const te::FloatFormat to = te::kSingleFormat;
  llvm::Type* f32 = llvm::Type::getFloatTy(bits->getContext());
  if (auto* v = llvm::dyn_cast<llvm::VectorType>(bits->getType())) f32 = llvm::VectorType::get(f32, v->getElementCount());
  Value* wide = b.CreateZExt(bits, IntLike(bits, 32));
  llvm::Type* i32 = wide->getType();
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(i32, v); };
  const int extra = to.mantissa_bits - from.mantissa_bits;
  if (from.exponent_bits == to.exponent_bits) {
    // Same exponent range (bfloat16): the value is the float32 with the low mantissa bits zero.
    return b.CreateBitCast(b.CreateShl(wide, c(32 - from.TotalBits())), f32);
  }
  TF_CHECK(from.exponent_bits < to.exponent_bits, "EmitWidenToFloat32: not a widening");
  Value* sign = b.CreateShl(b.CreateLShr(wide, c(from.TotalBits() - 1)), c(31));
  Value* exponent = b.CreateAnd(b.CreateLShr(wide, c(from.mantissa_bits)), c((1u << from.exponent_bits) - 1));
  Value* mantissa = b.CreateAnd(wide, c((1u << from.mantissa_bits) - 1));
  // Normal: rebias the exponent, widen the mantissa.
  Value* normal = b.CreateOr(b.CreateShl(b.CreateAdd(exponent, c(to.Bias() - from.Bias())), c(to.mantissa_bits)),
                             b.CreateShl(mantissa, c(extra)));
  // Infinity and NaN keep their payload.
  Value* special = b.CreateOr(c(to.InfinityBits()), b.CreateShl(mantissa, c(extra)));
  // Subnormal (a normal float32, since float32's range is wider): the top set bit of the
  // mantissa, at position p, becomes the implicit one.
  Value* top = b.CreateSub(c(31), b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, mantissa, b.getFalse()));
  Value* sub_exponent = b.CreateAdd(top, c(static_cast<uint32_t>(1 - from.Bias() - from.mantissa_bits + to.Bias())));
  Value* sub_mantissa = b.CreateAnd(b.CreateShl(mantissa, b.CreateSub(c(to.mantissa_bits), top)),
                                    c((1u << to.mantissa_bits) - 1));
  Value* subnormal = b.CreateOr(b.CreateShl(sub_exponent, c(to.mantissa_bits)), sub_mantissa);
  Value* max_exponent = c((1u << from.exponent_bits) - 1);
  Value* magnitude = b.CreateSelect(
      b.CreateICmpEQ(exponent, max_exponent), special,
      b.CreateSelect(b.CreateICmpNE(exponent, c(0)), normal,
                     b.CreateSelect(b.CreateICmpEQ(mantissa, c(0)), c(0), subnormal)));
  return b.CreateBitCast(b.CreateOr(sign, magnitude), f32);
}

}  // namespace tunefarm::codegen
