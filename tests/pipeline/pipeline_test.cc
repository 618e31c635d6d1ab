// Scheduled kernels through every path that runs them: the loop-IR interpreter, the JIT, and a
// .so loaded by the deploy runtime, at 1 and 3 threads, against plain C++ references.
#include <gtest/gtest.h>

#include <regex>

#include "compiler/codegen/codegen.h"
#include "common/sha256.h"
#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"
#include "tests/codegen/kernel_runner.h"
#include "tests/pipeline/pipeline_schedules.h"

namespace tunefarm::testing {
namespace {

using codegen::testing::Backend;
using codegen::testing::KernelRunner;

struct GemmSize {
  int64_t m, n, k;
};
const GemmSize kGemmSizes[] = {{16, 16, 16}, {37, 29, 23}, {64, 48, 32}, {1, 13, 7}, {8, 100, 3}};

TEST(Pipeline, GemmBiasAgreesOnEveryPath) {
  for (GemmSize sz : kGemmSizes) {
    auto state = TiledGemmBias(sz.m, sz.n, sz.k);
    auto f = tir::Lower(state, "gemm");
    ASSERT_TRUE(f.ok()) << f.status();
    auto a = RandomFloats(sz.m * sz.k, 1), w = RandomFloats(sz.k * sz.n, 2), bias = RandomFloats(sz.n, 3);
    auto ref = GemmBiasReference(a, w, bias, sz.m, sz.n, sz.k);
    std::vector<float> out(sz.m * sz.n, NAN);
    ASSERT_TRUE(tir::Interpret(*f, {a.data(), w.data(), bias.data(), out.data()}).ok());
    EXPECT_LT(MaxAbsDiff(out, ref), 1e-4f) << "interpreter";
    for (Backend backend : {Backend::kJit, Backend::kSharedObject}) {
      auto runner = KernelRunner::Create({*f}, backend);
      for (int threads : {1, 3}) {
        codegen::testing::Array<float> A(a.size()), W(w.size()), B(bias.size()), C(out.size());
        std::copy(a.begin(), a.end(), A.data());
        std::copy(w.begin(), w.end(), W.data());
        std::copy(bias.begin(), bias.end(), B.data());
        std::fill(C.data(), C.data() + C.size, NAN);
        ASSERT_EQ(runner->Run("gemm", {A.data(), W.data(), B.data(), C.data()}, threads), 0);
        std::vector<float> got(C.data(), C.data() + C.size);
        EXPECT_LT(MaxAbsDiff(got, ref), 1e-4f) << codegen::testing::BackendName(backend) << " " << threads
                                               << " threads " << sz.m << "x" << sz.n << "x" << sz.k;
      }
    }
  }
}

TEST(Pipeline, ElementwiseChainAgreesOnEveryPath) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{7, 9}, {64, 33}, {1, 1}}) {
    auto f = tir::Lower(FusedChain(rows, cols), "chain");
    ASSERT_TRUE(f.ok()) << f.status();
    auto x = RandomFloats(rows * cols, 5), y = RandomFloats(rows * cols, 6);
    auto ref = ElementwiseChainReference(x, y);
    for (Backend backend : {Backend::kJit, Backend::kSharedObject}) {
      auto runner = KernelRunner::Create({*f}, backend);
      for (int threads : {1, 3}) {
        codegen::testing::Array<float> X(x.size()), Y(y.size()), R(x.size());
        std::copy(x.begin(), x.end(), X.data());
        std::copy(y.begin(), y.end(), Y.data());
        ASSERT_EQ(runner->Run("chain", {X.data(), Y.data(), R.data()}, threads), 0);
        EXPECT_LT(MaxAbsDiff(std::vector<float>(R.data(), R.data() + R.size), ref), 1e-6f);
      }
    }
  }
}

codegen::Target Znver3() { return *codegen::Target::Parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver3"); }

TEST(Pipeline, GemmSharedObjectImportsNothingAndUsesYmmFma) {
  auto f = tir::Lower(TiledGemmBias(64, 64, 64), "gemm");
  ASSERT_TRUE(f.ok());
  auto so = codegen::BuildSharedObject({*f}, Znver3());
  ASSERT_TRUE(so.ok()) << so.status();
  for (const std::string& sym : codegen::testing::UndefinedSymbols(*so))
    EXPECT_TRUE(sym == "memcpy" || sym == "memset" || sym == "memmove") << sym;
  std::string asm_text = codegen::testing::Disassemble(*so);
  EXPECT_TRUE(std::regex_search(asm_text, std::regex("vfmadd[0-9]+ps\\s+.*%ymm"))) << asm_text.substr(0, 4000);
}

TEST(Pipeline, SameScheduleGivesIdenticalBytesInAnotherProcess) {
  auto original = TiledGemmBias(37, 29, 23);
  auto f = tir::Lower(original, "gemm");
  ASSERT_TRUE(f.ok());
  auto so = codegen::BuildSharedObject({*f}, Znver3());
  ASSERT_TRUE(so.ok());
  std::string self = codegen::testing::RunCommand("readlink -f /proc/" + std::to_string(getpid()) + "/exe");
  self.erase(self.find_last_not_of("\n") + 1);
  std::string child = codegen::testing::RunCommand(self + " --print-so-sha256");
  EXPECT_EQ(child, Sha256Hex(*so) + "\n");
}

TEST(Pipeline, SameScheduleEmitsAnAArch64Object) {
  auto f = tir::Lower(TiledGemmBias(32, 32, 32), "gemm");
  ASSERT_TRUE(f.ok());
  auto target = codegen::Target::Parse("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72");
  ASSERT_TRUE(target.ok());
  auto obj = codegen::BuildObject({*f}, *target);
  ASSERT_TRUE(obj.ok()) << obj.status();
  std::string asm_text = codegen::testing::Disassemble(*obj);
  EXPECT_TRUE(std::regex_search(asm_text, std::regex("fmla\\s+v[0-9]+\\.4s"))) << asm_text.substr(0, 4000);
}

}  // namespace
}  // namespace tunefarm::testing
