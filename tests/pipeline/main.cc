// gtest main, plus a child mode for the cross-process determinism test: prints the SHA-256 of
// the .so built from a schedule replayed from JSON in this fresh process.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/host_target.h"
#include "common/sha256.h"
#include "compiler/tir/lower.h"
#include "tests/pipeline/pipeline_schedules.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--print-so-sha256") == 0) {
    using namespace tunefarm;
    auto original = tunefarm::testing::TiledGemmBias(37, 29, 23);
    auto replayed = schedule::State::FromJson(original.original_dag(), original.ToJson());
    auto target = codegen::Target::Parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver3");
    if (!replayed.ok() || !target.ok()) return 1;
    auto f = tir::Lower(*replayed, "gemm");
    if (!f.ok()) return 1;
    auto so = codegen::BuildSharedObject(std::vector<tir::PrimFunc>{*f}, *target);
    if (!so.ok()) return 1;
    std::printf("%s\n", Sha256Hex(*so).c_str());
    return 0;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
