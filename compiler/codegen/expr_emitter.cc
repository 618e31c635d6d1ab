#include "compiler/codegen/expr_emitter.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "compiler/codegen/float_bits_ir.h"
#include "common/check.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace tunefarm::codegen {
namespace {

using llvm::Value;
using te::DType;
using te::Expr;
using te::ExprKind;
using Kind = LaneValue::Kind;

LaneValue Scalar(Value* v) { return {Kind::kScalar, v, 0}; }
LaneValue Vector(Value* v) { return {Kind::kVector, v, 0}; }
LaneValue Ramp(Value* base, int64_t stride, int64_t group_stride) {
  return stride == 0 && group_stride == 0 ? Scalar(base) : LaneValue{Kind::kRamp, base, stride, group_stride};
}

bool IsUnsigned(DType t) { return !te::IsSigned(t); }  // unsigned integers and bool

llvm::Align AlignOf(DType t) { return llvm::Align(te::DTypeBytes(t)); }

// A power of two that divides `e` when `lane_var` is 0 (0: e is 0 then, which every number
// divides), at most 2^20: only powers of two up to a vector's lanes matter, and a power of two
// stays a divisor when capped (a capped non-power would not: 2^20 does not divide 2^20 + 2).
// Floor division and anything unknown give 1; x % c keeps what divides both x and c.
int64_t MultipleAtLaneZero(const Expr& e, int64_t lane_var) {
  constexpr int64_t kCap = int64_t{1} << 20;
  const auto operand = [&](int i) { return MultipleAtLaneZero(e->operands[i], lane_var); };
  switch (e->kind) {
    case ExprKind::kIntImm: {
      const uint64_t v = static_cast<uint64_t>(e->int_value);
      return v == 0 ? 0 : static_cast<int64_t>(std::min<uint64_t>(v & (~v + 1), kCap));  // its lowest set bit
    }
    case ExprKind::kVar: return e->int_value == lane_var ? 0 : 1;
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMod:
    case ExprKind::kMin:
    case ExprKind::kMax: return std::gcd(operand(0), operand(1));
    case ExprKind::kMul: {
      const int64_t a = operand(0), b = operand(1);
      return a == 0 || b == 0 ? 0 : std::min(a * b, kCap);  // both at most 2^20: no overflow
    }
    case ExprKind::kCast: return te::IsInt(e->operands[0]->dtype) ? operand(0) : 1;  // wrapping keeps low bits
    default: return 1;
  }
}

}  // namespace

llvm::Type* ExprEmitter::ValueType(DType t) const {
  llvm::LLVMContext& ctx = b_.getContext();
  switch (t) {
    case DType::kBool: return llvm::Type::getInt1Ty(ctx);
    case DType::kInt8:
    case DType::kUInt8: return llvm::Type::getInt8Ty(ctx);
    case DType::kInt16:
    case DType::kUInt16:
    case DType::kFloat16:  // storage floats are their bit patterns (see dtype.h)
    case DType::kBFloat16: return llvm::Type::getInt16Ty(ctx);
    case DType::kInt32:
    case DType::kUInt32: return llvm::Type::getInt32Ty(ctx);
    case DType::kInt64:
    case DType::kUInt64: return llvm::Type::getInt64Ty(ctx);
    case DType::kFloat32: return llvm::Type::getFloatTy(ctx);
    case DType::kFloat64: return llvm::Type::getDoubleTy(ctx);
  }
  TF_CHECK(false, "unknown dtype");
  return nullptr;
}

llvm::Type* ExprEmitter::MemoryType(DType t) const {
  return t == DType::kBool ? llvm::Type::getInt8Ty(b_.getContext()) : ValueType(t);
}

llvm::Type* ExprEmitter::LaneType(DType t, bool memory) const {
  llvm::Type* elem = memory ? MemoryType(t) : ValueType(t);
  return llvm::FixedVectorType::get(elem, scope_->lanes);
}

LaneValue ExprEmitter::Emit(const Expr& e, const ExprScope& scope) {
  scope_ = &scope;
  memo_.clear();
  return Rec(e);
}

Value* ExprEmitter::EmitScalar(const Expr& e, const ExprScope& scope) {
  LaneValue v = Emit(e, scope);
  TF_CHECK(v.kind == Kind::kScalar, "expected a value that is the same in every lane");
  return v.value;
}

