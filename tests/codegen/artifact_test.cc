// What the generated code looks like: imports and exports of the .so, FMA instructions on
// x86 and AArch64, vector shapes in the IR, byte-identical output across builds and
// processes, and errors returned as Status.
#include <gtest/gtest.h>
#include <unistd.h>

#include <regex>

#include "compiler/codegen/host_target.h"
#include "compiler/codegen/metadata.h"
#include "common/sha256.h"
#include "common/strings.h"
#include "tests/codegen/kernel_runner.h"
#include "tests/codegen/test_kernels.h"

namespace tunefarm::codegen::testing {
namespace {

using te::DType;
using te::Expr;
using tir::ForKind;

constexpr DType kF32 = DType::kFloat32;
constexpr char kZnver3[] = "llvm -mtriple=x86_64-linux-gnu -mcpu=znver3";
constexpr char kCortexA72[] = "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72";

Target ParseOrDie(const std::string& text) {
  absl::StatusOr<Target> t = Target::Parse(text);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Target();
}

// A vectorized loop whose body has a lane-dependent if: must stay scalar.
tir::PrimFunc TailFunc() {
  Expr jo = te::MakeVar("jo", 1), ji = te::MakeVar("ji", 2);
  Expr j = jo * 32 + ji;
  tir::Stmt body = tir::For(
      jo, 4, ForKind::kSerial,
      tir::For(ji, 32, ForKind::kVectorized,
               tir::IfThenElse(te::Lt(j, 100), tir::Store(1, j, te::Load(kF32, 0, {j}) + te::FloatImm(kF32, 1)))));
  return MakeFunc("tail", {Arg("A", kF32, {100}), Arg("C", kF32, {100}, tir::ArgRole::kOutput)}, 2, body);
}

// C[c*8 + r] = A[r*24 + c]: a contiguous load and a strided store (scatter).
tir::PrimFunc TransposeFunc() {
  Expr r = te::MakeVar("r", 1), c = te::MakeVar("c", 2);
  tir::Stmt body = tir::For(r, 8, ForKind::kSerial,
                            tir::For(c, 24, ForKind::kVectorized, tir::Store(1, c * 8 + r, te::Load(kF32, 0, {r * 24 + c}))));
  return MakeFunc("transpose", {Arg("A", kF32, {192}), Arg("C", kF32, {192}, tir::ArgRole::kOutput)}, 2, body);
}

std::vector<tir::PrimFunc> ManyKernels() {
  return {GemmFunc("gemm", 32, 48, 16), AllMathFunc("math32", DType::kFloat32, 37),
          AllMathFunc("math64", DType::kFloat64, 37), TailFunc(), TransposeFunc()};
}

TEST(ArtifactTest, SharedObjectsImportOnlyMemFunctions) {
  for (std::string target : {HostTarget().ToString(), std::string(kZnver3), std::string("llvm -mtriple=x86_64-linux-gnu"),
                             std::string(kCortexA72)}) {
    SCOPED_TRACE(target);
    absl::StatusOr<std::string> so = BuildSharedObject(ManyKernels(), ParseOrDie(target));
    ASSERT_TRUE(so.ok()) << so.status();
    for (const std::string& sym : UndefinedSymbols(*so)) {
      EXPECT_TRUE(sym == "memcpy" || sym == "memset" || sym == "memmove") << "imports " << sym;
    }
    std::string path = WriteTempFile(*so, ".so");
    std::string defined = RunCommand(StrCat(TF_LLVM_TOOLS_DIR, "/llvm-nm -D --defined-only ", path));
    for (const char* sym : {"tunefarm_abi_version", "tunefarm_metadata", "tunefarm_host_api", "gemm", "math32",
                            "math64", "tail", "transpose"}) {
      EXPECT_TRUE(std::regex_search(defined, std::regex(StrCat(" ", sym, "\n")))) << sym << " not exported:\n"
                                                                                 << defined;
    }
    EXPECT_EQ(defined.find(".impl"), std::string::npos) << defined;
    EXPECT_EQ(defined.find(".par"), std::string::npos) << defined;
    std::string needed = RunCommand(StrCat(TF_LLVM_TOOLS_DIR, "/llvm-readelf -d ", path));
    EXPECT_EQ(needed.find("NEEDED"), std::string::npos) << "the .so must not depend on libc:\n" << needed;
  }
}

// The import check above must be able to see an import: a zero-filling loop becomes memset.
TEST(ArtifactTest, ImportCheckSeesMemset) {
  Expr i = te::MakeVar("i", 1);
  tir::PrimFunc zero = MakeFunc("zero", {Arg("C", kF32, {4096}, tir::ArgRole::kOutput)}, 1,
                                tir::For(i, 4096, ForKind::kSerial, tir::Store(0, i, te::FloatImm(kF32, 0))));
  absl::StatusOr<std::string> so = BuildSharedObject({zero}, HostTarget());
  ASSERT_TRUE(so.ok()) << so.status();
  EXPECT_EQ(UndefinedSymbols(*so), std::vector<std::string>{"memset"});
  auto runner = KernelRunner::Create({zero}, Backend::kSharedObject);
  ASSERT_NE(runner, nullptr);
  Array<float> c(4096);
  c.buffer.Fill(3.0f);
  ASSERT_EQ(runner->Run("zero", {c.data()}, 1), 0);
  for (int p = 0; p < 4096; ++p) ASSERT_EQ(c[p], 0.0f);
}

TEST(ArtifactTest, GemmUsesFmaOnYmmForZnver3) {
  absl::StatusOr<std::string> so = BuildSharedObject({GemmFunc("gemm", 64, 64, 64)}, ParseOrDie(kZnver3));
  ASSERT_TRUE(so.ok()) << so.status();
  std::string asm_text = Disassemble(*so);
  EXPECT_TRUE(std::regex_search(asm_text, std::regex(R"(vfmadd\w+\s+.*%ymm)"))) << asm_text.substr(0, 4000);
}

TEST(ArtifactTest, AArch64ObjectUsesFmlaOnFourLanes) {
  absl::StatusOr<std::string> object = BuildObject({GemmFunc("gemm", 64, 64, 64)}, ParseOrDie(kCortexA72));
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ(object->substr(0, 4), "\x7f" "ELF");
  std::string asm_text = Disassemble(*object);
  EXPECT_TRUE(std::regex_search(asm_text, std::regex(R"(fmla\s+v\d+\.4s)"))) << asm_text.substr(0, 4000);
  // The math kernels stay call-free on AArch64 too.
  absl::StatusOr<std::string> math = BuildObject({AllMathFunc("m", DType::kFloat32, 16)}, ParseOrDie(kCortexA72));
  ASSERT_TRUE(math.ok()) << math.status();
  std::string math_asm = Disassemble(*math);
  EXPECT_FALSE(std::regex_search(math_asm, std::regex(R"(\sbl\s+<?(exp|log|tanh|erf|pow|floor|ceil|sqrt))")))
      << "libm call in the AArch64 math kernel";
}

TEST(ArtifactTest, VectorizedLoopsBecomeVectorIr) {
  Target znver3 = ParseOrDie(kZnver3);
  absl::StatusOr<std::string> gemm = EmitLlvmIr({GemmFunc("gemm", 8, 64, 8)}, znver3, /*optimized=*/false);
  ASSERT_TRUE(gemm.ok()) << gemm.status();
  // 64 lanes of float on a 256-bit target: chunks of 4 registers = 32 lanes, contiguous.
  EXPECT_NE(gemm->find("load <32 x float>"), std::string::npos) << *gemm;
  EXPECT_NE(gemm->find("store <32 x float>"), std::string::npos);
  EXPECT_EQ(gemm->find("masked.gather"), std::string::npos);

  absl::StatusOr<std::string> tail = EmitLlvmIr({TailFunc()}, znver3, /*optimized=*/false);
  ASSERT_TRUE(tail.ok()) << tail.status();
  EXPECT_EQ(tail->find("x float>"), std::string::npos) << "lane-dependent if must fall back to scalar:\n" << *tail;

  absl::StatusOr<std::string> transpose = EmitLlvmIr({TransposeFunc()}, znver3, /*optimized=*/false);
  ASSERT_TRUE(transpose.ok()) << transpose.status();
  // 24 lanes, three registers: a chunk of two and one of one, never a <24 x float> (vector_plan.h).
  EXPECT_NE(transpose->find("load <16 x float>"), std::string::npos) << *transpose;
  EXPECT_NE(transpose->find("load <8 x float>"), std::string::npos) << *transpose;
  EXPECT_EQ(transpose->find("<24 x float>"), std::string::npos) << *transpose;
  EXPECT_NE(transpose->find("llvm.masked.scatter"), std::string::npos) << *transpose;

  absl::StatusOr<std::string> math = EmitLlvmIr({AllMathFunc("m", DType::kFloat32, 64)}, znver3);
  ASSERT_TRUE(math.ok()) << math.status();
  EXPECT_NE(math->find("<32 x float>"), std::string::npos) << "the vectorized math loops stay vectors";
  // Only LLVM intrinsics are called (sqrt, fabs, fmuladd, ...), never a library function.
  EXPECT_FALSE(std::regex_search(*math, std::regex(R"(call [^@\n]*@(?!llvm\.))"))) << *math;
}

TEST(ArtifactTest, ParallelLoopIsOutlinedThroughTheHostApi) {
  absl::StatusOr<std::string> ir = EmitLlvmIr({GemmFunc("gemm", 8, 8, 8)}, ParseOrDie(kZnver3), /*optimized=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_TRUE(std::regex_search(*ir, std::regex(R"(define internal i32 @gemm\.par0\(i32 .*, i32 .*, ptr .*\))"))) << *ir;
  EXPECT_TRUE(std::regex_search(*ir, std::regex(R"(define internal i32 @gemm\.impl\(ptr noalias align 64 dereferenceable\(256\))")))
      << *ir;
  EXPECT_NE(ir->find("@tunefarm_host_api = global ptr null"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("@tunefarm_abi_version = constant i32 1"), std::string::npos) << *ir;
}

TEST(ArtifactTest, SameInputsGiveIdenticalBytes) {
  Target target = ParseOrDie(kZnver3);
  absl::StatusOr<std::string> first = BuildSharedObject(ManyKernels(), target);
  absl::StatusOr<std::string> second = BuildSharedObject(ManyKernels(), target);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(Sha256Hex(*first), Sha256Hex(*second));
  absl::StatusOr<std::string> obj1 = BuildObject(ManyKernels(), ParseOrDie(kCortexA72));
  absl::StatusOr<std::string> obj2 = BuildObject(ManyKernels(), ParseOrDie(kCortexA72));
  ASSERT_TRUE(obj1.ok() && obj2.ok());
  EXPECT_TRUE(*obj1 == *obj2);
}

TEST(ArtifactTest, SameInputsGiveIdenticalBytesInAnotherProcess) {
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  ASSERT_GT(len, 0);
  exe[len] = '\0';
  std::string child = RunCommand(StrCat("'", exe, "' --print-determinism-probe"));
  std::string mine = DeterminismProbeSha256();
  EXPECT_EQ(mine.size(), 64u) << mine;
  EXPECT_EQ(child, mine + "\n");
}

TEST(ArtifactTest, MetadataJsonIsCanonical) {
  tir::Buffer idx = Arg("idx", DType::kInt32, {4});
  idx.has_range = true;
  idx.range_min = -1;
  idx.range_max = 3;
  Expr i = te::MakeVar("i", 1);
  tir::PrimFunc f = MakeFunc("k\"q", {Arg("a", kF32, {2, 3}), idx, Arg("o", kF32, {4}, tir::ArgRole::kOutput)}, 3,
                             tir::For(i, 4, ForKind::kSerial, tir::Store(2, i, te::FloatImm(kF32, 0))), 128);
  EXPECT_EQ(BuildMetadataJson({f}, ParseOrDie(kZnver3)),
            "{\"format\":1,\"target\":\"llvm -mtriple=x86_64-linux-gnu -mcpu=znver3\",\"entries\":[{\"name\":"
            "\"k\\\"q\",\"workspace_bytes\":128,\"args\":[{\"name\":\"a\",\"dtype\":\"float32\",\"shape\":[2,3],"
            "\"role\":\"in\"},{\"name\":\"idx\",\"dtype\":\"int32\",\"shape\":[4],\"role\":\"in\",\"range\":[-1,3]},"
            "{\"name\":\"o\",\"dtype\":\"float32\",\"shape\":[4],\"role\":\"out\"}]}]}");
}

// --- Errors come back as Status ---

TEST(ArtifactErrorTest, VerifierErrorIsAStatus) {
  const char* ir = R"(
define i32 @broken(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  %x = add i32 1, 2
  br label %b
b:
  ret i32 %x
}
)";
  absl::StatusOr<std::string> object = BuildObjectFromLlvmIr(ir, ParseOrDie(kZnver3));
  ASSERT_FALSE(object.ok());
  EXPECT_NE(object.status().message().find("dominate"), std::string::npos) << object.status();
  absl::StatusOr<std::string> garbage = BuildObjectFromLlvmIr("define nonsense", ParseOrDie(kZnver3));
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::string> fine = BuildObjectFromLlvmIr("define i32 @ok() { ret i32 0 }", ParseOrDie(kZnver3));
  EXPECT_TRUE(fine.ok()) << fine.status();
}

TEST(ArtifactErrorTest, MalformedPrimFuncsAreStatuses) {
  Expr i = te::MakeVar("i", 1), j = te::MakeVar("j", 2);
  auto func = [&](std::vector<tir::Buffer> buffers, int num_args, tir::Stmt body, int64_t ws = 0) {
    return MakeFunc("f", std::move(buffers), num_args, std::move(body), ws);
  };
  tir::Buffer a = Arg("a", kF32, {8}), o = Arg("o", kF32, {8}, tir::ArgRole::kOutput);
  tir::Stmt ok_store = tir::Store(1, i, te::Load(kF32, 0, {i}));
  struct Case {
    std::string what;
    std::vector<tir::PrimFunc> funcs;
    std::string message;
  };
  tir::PrimFunc bad_name = func({a, o}, 2, tir::For(i, 8, ForKind::kSerial, ok_store));
  bad_name.name = "2bad";
  tir::PrimFunc reserved = bad_name;
  reserved.name = "tunefarm_x";
  std::vector<Case> cases = {
      {"unbound variable", {func({a, o}, 2, tir::For(i, 8, ForKind::kSerial, tir::Store(1, j, te::Load(kF32, 0, {i}))))},
       "outside its loop"},
      {"store dtype", {func({a, Arg("o", DType::kInt32, {8}, tir::ArgRole::kOutput)}, 2, tir::For(i, 8, ForKind::kSerial, ok_store))},
       "another dtype"},
      {"unknown buffer", {func({a, o}, 2, tir::For(i, 8, ForKind::kSerial, tir::Store(5, i, te::FloatImm(kF32, 0))))},
       "unknown buffer"},
      {"bad name", {bad_name}, "C identifier"},
      {"reserved name", {reserved}, "C identifier"},
      {"duplicate entry", {func({a, o}, 2, tir::For(i, 8, ForKind::kSerial, ok_store)), func({a, o}, 2, tir::For(i, 8, ForKind::kSerial, ok_store))},
       "two PrimFuncs"},
      {"input after output", {func({o, a}, 2, tir::For(i, 8, ForKind::kSerial, tir::Store(0, i, te::Load(kF32, 1, {i}))))},
       "after an output"},
      {"workspace overflow", {func({a, o, Workspace("w", kF32, {8}, 64)}, 2, tir::For(i, 8, ForKind::kSerial, ok_store), 64)},
       "outside"},
      {"loop var bound twice", {func({a, o}, 2, tir::For(i, 8, ForKind::kSerial, tir::For(i, 8, ForKind::kSerial, ok_store)))},
       "bound twice"},
      {"no funcs", {}, "no PrimFuncs"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::string> so = BuildSharedObject(c.funcs, HostTarget());
    ASSERT_FALSE(so.ok()) << c.what;
    EXPECT_EQ(so.status().code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_NE(so.status().message().find(c.message), std::string::npos) << c.what << ": " << so.status();
  }
}

TEST(ArtifactErrorTest, UnknownCpuOrFeatureIsAStatus) {
  for (const char* text : {"llvm -mtriple=x86_64-linux-gnu -mcpu=pentium9000",
                           "llvm -mtriple=x86_64-linux-gnu -mattr=+warp-drive",
                           "llvm -mtriple=aarch64-linux-gnu -mcpu=znver3"}) {
    absl::StatusOr<std::string> so = BuildSharedObject({GemmFunc("gemm", 4, 4, 4)}, ParseOrDie(text));
    ASSERT_FALSE(so.ok()) << text;
    EXPECT_EQ(so.status().code(), absl::StatusCode::kInvalidArgument) << so.status();
  }
}

}  // namespace
}  // namespace tunefarm::codegen::testing
