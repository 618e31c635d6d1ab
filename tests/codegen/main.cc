// codegen_test's main: GoogleTest, plus a child mode the determinism test runs in a second
// process (same State compiled in two processes must give the same .so bytes).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "tests/codegen/test_kernels.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--print-determinism-probe") == 0) {
    std::printf("%s\n", tunefarm::codegen::testing::DeterminismProbeSha256().c_str());
    return 0;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