Value* ExprEmitter::ToVector(const LaneValue& v) {
  const int lanes = scope_->lanes;
  switch (v.kind) {
    case Kind::kVector: return v.value;
    case Kind::kScalar: return b_.CreateVectorSplat(lanes, v.value);
    case Kind::kRamp: {
      const int group = scope_->group;
      std::vector<llvm::Constant*> offsets;
      for (int i = 0; i < lanes; ++i) offsets.push_back(b_.getInt64(v.stride * (i % group) + v.group_stride * (i / group)));
      return b_.CreateAdd(b_.CreateVectorSplat(lanes, v.value), llvm::ConstantVector::get(offsets));
    }
  }
  return nullptr;
}

LaneValue ExprEmitter::Rec(const Expr& e) {
  auto cached = memo_.find(e.get());
  if (cached != memo_.end()) return cached->second;
  LaneValue out;
  const DType t = e->dtype;
  switch (e->kind) {
    case ExprKind::kIntImm: {
      llvm::Type* type = ValueType(t);
      uint64_t bits = static_cast<uint64_t>(e->int_value);
      unsigned width = type->getIntegerBitWidth();
      if (width < 64) bits &= (uint64_t{1} << width) - 1;
      out = Scalar(llvm::ConstantInt::get(type, bits));
      break;
    }
    case ExprKind::kFloatImm:
      out = Scalar(llvm::ConstantFP::get(ValueType(t), e->float_value));
      break;
    case ExprKind::kVar:
      if (e->int_value == scope_->lane_var) {
        // With lane groups the variable restarts in every group; with one group, its
        // group_stride follows the one-group rule of LaneValue.
        out = Ramp(scope_->lane_base, 1, scope_->group_var < 0 ? scope_->group : 0);
      } else if (e->int_value == scope_->group_var) {
        out = Ramp(scope_->group_base, 0, 1);
      } else {
        auto it = scope_->vars.find(e->int_value);
        TF_CHECK(it != scope_->vars.end(), "unbound variable (ValidatePrimFuncs checks this)");
        out = Scalar(it->second);
      }
      break;
    case ExprKind::kNot: {
      LaneValue a = Rec(e->operands[0]);
      out = a.kind == Kind::kScalar ? Scalar(b_.CreateNot(a.value)) : Vector(b_.CreateNot(ToVector(a)));
      break;
    }
    case ExprKind::kSelect: {
      LaneValue c = Rec(e->operands[0]);
      LaneValue x = Rec(e->operands[1]);
      LaneValue y = Rec(e->operands[2]);
      if (c.kind == Kind::kScalar && x.kind == Kind::kScalar && y.kind == Kind::kScalar) {
        out = Scalar(b_.CreateSelect(c.value, x.value, y.value));
      } else {
        Value* cond = c.kind == Kind::kScalar ? c.value : ToVector(c);
        out = Vector(b_.CreateSelect(cond, ToVector(x), ToVector(y)));
      }
      break;
    }
    case ExprKind::kCast: {
      const Expr& src = e->operands[0];
      LaneValue a = Rec(src);
      if (a.kind == Kind::kScalar) {
        out = Scalar(CastValue(src->dtype, t, a.value));
      } else {
        out = Vector(CastValue(src->dtype, t, ToVector(a)));
      }
      break;
    }
    case ExprKind::kCall: {
      std::vector<LaneValue> args;
      bool all_scalar = true;
      for (const Expr& op : e->operands) {
        args.push_back(Rec(op));
        all_scalar = all_scalar && args.back().kind == Kind::kScalar;
      }
      std::vector<Value*> vals;
      for (const LaneValue& a : args) vals.push_back(all_scalar ? a.value : ToVector(a));
      Value* r = EmitIntrinsic(b_, static_cast<te::Intrinsic>(e->int_value), vals[0],
                               vals.size() > 1 ? vals[1] : nullptr, te::IsSigned(t), math_);
      out = all_scalar ? Scalar(r) : Vector(r);
      break;
    }
    case ExprKind::kLoad:
      out = Load(e);
      break;
    case ExprKind::kAxis:
    case ExprKind::kReduceAxis:
      TF_CHECK(false, "te axis in the loop IR (ValidatePrimFuncs checks this)");
      break;
    default:
      if (e->kind == ExprKind::kAdd && TryDotProduct(e, &out)) break;
      out = Binary(e, Rec(e->operands[0]), Rec(e->operands[1]));
      break;
  }
  memo_.emplace(e.get(), out);
  return out;
}

