// The two ways of linking a kernel object (compiler/codegen/shared_object.h): the ld.lld
// executable gives the same bytes as lld in process, and a bad object is refused by either with
// the linker's message.
#include "compiler/codegen/shared_object.h"

#include <gtest/gtest.h>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/host_target.h"
#include "tests/codegen/test_kernels.h"

namespace tunefarm::codegen::testing {
namespace {

TEST(SharedObject, TheLdLldExecutableLinksTheSameBytesAsLldInProcess) {
  absl::StatusOr<std::string> object = BuildObject({GemmFunc("gemm", 16, 16, 16)}, HostTarget());
  ASSERT_TRUE(object.ok()) << object.status();
  absl::StatusOr<std::string> in_process = LinkSharedObject(*object, Linker::kInProcess);
  absl::StatusOr<std::string> executable = LinkSharedObject(*object, Linker::kExecutable);
  ASSERT_TRUE(in_process.ok()) << in_process.status();
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ(in_process->substr(0, 4), "\x7f" "ELF");
  EXPECT_TRUE(*in_process == *executable) << "the two linkers' outputs differ";
}

TEST(SharedObject, ABadObjectIsRefusedWithTheLinkersMessage) {
  for (Linker linker : {Linker::kInProcess, Linker::kExecutable}) {
    absl::StatusOr<std::string> linked = LinkSharedObject("not an ELF object", linker);
    ASSERT_FALSE(linked.ok());
    EXPECT_NE(linked.status().message().find("lld"), std::string::npos) << linked.status();
    EXPECT_NE(linked.status().message().find("kernel.o"), std::string::npos) << linked.status();
  }
}

}  // namespace
}  // namespace tunefarm::codegen::testing
