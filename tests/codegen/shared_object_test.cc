// The two ways of linking a kernel object (compiler/codegen/shared_object.h): the ld.lld
// executable gives the same bytes as lld in process, and a bad object is refused by either with
// the linker's message. Kernels compiled apart link into one library (the tuner's batches).
#include "compiler/codegen/shared_object.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/host_target.h"
#include "common/strings.h"
#include "deploy/aligned_buffer.h"
#include "deploy/kernel_library.h"
#include "deploy/thread_pool.h"
#include "tests/codegen/kernel_runner.h"
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

// C = A * B through entry `name` of `library`, against the naive product on random inputs.
void ExpectGemm(deploy::KernelLibrary& library, const std::string& name, int64_t m, int64_t n, int64_t k) {
  std::mt19937 rng(static_cast<unsigned>(m * 131 + n * 7 + k));
  std::uniform_real_distribution<float> value(-1, 1);
  auto buffer = [](int64_t count) { return std::move(deploy::AlignedBuffer::Allocate(count * 4).value()); };
  deploy::AlignedBuffer a = buffer(m * k), b = buffer(k * n), c = buffer(m * n);
  float* pa = reinterpret_cast<float*>(a.data());
  float* pb = reinterpret_cast<float*>(b.data());
  for (int64_t i = 0; i < m * k; ++i) pa[i] = value(rng);
  for (int64_t i = 0; i < k * n; ++i) pb[i] = value(rng);
  void* args[] = {a.data(), b.data(), c.data()};
  deploy::Status called = library.Call(name, args, 3);
  ASSERT_TRUE(called.ok()) << name << ": " << called.ToString();
  const float* pc = reinterpret_cast<const float*>(c.data());
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t p = 0; p < k; ++p) want += static_cast<double>(pa[i * k + p]) * pb[p * n + j];
      ASSERT_NEAR(pc[i * n + j], want, 1e-4) << name << " at " << i << "," << j;
    }
  }
}

TEST(SharedObject, KernelsCompiledApartLinkIntoOneLibraryWithOneSetOfAbiGlobals) {
  const std::vector<tir::PrimFunc> first = {GemmFunc("gemm_a", 16, 32, 8)};
  const std::vector<tir::PrimFunc> second = {GemmFunc("gemm_b", 8, 16, 24)};
  absl::StatusOr<std::string> a = BuildObject(first, HostTarget(), {}, AbiGlobals::kElsewhere);
  absl::StatusOr<std::string> b = BuildObject(second, HostTarget(), {}, AbiGlobals::kElsewhere);
  absl::StatusOr<std::string> globals = BuildLibraryGlobalsObject({first[0], second[0]}, HostTarget());
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE(globals.ok()) << globals.status();
  // An entries-only object defines no ABI global; it refers to the host API pointer (GEMM's
  // parallel loop) that the globals object defines.
  const std::string symbols = RunCommand(StrCat(TF_LLVM_TOOLS_DIR, "/llvm-nm ", WriteTempFile(*a, ".o")));
  EXPECT_EQ(symbols.find("tunefarm_metadata"), std::string::npos) << symbols;
  EXPECT_EQ(symbols.find("tunefarm_abi_version"), std::string::npos) << symbols;
  EXPECT_NE(symbols.find("U tunefarm_host_api"), std::string::npos) << symbols;

  const std::string objects[] = {*a, *b, *globals};
  absl::StatusOr<std::string> so = LinkSharedObject(objects);
  ASSERT_TRUE(so.ok()) << so.status();
  deploy::ThreadPool pool(2);
  auto library = deploy::KernelLibrary::LoadFromBytes(so->data(), so->size(), "batch.so", &pool);
  ASSERT_TRUE(library.ok()) << library.status().ToString();
  ASSERT_EQ((*library)->metadata().entries.size(), 2u);
  ExpectGemm(**library, "gemm_a", 16, 32, 8);
  ExpectGemm(**library, "gemm_b", 8, 16, 24);

  // Two objects that both define the globals do not link: the reason kElsewhere exists.
  absl::StatusOr<std::string> whole_a = BuildObject(first, HostTarget());
  absl::StatusOr<std::string> whole_b = BuildObject(second, HostTarget());
  ASSERT_TRUE(whole_a.ok() && whole_b.ok());
  const std::string both[] = {*whole_a, *whole_b};
  absl::StatusOr<std::string> clash = LinkSharedObject(both);
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.status().message().find("duplicate symbol"), std::string::npos) << clash.status();
}

}  // namespace
}  // namespace tunefarm::codegen::testing