LaneValue ExprEmitter::Binary(const Expr& e, LaneValue a, LaneValue b) {
  const ExprKind kind = e->kind;
  const DType t = e->operands[0]->dtype;
  if (a.kind == Kind::kScalar && b.kind == Kind::kScalar) {
    bool cmp = te::IsCompare(kind) || kind == ExprKind::kAnd || kind == ExprKind::kOr;
    return Scalar(cmp ? Compare(kind, t, a.value, b.value) : Arith(kind, t, a.value, b.value));
  }
  // Affine arithmetic keeps ramps, so index expressions stay recognisable as contiguous.
  bool no_vector = a.kind != Kind::kVector && b.kind != Kind::kVector;
  if (no_vector && t == te::kIndexType) {
    auto base = [&](const LaneValue& v) { return v.value; };
    auto stride = [&](const LaneValue& v) { return v.kind == Kind::kRamp ? v.stride : 0; };
    auto group_stride = [&](const LaneValue& v) { return v.kind == Kind::kRamp ? v.group_stride : 0; };
    if (kind == ExprKind::kAdd) {
      return Ramp(b_.CreateAdd(base(a), base(b)), stride(a) + stride(b), group_stride(a) + group_stride(b));
    }
    if (kind == ExprKind::kSub) {
      return Ramp(b_.CreateSub(base(a), base(b)), stride(a) - stride(b), group_stride(a) - group_stride(b));
    }
    if (kind == ExprKind::kMul) {
      auto* ca = llvm::dyn_cast<llvm::ConstantInt>(a.value);
      auto* cb = llvm::dyn_cast<llvm::ConstantInt>(b.value);
      if (a.kind == Kind::kRamp && b.kind == Kind::kScalar && cb) {
        const int64_t c = cb->getSExtValue();
        return Ramp(b_.CreateMul(a.value, cb), a.stride * c, a.group_stride * c);
      }
      if (b.kind == Kind::kRamp && a.kind == Kind::kScalar && ca) {
        const int64_t c = ca->getSExtValue();
        return Ramp(b_.CreateMul(ca, b.value), b.stride * c, b.group_stride * c);
      }
    }
  }
  Value* va = ToVector(a);
  Value* vb = ToVector(b);
  bool cmp = te::IsCompare(kind) || kind == ExprKind::kAnd || kind == ExprKind::kOr;
  return Vector(cmp ? Compare(kind, t, va, vb) : Arith(kind, t, va, vb));
}

Value* ExprEmitter::Arith(ExprKind kind, DType t, Value* a, Value* b) {
  if (te::IsFloat(t)) {
    switch (kind) {
      case ExprKind::kAdd: return b_.CreateFAdd(a, b);
      case ExprKind::kSub: return b_.CreateFSub(a, b);
      case ExprKind::kMul: return b_.CreateFMul(a, b);
      case ExprKind::kDiv: return b_.CreateFDiv(a, b);
      // std::min / std::max: the first operand wins ties and NaN comparisons.
      case ExprKind::kMin: return b_.CreateSelect(b_.CreateFCmpOLT(b, a), b, a);
      case ExprKind::kMax: return b_.CreateSelect(b_.CreateFCmpOLT(a, b), b, a);
      default: break;
    }
    TF_CHECK(false, "float operator not supported");
  }
  const bool is_unsigned = IsUnsigned(t);
  switch (kind) {
    case ExprKind::kAdd: return b_.CreateAdd(a, b);
    case ExprKind::kSub: return b_.CreateSub(a, b);
    case ExprKind::kMul: return b_.CreateMul(a, b);
    case ExprKind::kMin:
      return b_.CreateBinaryIntrinsic(is_unsigned ? llvm::Intrinsic::umin : llvm::Intrinsic::smin, a, b);
    case ExprKind::kMax:
      return b_.CreateBinaryIntrinsic(is_unsigned ? llvm::Intrinsic::umax : llvm::Intrinsic::smax, a, b);
    case ExprKind::kDiv:
    case ExprKind::kMod: {
      if (is_unsigned) return kind == ExprKind::kDiv ? b_.CreateUDiv(a, b) : b_.CreateURem(a, b);
      // Floor semantics: truncating division, then step down when the remainder is non-zero
      // and its sign differs from the divisor's. For a positive constant divisor LLVM folds
      // the sign test to r < 0.
      Value* q = b_.CreateSDiv(a, b);
      Value* r = b_.CreateSRem(a, b);
      Value* zero = llvm::Constant::getNullValue(a->getType());
      Value* fix = b_.CreateAnd(b_.CreateICmpNE(r, zero), b_.CreateICmpSLT(b_.CreateXor(r, b), zero));
      if (kind == ExprKind::kDiv) return b_.CreateSub(q, b_.CreateZExt(fix, a->getType()));
      return b_.CreateAdd(r, b_.CreateSelect(fix, b, zero));
    }
    default: break;
  }
  TF_CHECK(false, "not an arithmetic operator");
  return nullptr;
}

