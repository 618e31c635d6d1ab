#include "tests/codegen/test_kernels.h"

#include "compiler/codegen/codegen.h"
#include "common/sha256.h"
#include "tests/codegen/kernel_runner.h"

namespace tunefarm::codegen::testing {

using te::DType;
using te::Expr;
using tir::ForKind;

tir::PrimFunc GemmFunc(const std::string& name, int64_t m, int64_t n, int64_t k) {
  const DType f32 = DType::kFloat32;
  Expr i = te::MakeVar("i", 1), j = te::MakeVar("j", 2), kk = te::MakeVar("k", 3), j2 = te::MakeVar("j2", 4);
  Expr c_index = i * n + j2;
  Expr update = te::Load(f32, 2, {c_index}) + te::Load(f32, 0, {i * k + kk}) * te::Load(f32, 1, {kk * n + j2});
  tir::Stmt body = tir::For(
      i, m, ForKind::kParallel,
      tir::Seq({tir::For(j, n, ForKind::kVectorized, tir::Store(2, i * n + j, te::FloatImm(f32, 0))),
                tir::For(kk, k, ForKind::kSerial,
                         tir::For(j2, n, ForKind::kVectorized, tir::Store(2, c_index, update)))}));
  return MakeFunc(name,
                  {Arg("A", f32, {m, k}), Arg("B", f32, {k, n}), Arg("C", f32, {m, n}, tir::ArgRole::kOutput)},
                  3, body);
}

tir::PrimFunc AllMathFunc(const std::string& name, DType t, int64_t n) {
  using te::Intrinsic;
  const Intrinsic all[] = {Intrinsic::kExp,     Intrinsic::kLog, Intrinsic::kSqrt, Intrinsic::kRsqrt,
                           Intrinsic::kTanh,    Intrinsic::kErf, Intrinsic::kSigmoid, Intrinsic::kPow,
                           Intrinsic::kAbs,     Intrinsic::kFloor, Intrinsic::kCeil};
  std::vector<tir::Buffer> buffers = {Arg("x", t, {n}), Arg("y", t, {n})};
  std::vector<tir::Stmt> stmts;
  int64_t var = 1;
  for (Intrinsic f : all) {
    const int out = static_cast<int>(buffers.size());
    buffers.push_back(Arg(std::string(te::IntrinsicName(f)), t, {2 * n}, tir::ArgRole::kOutput));
    for (ForKind kind : {ForKind::kVectorized, ForKind::kSerial}) {
      Expr v = te::MakeVar("i", var++);
      std::vector<Expr> args = {te::Load(t, 0, {v})};
      if (te::IntrinsicArity(f) == 2) args.push_back(te::Load(t, 1, {v}));
      int64_t offset = kind == ForKind::kSerial ? n : 0;
      stmts.push_back(tir::For(v, n, kind, tir::Store(out, v + offset, te::Call(f, args))));
    }
  }
  return MakeFunc(name, buffers, static_cast<int>(buffers.size()), tir::Seq(stmts));
}

std::string DeterminismProbeSha256() {
  absl::StatusOr<Target> target = Target::Parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver3");
  if (!target.ok()) return "bad target";
  absl::StatusOr<std::string> so =
      BuildSharedObject({GemmFunc("gemm", 64, 64, 64), AllMathFunc("math32", te::DType::kFloat32, 100),
                         AllMathFunc("math64", te::DType::kFloat64, 100)},
                        *target);
  if (!so.ok()) return std::string(so.status().message());
  return Sha256Hex(*so);
}

}  // namespace tunefarm::codegen::testing
