// Data blobs embedded in a kernel library (the model artifact's plan and parameters): the bytes,
// the _size symbol, the alignment and the section come out as asked, the library still imports
// nothing but memcpy/memset/memmove, bad blobs are refused, and a ResNet-18-sized blob builds in
// seconds.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>

#include "compiler/codegen/host_target.h"
#include "common/strings.h"
#include "tests/codegen/kernel_runner.h"
#include "tests/codegen/test_kernels.h"

namespace tunefarm::codegen::testing {
namespace {

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string bytes(n, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
  return bytes;
}

// dlopens a .so and closes it at scope exit.
class Loaded {
 public:
  explicit Loaded(const std::string& so_bytes) {
    path_ = WriteTempFile(so_bytes, ".so");
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(handle_, nullptr) << dlerror();
  }
  ~Loaded() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  const void* Symbol(const char* name) const { return handle_ == nullptr ? nullptr : dlsym(handle_, name); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* handle_ = nullptr;
};

void ExpectBlob(const Loaded& so, const std::string& symbol, const std::string& bytes, uintptr_t alignment) {
  SCOPED_TRACE(symbol);
  const auto* data = static_cast<const char*>(so.Symbol(symbol.c_str()));
  const auto* size = static_cast<const uint64_t*>(so.Symbol((symbol + "_size").c_str()));
  ASSERT_NE(data, nullptr);
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(*size, bytes.size());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % alignment, 0u);
  EXPECT_EQ(std::memcmp(data, bytes.data(), bytes.size()), 0);
}

TEST(EmbeddedBlob, BytesSizeAlignmentAndSection) {
  const std::string big = RandomBytes(3 << 20, 1), small = "plan{}", odd = RandomBytes(77, 2);
  std::vector<EmbeddedBlob> blobs = {{"tunefarm_model_params", big, 64, ".tunefarm.params"},
                                     {"tunefarm_model_plan", small, 64, ".rodata"},
                                     {"page_aligned", odd, 4096, ""}};
  absl::StatusOr<std::string> so = BuildSharedObject({GemmFunc("gemm", 8, 8, 8)}, HostTarget(), blobs);
  ASSERT_TRUE(so.ok()) << so.status();
  EXPECT_GT(so->size(), big.size());
  for (const std::string& sym : UndefinedSymbols(*so)) {
    EXPECT_TRUE(sym == "memcpy" || sym == "memset" || sym == "memmove") << "imports " << sym;
  }
  Loaded loaded(*so);
  ExpectBlob(loaded, "tunefarm_model_params", big, 64);
  ExpectBlob(loaded, "tunefarm_model_plan", small, 64);
  ExpectBlob(loaded, "page_aligned", odd, 4096);
  EXPECT_NE(loaded.Symbol("gemm"), nullptr);  // the kernels are still there

  // The params blob is in its own section, and that section holds nothing but it.
  std::string sections = RunCommand(StrCat(TF_LLVM_TOOLS_DIR, "/llvm-readelf -S -W ", loaded.path()));
  EXPECT_NE(sections.find(".tunefarm.params"), std::string::npos) << sections;
  std::string symbols = RunCommand(StrCat(TF_LLVM_TOOLS_DIR, "/llvm-objdump -t ", loaded.path()));
  EXPECT_NE(symbols.find(".tunefarm.params\t0000000000300000 tunefarm_model_params"), std::string::npos) << symbols;
}

TEST(EmbeddedBlob, NoBlobsBuildsTheSameLibraryAsBefore) {
  auto plain = BuildSharedObject({GemmFunc("gemm", 8, 8, 8)}, HostTarget());
  auto empty = BuildSharedObject({GemmFunc("gemm", 8, 8, 8)}, HostTarget(), {});
  ASSERT_TRUE(plain.ok() && empty.ok());
  EXPECT_EQ(*plain, *empty);
}

TEST(EmbeddedBlob, EmptyBlobHasSizeZero) {
  auto so = BuildSharedObject({GemmFunc("gemm", 8, 8, 8)}, HostTarget(), {{"empty_blob", "", 64, ""}});
  ASSERT_TRUE(so.ok()) << so.status();
  Loaded loaded(*so);
  const auto* size = static_cast<const uint64_t*>(loaded.Symbol("empty_blob_size"));
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(*size, 0u);
}

TEST(EmbeddedBlob, BadBlobsAreRefused) {
  struct Case {
    EmbeddedBlob blob;
    std::string message;
  };
  const Case cases[] = {
      {{"1bad", "x", 64, ""}, "\"1bad\" is not a C identifier"},
      {{"has space", "x", 64, ""}, "is not a C identifier"},
      {{"gemm", "x", 64, ""}, "\"gemm\" is already defined"},
      {{"tunefarm_metadata", "x", 64, ""}, "\"tunefarm_metadata\" is already defined"},
      {{"ok", "x", 48, ""}, "alignment 48 is not a power of two"},
      {{"ok", "x", 0, ""}, "alignment 0 is not a power of two"},
  };
  for (const Case& c : cases) {
    auto so = BuildSharedObject({GemmFunc("gemm", 8, 8, 8)}, HostTarget(), {c.blob});
    ASSERT_FALSE(so.ok()) << c.blob.symbol;
    EXPECT_EQ(so.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(so.status().message()).find(c.message), std::string::npos) << so.status();
  }
  // Two blobs of one name, and a blob whose _size collides with another blob.
  auto twice = BuildSharedObject({GemmFunc("gemm", 8, 8, 8)}, HostTarget(), {{"a", "1", 64, ""}, {"a", "2", 64, ""}});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(std::string(twice.status().message()).find("\"a\" is already defined"), std::string::npos)
      << twice.status();
  auto size_clash =
      BuildSharedObject({GemmFunc("gemm", 8, 8, 8)}, HostTarget(), {{"a_size", "1", 64, ""}, {"a", "2", 64, ""}});
  ASSERT_FALSE(size_clash.ok());
  EXPECT_NE(std::string(size_clash.status().message()).find("\"a_size\" is already defined"), std::string::npos)
      << size_clash.status();
}

// ResNet-18's parameters are 46 MB: the blob must cost a copy, not a constant per byte.
TEST(EmbeddedBlob, ResNetSizedBlobBuildsInSeconds) {
  const std::string params = RandomBytes(46 << 20, 3);
  auto object_start = std::chrono::steady_clock::now();
  ASSERT_TRUE(BuildObject({GemmFunc("gemm", 8, 8, 8)}, HostTarget(), {{"p", params, 64, ".tunefarm.params"}}).ok());
  const double object = std::chrono::duration<double>(std::chrono::steady_clock::now() - object_start).count();
  auto start = std::chrono::steady_clock::now();
  auto so = BuildSharedObject({GemmFunc("gemm", 8, 8, 8)}, HostTarget(),
                              {{"tunefarm_model_params", params, 64, ".tunefarm.params"}});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(so.ok()) << so.status();
  auto base_start = std::chrono::steady_clock::now();
  ASSERT_TRUE(BuildSharedObject({GemmFunc("gemm", 8, 8, 8)}, HostTarget()).ok());
  const double base = std::chrono::duration<double>(std::chrono::steady_clock::now() - base_start).count();
  RecordProperty("blob_46mb_build_seconds", std::to_string(seconds));
  std::printf("46 MB blob: object %.2f s, shared object %.2f s; the same library without it %.2f s\n", object,
              seconds, base);
  EXPECT_LT(seconds - base, 15.0);  // generous: the machine is shared; one constant per byte takes minutes
  Loaded loaded(*so);
  ExpectBlob(loaded, "tunefarm_model_params", params, 64);
}

}  // namespace
}  // namespace tunefarm::codegen::testing