Value* ExprEmitter::Compare(ExprKind kind, DType t, Value* a, Value* b) {
  if (kind == ExprKind::kAnd) return b_.CreateAnd(a, b);
  if (kind == ExprKind::kOr) return b_.CreateOr(a, b);
  if (te::IsFloat(t)) {
    // Ordered compares, except != which is true for NaN, as in C.
    switch (kind) {
      case ExprKind::kEq: return b_.CreateFCmpOEQ(a, b);
      case ExprKind::kNe: return b_.CreateFCmpUNE(a, b);
      case ExprKind::kLt: return b_.CreateFCmpOLT(a, b);
      case ExprKind::kLe: return b_.CreateFCmpOLE(a, b);
      case ExprKind::kGt: return b_.CreateFCmpOGT(a, b);
      case ExprKind::kGe: return b_.CreateFCmpOGE(a, b);
      default: break;
    }
  } else {
    const bool u = IsUnsigned(t);
    switch (kind) {
      case ExprKind::kEq: return b_.CreateICmpEQ(a, b);
      case ExprKind::kNe: return b_.CreateICmpNE(a, b);
      case ExprKind::kLt: return u ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b);
      case ExprKind::kLe: return u ? b_.CreateICmpULE(a, b) : b_.CreateICmpSLE(a, b);
      case ExprKind::kGt: return u ? b_.CreateICmpUGT(a, b) : b_.CreateICmpSGT(a, b);
      case ExprKind::kGe: return u ? b_.CreateICmpUGE(a, b) : b_.CreateICmpSGE(a, b);
      default: break;
    }
  }
  TF_CHECK(false, "not a comparison");
  return nullptr;
}

Value* ExprEmitter::CastValue(DType from, DType to, Value* v) {
  if (from == to) return v;
  if (te::IsStorageFloat(from)) {  // exact in float32, then as from float32
    return CastValue(DType::kFloat32, to, EmitWidenToFloat32(b_, v, te::FormatOf(from)));
  }
  if (te::IsStorageFloat(to)) {
    // One rounding, from float32 or float64 (integers convert to float64 first, as the
    // interpreter and the host tensors do).
    Value* wide = from == DType::kFloat32 ? v : CastValue(from, DType::kFloat64, v);
    return EmitNarrowFloat(b_, wide, te::FormatOf(to));
  }
  llvm::Type* dst = ValueType(to);
  if (v->getType()->isVectorTy()) {
    dst = llvm::VectorType::get(dst, llvm::cast<llvm::VectorType>(v->getType())->getElementCount());
  }
  if (to == DType::kBool) {
    Value* zero = llvm::Constant::getNullValue(v->getType());
    return te::IsFloat(from) ? b_.CreateFCmpUNE(v, zero) : b_.CreateICmpNE(v, zero);
  }
  if (te::IsFloat(from)) {
    if (te::IsFloat(to)) return b_.CreateFPCast(v, dst);
    // Truncates toward zero like C; out-of-range values saturate and NaN gives 0 (fptosi
    // alone would give poison).
    if (te::DTypeBytes(to) < 4 || to == DType::kInt32) {
      // LLVM scalarizes vectors of saturating conversions (one cvttss2si and one insert per
      // lane: QuantizeLinear ran 4x slower; int32 too), and its loop vectorizer keeps them
      // scalar. The same values, in instructions that
      // vectorize: clamp to the integer's range in floating point, NaN to 0, then a plain
      // conversion, now in range (also for scalars: a loop of them is vectorized later by
      // LLVM, as it never is with the intrinsic). The bounds are exact, except
      // int32's top from float32 (2^31 - 1 is not a float32): clamped to the float32 below
      // 2^31, whatever lies beyond is set to INT32_MAX by a select.
      const int bits = 8 * te::DTypeBytes(to);
      const double lo = IsUnsigned(to) ? 0 : -std::ldexp(1.0, bits - 1);
      double hi = IsUnsigned(to) ? std::ldexp(1.0, bits) - 1 : std::ldexp(1.0, bits - 1) - 1;
      const bool inexact_top = from == DType::kFloat32 && bits == 32;
      if (inexact_top) hi = std::ldexp(1.0, 31) - 128;
      llvm::Type* type = v->getType();
      Value* clamped = b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, v, llvm::ConstantFP::get(type, lo));
      clamped = b_.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, clamped, llvm::ConstantFP::get(type, hi));
      clamped = b_.CreateSelect(b_.CreateFCmpUNO(v, v), llvm::ConstantFP::get(type, 0.0), clamped);
      llvm::Type* i32 = b_.getInt32Ty();
      if (type->isVectorTy()) i32 = llvm::VectorType::get(i32, llvm::cast<llvm::VectorType>(type)->getElementCount());
      Value* converted = b_.CreateFPToSI(clamped, i32);
      if (inexact_top) {
        Value* beyond = b_.CreateFCmpOGE(v, llvm::ConstantFP::get(type, std::ldexp(1.0, 31)));
        converted = b_.CreateSelect(beyond, llvm::ConstantInt::get(i32, INT32_MAX), converted);
      }
      return b_.CreateTrunc(converted, dst);
    }
    auto id = IsUnsigned(to) ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat;
    return b_.CreateIntrinsic(id, {dst, v->getType()}, {v});
  }
  if (te::IsFloat(to)) return IsUnsigned(from) ? b_.CreateUIToFP(v, dst) : b_.CreateSIToFP(v, dst);
  return b_.CreateIntCast(v, dst, /*isSigned=*/!IsUnsigned(from));
}

