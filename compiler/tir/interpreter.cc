#include "compiler/tir/interpreter.h"

#include <cmath>
#include <cstring>
#include <memory>

#include "common/strings.h"
#include "compiler/te/float_bits.h"
#include "compiler/tir/stmt_functor.h"

namespace tunefarm::tir {
namespace {

using te::DType;
using te::ExprKind;
using te::Intrinsic;

// A scalar of any dtype: floats in `f`, integers and bools in `i`.
struct Value {
  double f = 0;
  int64_t i = 0;
};

// Wraps an integer to the width of its dtype, as the generated code's registers would.
int64_t Wrap(DType t, int64_t v) { return te::WrapToIntDType(t, v); }

double Round(DType t, double v) { return t == DType::kFloat32 ? static_cast<double>(static_cast<float>(v)) : v; }

// a < b for integers of dtype t (uint64 bit patterns compare unsigned).
bool Less(DType t, int64_t a, int64_t b) {
  return t == DType::kUInt64 ? static_cast<uint64_t>(a) < static_cast<uint64_t>(b) : a < b;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

class Interpreter : public StmtVisitor {
 public:
  // `workspace`: the caller's (GPU threads share one), or null to allocate one here.
  Interpreter(const PrimFunc& f, const std::vector<void*>& args, char* workspace = nullptr,
              const GpuThreadContext* gpu = nullptr)
      : f_(f), gpu_(gpu) {
    if (workspace == nullptr) {
      workspace_.reset(new (std::align_val_t(64)) char[f.workspace_bytes + 64]);
      workspace = workspace_.get();
    }
    for (size_t b = 0; b < f.buffers.size(); ++b) {
      const Buffer& buf = f.buffers[b];
      char* base = nullptr;  // local and shared buffers get theirs from their Allocate
      if (static_cast<int>(b) < f.num_args) base = static_cast<char*>(args[b]);
      if (buf.scope == BufferScope::kWorkspace) base = workspace + buf.workspace_offset;
      base_.push_back(base);
    }
  }

  absl::Status Run(const Stmt& body) {
    VisitStmt(body);
    return status_;
  }

 private:
  struct AlignedDelete {
    void operator()(char* p) const { operator delete[](p, std::align_val_t(64)); }
  };

  void Fail(std::string what) {
    if (status_.ok()) status_ = absl::OutOfRangeError(StrCat(f_.name, ": ", what));
  }

  char* Address(int buffer, int64_t index) {
    const Buffer& b = f_.buffers[buffer];
    if (index < 0 || index >= b.NumElements()) {
      Fail(StrCat("access to ", b.name, "[", index, "] is out of bounds (", b.NumElements(), " elements)"));
      return nullptr;
    }
    if (!base_[buffer]) {
      Fail(StrCat("access to local buffer ", b.name, " outside its allocate"));
      return nullptr;
    }
    return base_[buffer] + index * te::DTypeBytes(b.dtype);
  }

  template <typename T>
  static T Read(const char* p) {
    T x;
    std::memcpy(&x, p, sizeof(T));
    return x;
  }
  template <typename T>
  static void Write(char* p, T x) {
    std::memcpy(p, &x, sizeof(T));
  }

  // Integers (and the bit patterns of float16/bfloat16) load into `i`, wrapped to their dtype.
  Value LoadValue(DType t, const char* p) {
    Value v;
    switch (t) {
      case DType::kFloat32: v.f = Read<float>(p); break;
      case DType::kFloat64: v.f = Read<double>(p); break;
      case DType::kBool: v.i = *p != 0; break;
      case DType::kInt8: v.i = Read<int8_t>(p); break;
      case DType::kUInt8: v.i = Read<uint8_t>(p); break;
      case DType::kInt16: v.i = Read<int16_t>(p); break;
      case DType::kUInt16:
      case DType::kFloat16:
      case DType::kBFloat16: v.i = Read<uint16_t>(p); break;
      case DType::kInt32: v.i = Read<int32_t>(p); break;
      case DType::kUInt32: v.i = Read<uint32_t>(p); break;
      case DType::kInt64:
      case DType::kUInt64: v.i = Read<int64_t>(p); break;
    }
    return v;
  }

  void StoreValue(DType t, char* p, Value v) {
    switch (t) {
      case DType::kFloat32: Write(p, static_cast<float>(v.f)); break;
      case DType::kFloat64: Write(p, v.f); break;
      case DType::kBool: *p = v.i != 0; break;
      case DType::kInt8:
      case DType::kUInt8: Write(p, static_cast<uint8_t>(v.i)); break;
      case DType::kInt16:
      case DType::kUInt16:
      case DType::kFloat16:
      case DType::kBFloat16: Write(p, static_cast<uint16_t>(v.i)); break;
      case DType::kInt32:
      case DType::kUInt32: Write(p, static_cast<uint32_t>(v.i)); break;
      case DType::kInt64:
      case DType::kUInt64: Write(p, v.i); break;
    }
  }

  Value Binary(ExprKind k, DType t, Value a, Value b) {
    Value r;
    if (te::IsFloat(t)) {
      switch (k) {
        case ExprKind::kAdd: r.f = a.f + b.f; break;
        case ExprKind::kSub: r.f = a.f - b.f; break;
        case ExprKind::kMul: r.f = a.f * b.f; break;
        case ExprKind::kDiv: r.f = a.f / b.f; break;
        case ExprKind::kMin: r.f = std::fmin(a.f, b.f); break;
        case ExprKind::kMax: r.f = std::fmax(a.f, b.f); break;
        case ExprKind::kEq: r.i = a.f == b.f; return r;
        case ExprKind::kNe: r.i = a.f != b.f; return r;
        case ExprKind::kLt: r.i = a.f < b.f; return r;
        case ExprKind::kLe: r.i = a.f <= b.f; return r;
        case ExprKind::kGt: r.i = a.f > b.f; return r;
        case ExprKind::kGe: r.i = a.f >= b.f; return r;
        default: Fail("bad float operation"); break;
      }
      r.f = Round(t, r.f);
      return r;
    }
    switch (k) {
      case ExprKind::kAdd: r.i = static_cast<int64_t>(static_cast<uint64_t>(a.i) + static_cast<uint64_t>(b.i)); break;
      case ExprKind::kSub: r.i = static_cast<int64_t>(static_cast<uint64_t>(a.i) - static_cast<uint64_t>(b.i)); break;
      case ExprKind::kMul: r.i = static_cast<int64_t>(static_cast<uint64_t>(a.i) * static_cast<uint64_t>(b.i)); break;
      case ExprKind::kDiv:
      case ExprKind::kMod:
        if (b.i == 0) {
          Fail("integer division by zero");
          return r;
        }
        if (te::IsUnsignedInt(t)) {
          uint64_t ua = static_cast<uint64_t>(a.i), ub = static_cast<uint64_t>(b.i);
          r.i = static_cast<int64_t>(k == ExprKind::kDiv ? ua / ub : ua % ub);
          break;
        }
        r.i = FloorDiv(a.i, b.i);
        if (k == ExprKind::kMod) r.i = a.i - r.i * b.i;
        break;
      case ExprKind::kMin: r.i = Less(t, b.i, a.i) ? b.i : a.i; break;
      case ExprKind::kMax: r.i = Less(t, a.i, b.i) ? b.i : a.i; break;
      case ExprKind::kEq: r.i = a.i == b.i; return r;
      case ExprKind::kNe: r.i = a.i != b.i; return r;
      case ExprKind::kLt: r.i = Less(t, a.i, b.i); return r;
      case ExprKind::kLe: r.i = !Less(t, b.i, a.i); return r;
      case ExprKind::kGt: r.i = Less(t, b.i, a.i); return r;
      case ExprKind::kGe: r.i = !Less(t, a.i, b.i); return r;
      case ExprKind::kAnd: r.i = a.i && b.i; return r;
      case ExprKind::kOr: r.i = a.i || b.i; return r;
      default: Fail("bad integer operation"); break;
    }
    r.i = Wrap(t, r.i);
    return r;
  }

  Value CallIntrinsic(Intrinsic fn, DType t, const std::vector<Value>& a) {
    Value r;
    if (!te::IsFloat(t)) {  // only abs is defined on integers
      r.i = Wrap(t, te::IsSigned(t) && a[0].i < 0 ? -a[0].i : a[0].i);
      return r;
    }
    double x = a[0].f;
    bool f32 = t == DType::kFloat32;
    auto pick = [&](float (*ff)(float), double (*fd)(double)) { return f32 ? ff(static_cast<float>(x)) : fd(x); };
    switch (fn) {
      case Intrinsic::kExp: r.f = pick(std::exp, std::exp); break;
      case Intrinsic::kLog: r.f = pick(std::log, std::log); break;
      case Intrinsic::kSqrt: r.f = pick(std::sqrt, std::sqrt); break;
      case Intrinsic::kRsqrt: r.f = 1.0 / pick(std::sqrt, std::sqrt); break;
      case Intrinsic::kTanh: r.f = pick(std::tanh, std::tanh); break;
      case Intrinsic::kErf: r.f = pick(std::erf, std::erf); break;
      case Intrinsic::kSigmoid: r.f = 1.0 / (1.0 + std::exp(-x)); break;
      case Intrinsic::kPow: r.f = f32 ? std::pow(static_cast<float>(x), static_cast<float>(a[1].f)) : std::pow(x, a[1].f); break;
      case Intrinsic::kAbs: r.f = std::fabs(x); break;
      case Intrinsic::kFloor: r.f = std::floor(x); break;
      case Intrinsic::kCeil: r.f = std::ceil(x); break;
      case Intrinsic::kRoundEven: r.f = std::nearbyint(x); break;  // the default mode: ties to even
    }
    r.f = Round(t, r.f);
    return r;
  }

  Value CastValue(DType to, DType from, Value v) {
    Value r;
    if (te::IsStorageFloat(from)) {  // exact in float64; then as from float64
      uint16_t bits = static_cast<uint16_t>(v.i);
      v.f = from == DType::kFloat16 ? te::HalfBitsToDouble(bits) : te::BFloat16BitsToDouble(bits);
      from = DType::kFloat64;
    }
    const bool float_from = te::IsFloat(from);
    if (te::IsStorageFloat(to)) {
      double x = float_from ? v.f : te::IntDTypeValue(from, v.i);
      r.i = to == DType::kFloat16 ? te::DoubleToHalfBits(x) : te::DoubleToBFloat16Bits(x);
    } else if (te::IsFloat(to)) {
      r.f = Round(to, float_from ? v.f : te::IntDTypeValue(from, v.i));
    } else if (float_from) {
      // Saturating, NaN to 0: the kernels' fptosi.sat / fptoui.sat.
      r.i = to == DType::kBool ? v.f != 0 : te::SaturateToIntDType(to, v.f);
    } else {
      r.i = Wrap(to, v.i);
    }
    return r;
  }

  Value Eval(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kIntImm: return Value{0, e->int_value};
      case ExprKind::kFloatImm: return Value{e->float_value, 0};
      case ExprKind::kVar: return Value{0, vars_[e->int_value]};
      case ExprKind::kLoad: {
        int64_t index = Eval(e->operands[0]).i;
        const char* p = Address(static_cast<int>(e->int_value), index);
        return p ? LoadValue(e->dtype, p) : Value{};
      }
      case ExprKind::kNot: return Value{0, !Eval(e->operands[0]).i};
      case ExprKind::kSelect: {
        Value c = Eval(e->operands[0]);
        Value a = Eval(e->operands[1]), b = Eval(e->operands[2]);  // both arms, like the kernel
        return c.i ? a : b;
      }
      case ExprKind::kCast: return CastValue(e->dtype, e->operands[0]->dtype, Eval(e->operands[0]));
      case ExprKind::kCall: {
        std::vector<Value> args;
        for (const Expr& op : e->operands) args.push_back(Eval(op));
        return CallIntrinsic(static_cast<Intrinsic>(e->int_value), e->dtype, args);
      }
      case ExprKind::kAxis:
      case ExprKind::kReduceAxis:
        Fail("te axis in the loop IR");
        return Value{};
      default:
        return Binary(e->kind, e->operands[0]->dtype, Eval(e->operands[0]), Eval(e->operands[1]));
    }
  }

  void VisitStmt(const Stmt& s) override {
    if (status_.ok()) StmtVisitor::VisitStmt(s);
  }

  void VisitFor(const StmtNode& op) override {
    int64_t n = Eval(op.extent).i;
    int64_t id = op.loop_var->int_value;
    if (id >= static_cast<int64_t>(vars_.size())) vars_.resize(id + 1);
    if (gpu_ != nullptr && op.for_kind == ForKind::kThreadBinding) {  // one iteration: this thread's
      const int dim = ThreadAxisDim(op.thread_axis);
      vars_[id] = IsBlockAxis(op.thread_axis) ? gpu_->block_index[dim] : gpu_->thread_index[dim];
      if (vars_[id] >= n) return Fail(StrCat(ThreadAxisName(op.thread_axis), " = ", vars_[id], " is outside its loop's extent ", n));
      return VisitStmt(op.body);
    }
    for (int64_t i = 0; i < n && status_.ok(); ++i) {
      vars_[id] = i;
      VisitStmt(op.body);
    }
  }

  void VisitStore(const StmtNode& op) override {
    int64_t index = Eval(op.index).i;
    Value v = Eval(op.value);
    if (char* p = Address(op.buffer, index)) StoreValue(f_.buffers[op.buffer].dtype, p, v);
  }

  void VisitIf(const StmtNode& op) override { VisitStmt(Eval(op.cond).i ? op.then_case : op.else_case); }

  // A fresh buffer filled with 0xff bytes (NaN for floats), so a read before the first write
  // shows in the results instead of passing by luck.
  void VisitAllocate(const StmtNode& op) override {
    const Buffer& b = f_.buffers[op.buffer];
    const bool block_shared = gpu_ != nullptr && b.scope == BufferScope::kShared;
    std::vector<char> storage(block_shared ? 0 : b.NumBytes() + 1, static_cast<char>(0xff));
    char* saved = base_[op.buffer];
    base_[op.buffer] = block_shared ? gpu_->shared[op.buffer] : storage.data();
    VisitStmt(op.body);
    base_[op.buffer] = saved;
  }

  const PrimFunc& f_;
  std::unique_ptr<char[], AlignedDelete> workspace_;
  std::vector<char*> base_;
  void VisitBarrier(const StmtNode&) override {
    if (gpu_ != nullptr && !gpu_->barrier()) Fail("a barrier that not every thread of the block reaches");
  }

  const GpuThreadContext* gpu_;  // null: bound loops are serial loops and barriers do nothing
  std::vector<int64_t> vars_;
  absl::Status status_;
};

}  // namespace

absl::Status Interpret(const PrimFunc& f, const std::vector<void*>& args) {
  if (static_cast<int>(args.size()) != f.num_args)
    return absl::InvalidArgumentError(StrCat(f.name, ": expected ", f.num_args, " arguments, got ", args.size()));
  return Interpreter(f, args).Run(f.body);
}

absl::Status InterpretGpuThread(const PrimFunc& f, const Stmt& launch_body, const std::vector<void*>& args,
                                char* workspace, const GpuThreadContext& thread) {
  return Interpreter(f, args, workspace, &thread).Run(launch_body);
}

}  // namespace tunefarm::tir