LaneValue ExprEmitter::AsIndex(const Expr& index) {
  LaneValue v = Rec(index);
  if (index->dtype == te::kIndexType) return v;
  if (v.kind == Kind::kScalar) return Scalar(CastValue(index->dtype, te::kIndexType, v.value));
  return Vector(CastValue(index->dtype, te::kIndexType, ToVector(v)));
}

ExprEmitter::ExprEmitter(llvm::IRBuilderBase& b, const tir::PrimFunc& func, const MathOptions& math,
                         const DotProductOptions& dot)
    : b_(b), func_(func), math_(math), dot_(dot), alias_scopes_(b.getContext(), func) {}

bool ExprEmitter::IsContiguous(const LaneValue& idx) const {
  return idx.kind == Kind::kRamp && idx.stride == 1 && idx.group_stride == scope_->group;
}

Value* ExprEmitter::Concat(std::vector<Value*> parts) {
  while (parts.size() > 1) {  // pairwise: the part count is a power of two (lane_groups.h)
    std::vector<Value*> joined;
    const int width = static_cast<int>(llvm::cast<llvm::FixedVectorType>(parts[0]->getType())->getNumElements());
    std::vector<int> mask(2 * width);
    for (int i = 0; i < 2 * width; ++i) mask[i] = i;
    for (size_t i = 0; i + 1 < parts.size(); i += 2) joined.push_back(b_.CreateShuffleVector(parts[i], parts[i + 1], mask));
    parts = std::move(joined);
  }
  return parts[0];
}

llvm::Align ExprEmitter::ChunkAlign(DType t, const Expr& index) const {
  const auto* first = llvm::dyn_cast_or_null<llvm::ConstantInt>(scope_->lane_base);
  if (!align_chunks_by_index_ || !first || !first->isZero() || scope_->group != scope_->lanes) return AlignOf(t);
  const int64_t multiple = MultipleAtLaneZero(index, scope_->lane_var);
  const int64_t lanes = std::gcd(multiple, static_cast<int64_t>(scope_->lanes));  // gcd(0, n) = n
  const int64_t bytes = std::min<int64_t>(16, (lanes & -lanes) * te::DTypeBytes(t));
  return std::max(AlignOf(t), llvm::Align(static_cast<uint64_t>(bytes)));
}

Value* ExprEmitter::LoadRamp(DType t, Value* base, const Expr& index, const LaneValue& idx,
                             std::vector<llvm::Instruction*>* loads) {
  llvm::Type* mem = MemoryType(t);
  const int lanes = scope_->lanes;
  const int group = scope_->group;
  const int groups = lanes / group;
  auto load = [&](llvm::Type* type, Value* at, llvm::Align align) {
    llvm::LoadInst* l = b_.CreateAlignedLoad(type, b_.CreateInBoundsGEP(mem, base, at), align);
    loads->push_back(l);
    return l;
  };
  auto group_index = [&](int g) { return b_.CreateAdd(idx.value, b_.getInt64(idx.group_stride * g)); };
  if (IsContiguous(idx)) return load(LaneType(t, true), idx.value, ChunkAlign(t, index));
  if (groups > 1 && idx.stride == 1) {
    // One contiguous run per group (a block's weights): load each and join them, or load one
    // and repeat it when every group reads the same run.
    llvm::Type* part = llvm::FixedVectorType::get(mem, group);
    if (idx.group_stride == 0) {
      Value* run = load(part, idx.value, AlignOf(t));
      std::vector<int> mask(lanes);
      for (int i = 0; i < lanes; ++i) mask[i] = i % group;
      return b_.CreateShuffleVector(run, mask);
    }
    std::vector<Value*> parts;
    for (int g = 0; g < groups; ++g) parts.push_back(load(part, group_index(g), AlignOf(t)));
    return Concat(std::move(parts));
  }
  if (groups > 1 && idx.stride == 0) {
    // One element per group (an input pixel per group), repeated over its lanes.
    Value* per_group = llvm::PoisonValue::get(llvm::FixedVectorType::get(mem, groups));
    for (int g = 0; g < groups; ++g) per_group = b_.CreateInsertElement(per_group, load(mem, group_index(g), AlignOf(t)), g);
    std::vector<int> mask(lanes);
    for (int i = 0; i < lanes; ++i) mask[i] = i / group;
    return b_.CreateShuffleVector(per_group, mask);
  }
  Value* ptrs = b_.CreateInBoundsGEP(mem, base, ToVector(idx));
  llvm::CallInst* gather = b_.CreateMaskedGather(LaneType(t, true), ptrs, AlignOf(t));
  loads->push_back(gather);
  return gather;
}

LaneValue ExprEmitter::Load(const Expr& e) {
  const DType t = e->dtype;
  llvm::Type* mem = MemoryType(t);
  Value* base = scope_->buffers[e->int_value];
  LaneValue idx = AsIndex(e->operands[0]);
  std::vector<llvm::Instruction*> loads;
  Value* loaded;
  bool vector = true;
  if (idx.kind == Kind::kScalar) {
    llvm::LoadInst* l = b_.CreateAlignedLoad(mem, b_.CreateInBoundsGEP(mem, base, idx.value), AlignOf(t));
    loads.push_back(l);
    loaded = l;
    vector = false;
  } else if (idx.kind == Kind::kRamp) {
    loaded = LoadRamp(t, base, e->operands[0], idx, &loads);
  } else {
    Value* ptrs = b_.CreateInBoundsGEP(mem, base, ToVector(idx));
    llvm::CallInst* gather = b_.CreateMaskedGather(LaneType(t, true), ptrs, AlignOf(t));
    loads.push_back(gather);
    loaded = gather;
  }
  for (llvm::Instruction* l : loads) alias_scopes_.Tag(l, static_cast<int>(e->int_value));
  if (t == DType::kBool) loaded = b_.CreateICmpNE(loaded, llvm::Constant::getNullValue(loaded->getType()));
  return vector ? Vector(loaded) : Scalar(loaded);
}

void ExprEmitter::EmitStore(int buffer, const Expr& index, const Expr& value, const ExprScope& scope) {
  scope_ = &scope;
  memo_.clear();
  const DType t = value->dtype;
  llvm::Type* mem = MemoryType(t);
  Value* base = scope.buffers[buffer];
  LaneValue idx = AsIndex(index);
  LaneValue val = Rec(value);
  llvm::Instruction* stored = nullptr;
  auto to_memory = [&](Value* v) {
    return t == DType::kBool ? b_.CreateZExt(v, v->getType()->isVectorTy() ? LaneType(t, true) : mem) : v;
  };
  if (idx.kind == Kind::kScalar) {
    TF_CHECK(val.kind == Kind::kScalar, "lane-dependent value stored to one address (see vector_plan.h)");
    stored = b_.CreateAlignedStore(to_memory(val.value), b_.CreateInBoundsGEP(mem, base, idx.value), AlignOf(t));
  } else if (IsContiguous(idx)) {
    stored = b_.CreateAlignedStore(to_memory(ToVector(val)), b_.CreateInBoundsGEP(mem, base, idx.value),
                                   ChunkAlign(t, index));
  } else {
    Value* ptrs = b_.CreateInBoundsGEP(mem, base, ToVector(idx));
    stored = b_.CreateMaskedScatter(to_memory(ToVector(val)), ptrs, AlignOf(t));
  }
  alias_scopes_.Tag(stored, buffer);
}

}  // namespace tunefarm::codegen
