#include "deploy/kernel_library.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace tunefarm::deploy {
namespace {

constexpr int kVaddN = 1003;  // the size vector_add.c is built for

std::unique_ptr<KernelLibrary> MustLoad(const std::string& path, ThreadPool* pool) {
  Result<std::unique_ptr<KernelLibrary>> library = KernelLibrary::Load(path, pool);
  EXPECT_TRUE(library.ok()) << library.status().ToString();
  return library.ok() ? std::move(library).value() : nullptr;
}

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The loader's result must be an error of `code` whose message contains every one of `parts`.
void ExpectLoadError(const Result<std::unique_ptr<KernelLibrary>>& library, StatusCode code,
                     const std::vector<std::string>& parts) {
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), code) << library.status().ToString();
  for (const std::string& part : parts) {
    EXPECT_TRUE(Contains(library.status().message(), part))
        << "missing \"" << part << "\" in: " << library.status().message();
  }
}

struct VaddBuffers {
  VaddBuffers() {
    a = AlignedBuffer::Allocate(kVaddN * sizeof(float)).value();
    b = AlignedBuffer::Allocate(kVaddN * sizeof(float)).value();
    c = AlignedBuffer::Allocate(kVaddN * sizeof(float)).value();
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int i = 0; i < kVaddN; ++i) {
      a.As<float>()[i] = dist(rng);
      b.As<float>()[i] = dist(rng);
    }
    c.Fill<float>(NAN);
  }
  // Counts the elements of c that differ from the plain reference a + b.
  int Mismatches() const {
    int bad = 0;
    for (int i = 0; i < kVaddN; ++i) {
      if (!(c.As<float>()[i] == a.As<float>()[i] + b.As<float>()[i])) ++bad;
    }
    return bad;
  }
  AlignedBuffer a, b, c;
  void* args[3] = {nullptr, nullptr, nullptr};
  void** Args() {
    args[0] = a.data();
    args[1] = b.data();
    args[2] = c.data();
    return args;
  }
};

// ---- Running kernels, at 1 and 3 threads ----

class KernelLibraryThreads : public ::testing::TestWithParam<int32_t> {
 protected:
  ThreadPool pool_{GetParam()};
};

TEST_P(KernelLibraryThreads, VectorAddMatchesReference) {
  auto library = MustLoad(DEPLOY_KERNEL_VECTOR_ADD, &pool_);
  ASSERT_NE(library, nullptr);
  VaddBuffers buffers;
  ASSERT_EQ(buffers.Mismatches(), kVaddN);  // NaN-filled: the check can fail
  for (int run = 0; run < 50; ++run) {
    buffers.c.Fill<float>(NAN);
    Status status = library->Call("vadd", buffers.Args(), 3);
    ASSERT_TRUE(status.ok()) << status.ToString();
    ASSERT_EQ(buffers.Mismatches(), 0) << "run " << run;
  }
}

TEST_P(KernelLibraryThreads, NestedParallelForRunsInlineInOrder) {
  auto library = MustLoad(DEPLOY_KERNEL_NESTED, &pool_);
  ASSERT_NE(library, nullptr);
  AlignedBuffer order = AlignedBuffer::Allocate(4 * 5 * sizeof(int32_t)).value();
  order.FillBytes(0xFF);
  void* args[] = {order.data()};
  Status status = library->Call("nested_order", args, 1);
  ASSERT_TRUE(status.ok()) << status.ToString();
  for (int outer = 0; outer < 4; ++outer) {
    for (int inner = 0; inner < 5; ++inner) {
      EXPECT_EQ(order.As<int32_t>()[outer * 5 + inner], inner) << outer << "," << inner;
    }
  }
}

TEST_P(KernelLibraryThreads, NestedErrorReachesTheCaller) {
  auto library = MustLoad(DEPLOY_KERNEL_NESTED, &pool_);
  ASSERT_NE(library, nullptr);
  Status status = library->Call("nested_error", nullptr, 0);
  EXPECT_EQ(status.code(), StatusCode::kKernelError);
  EXPECT_EQ(status.kernel_code(), 52);
}

TEST_P(KernelLibraryThreads, FirstNonZeroTaskCodeIsReturned) {
  auto library = MustLoad(DEPLOY_KERNEL_VECTOR_ADD, &pool_);
  ASSERT_NE(library, nullptr);
  AlignedBuffer ran = AlignedBuffer::Allocate(10 * sizeof(int32_t)).value();
  void* args[] = {ran.data()};
  Status status = library->Call("task_errors", args, 1);
  EXPECT_EQ(status.code(), StatusCode::kKernelError);
  EXPECT_EQ(status.kernel_code(), 33);  // tasks 3, 6 and 8 fail with 33, 36, 38
  for (int t = 0; t < 10; ++t) EXPECT_EQ(ran.As<int32_t>()[t], 1) << "task " << t << " skipped";
}

INSTANTIATE_TEST_SUITE_P(Threads, KernelLibraryThreads, ::testing::Values(1, 3));

TEST(KernelLibrary, RunsInlineWithoutAPool) {
  auto library = MustLoad(DEPLOY_KERNEL_VECTOR_ADD, nullptr);
  ASSERT_NE(library, nullptr);
  EXPECT_EQ(library->thread_pool(), nullptr);
  VaddBuffers buffers;
  ASSERT_TRUE(library->Call("vadd", buffers.Args(), 3).ok());
  EXPECT_EQ(buffers.Mismatches(), 0);
}

TEST(KernelLibrary, KernelErrorCodeAndMessage) {
  auto library = MustLoad(DEPLOY_KERNEL_VECTOR_ADD, nullptr);
  ASSERT_NE(library, nullptr);
  Status status = library->Call("fail7", nullptr, 0);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kKernelError);
  EXPECT_EQ(status.kernel_code(), 7);
  EXPECT_TRUE(Contains(status.message(), DEPLOY_KERNEL_VECTOR_ADD)) << status.message();
  EXPECT_TRUE(Contains(status.message(), "\"fail7\" returned error 7")) << status.message();
}

TEST(KernelLibrary, WorkspaceIsProvidedAlignedAndReused) {
  auto library = MustLoad(DEPLOY_KERNEL_VECTOR_ADD, nullptr);
  ASSERT_NE(library, nullptr);
  ASSERT_EQ(library->metadata().FindEntry("workspace_probe")->workspace_bytes, 4096u);
  AlignedBuffer address = AlignedBuffer::Allocate(sizeof(uint64_t)).value();
  void* args[] = {address.data()};
  Status status = library->Call("workspace_probe", args, 1);
  ASSERT_TRUE(status.ok()) << status.ToString();  // 3 would mean no workspace
  const uint64_t first = address.As<uint64_t>()[0];
  EXPECT_NE(first, 0u);
  EXPECT_EQ(first % TUNEFARM_BUFFER_ALIGNMENT, 0u);
  ASSERT_TRUE(library->Call("workspace_probe", args, 1).ok());
  EXPECT_EQ(address.As<uint64_t>()[0], first);
}

TEST(KernelLibrary, ArgumentCountMismatchIsRefusedBeforeTheCall) {
  auto library = MustLoad(DEPLOY_KERNEL_VECTOR_ADD, nullptr);
  ASSERT_NE(library, nullptr);
  VaddBuffers buffers;
  Status status = library->Call("vadd", buffers.Args(), 2);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(status.message(), "entry \"vadd\" takes 3 arguments (a, b, c), got 2"))
      << status.message();
  EXPECT_EQ(buffers.Mismatches(), kVaddN);  // the kernel never ran
  EXPECT_EQ(library->Call("vadd", buffers.Args(), 4).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(library->Call("vadd", nullptr, 3).code(), StatusCode::kInvalidArgument);
}

TEST(KernelLibrary, NullAndMisalignedArgumentsAreRefused) {
  auto library = MustLoad(DEPLOY_KERNEL_VECTOR_ADD, nullptr);
  ASSERT_NE(library, nullptr);
  VaddBuffers buffers;
  void** args = buffers.Args();
  args[1] = nullptr;
  Status null_status = library->Call("vadd", args, 3);
  EXPECT_EQ(null_status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(null_status.message(), "argument 1 (b) is null")) << null_status.message();

  args = buffers.Args();
  args[2] = buffers.c.data() + 4;
  Status misaligned = library->Call("vadd", args, 3);
  EXPECT_EQ(misaligned.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(misaligned.message(), "argument 2 (c) is not 64-byte aligned"))
      << misaligned.message();
}

TEST(KernelLibrary, UnknownEntryIsNotFound) {
  auto library = MustLoad(DEPLOY_KERNEL_VECTOR_ADD, nullptr);
  ASSERT_NE(library, nullptr);
  Status status = library->Call("vmul", nullptr, 0);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_TRUE(Contains(status.message(), "no entry \"vmul\"")) << status.message();
  EXPECT_TRUE(Contains(status.message(), "vadd, workspace_probe, fail7, task_errors"))
      << status.message();
}

TEST(KernelLibrary, ExposesMetadataAndFunctions) {
  auto library = MustLoad(DEPLOY_KERNEL_VECTOR_ADD, nullptr);
  ASSERT_NE(library, nullptr);
  EXPECT_EQ(library->name(), DEPLOY_KERNEL_VECTOR_ADD);
  const KernelMetadata& metadata = library->metadata();
  EXPECT_EQ(metadata.target, "llvm -mtriple=x86_64-linux-gnu");
  ASSERT_EQ(metadata.entries.size(), 4u);
  EXPECT_EQ(metadata.entries[0].args[2].shape, std::vector<int64_t>{kVaddN});
  EXPECT_EQ(library->FindFunction("nope"), nullptr);

  // The raw entry point works when the caller binds the pool itself.
  tunefarm_kernel_fn vadd = library->FindFunction("vadd");
  ASSERT_NE(vadd, nullptr);
  ThreadPool pool(3);
  ScopedCurrentPool bind(&pool);
  VaddBuffers buffers;
  EXPECT_EQ(vadd(buffers.Args(), 3, nullptr), 0);
  EXPECT_EQ(buffers.Mismatches(), 0);
}

// ---- Loading from memory ----

TEST(KernelLibrary, LoadFromBytesRuns) {
  const std::vector<uint8_t> image = ReadFile(DEPLOY_KERNEL_VECTOR_ADD);
  ASSERT_GT(image.size(), 1000u);
  ThreadPool pool(3);
  auto library = KernelLibrary::LoadFromBytes(image.data(), image.size(), "vadd-image", &pool);
  ASSERT_TRUE(library.ok()) << library.status().ToString();
  EXPECT_EQ((*library)->name(), "vadd-image");
  VaddBuffers buffers;
  ASSERT_TRUE((*library)->Call("vadd", buffers.Args(), 3).ok());
  EXPECT_EQ(buffers.Mismatches(), 0);
}

TEST(KernelLibrary, LoadFromBytesKeepsLibrariesApart) {
  // The second memfd usually reuses the first one's descriptor number; the loader must not
  // mistake the second image for the first, still loaded, library.
  const std::vector<uint8_t> vadd_image = ReadFile(DEPLOY_KERNEL_VECTOR_ADD);
  const std::vector<uint8_t> nested_image = ReadFile(DEPLOY_KERNEL_NESTED);
  auto first = KernelLibrary::LoadFromBytes(vadd_image.data(), vadd_image.size(), "first");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = KernelLibrary::LoadFromBytes(nested_image.data(), nested_image.size(), "second");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_NE((*first)->FindFunction("vadd"), nullptr);
  EXPECT_NE((*second)->FindFunction("nested_order"), nullptr);
  EXPECT_EQ((*second)->FindFunction("vadd"), nullptr);
  EXPECT_NE((*first)->FindFunction("vadd"), (*second)->FindFunction("nested_order"));

  // The same image twice gives two independent libraries.
  auto again = KernelLibrary::LoadFromBytes(vadd_image.data(), vadd_image.size(), "again");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_NE((*again)->FindFunction("vadd"), (*first)->FindFunction("vadd"));
  first = Status(StatusCode::kInternal, "released");  // unloads the first copy
  VaddBuffers buffers;
  ASSERT_TRUE((*again)->Call("vadd", buffers.Args(), 3).ok());
  EXPECT_EQ(buffers.Mismatches(), 0);
}

TEST(KernelLibrary, LoadFromBytesRefusesGarbage) {
  const std::string garbage = "this is not an ELF file";
  ExpectLoadError(KernelLibrary::LoadFromBytes(garbage.data(), garbage.size(), "junk.so"),
                  StatusCode::kLoadFailed, {"junk.so", "dlopen failed"});
  ExpectLoadError(KernelLibrary::LoadFromBytes(nullptr, 0, "empty.so"),
                  StatusCode::kInvalidArgument, {"empty.so", "empty kernel library image"});
}

// ---- Load errors: each names the file and the problem ----

TEST(KernelLibraryLoadErrors, ControlLibraryLoads) {
  // The defective libraries below are this source with one defect each.
  auto library = MustLoad(DEPLOY_KERNEL_VALID, nullptr);
  ASSERT_NE(library, nullptr);
  EXPECT_TRUE(library->Call("noop", nullptr, 0).ok());
}

TEST(KernelLibraryLoadErrors, MissingFile) {
  const std::string path = "/nonexistent/dir/kernel.so";
  ExpectLoadError(KernelLibrary::Load(path), StatusCode::kLoadFailed,
                  {path, "dlopen failed", "No such file"});
}

TEST(KernelLibraryLoadErrors, BareNameIsNotSearchedFor) {
  // libc.so.6 is found by a library search, but not in the working directory.
  ExpectLoadError(KernelLibrary::Load("libc.so.6"), StatusCode::kLoadFailed,
                  {"libc.so.6", "dlopen failed"});
  ExpectLoadError(KernelLibrary::Load(""), StatusCode::kInvalidArgument, {"empty"});
}

TEST(KernelLibraryLoadErrors, WrongAbiVersion) {
  ExpectLoadError(KernelLibrary::Load(DEPLOY_KERNEL_WRONG_ABI), StatusCode::kAbiMismatch,
                  {DEPLOY_KERNEL_WRONG_ABI, "kernel ABI version 2",
                   "this runtime implements version 1"});
}

TEST(KernelLibraryLoadErrors, NoAbiVersion) {
  ExpectLoadError(KernelLibrary::Load(DEPLOY_KERNEL_NO_ABI_VERSION), StatusCode::kLoadFailed,
                  {DEPLOY_KERNEL_NO_ABI_VERSION, "missing symbol tunefarm_abi_version"});
}

TEST(KernelLibraryLoadErrors, NoMetadata) {
  ExpectLoadError(KernelLibrary::Load(DEPLOY_KERNEL_NO_METADATA), StatusCode::kLoadFailed,
                  {DEPLOY_KERNEL_NO_METADATA, "missing symbol tunefarm_metadata"});
}

TEST(KernelLibraryLoadErrors, MalformedMetadata) {
  ExpectLoadError(KernelLibrary::Load(DEPLOY_KERNEL_MALFORMED_METADATA),
                  StatusCode::kBadMetadata,
                  {DEPLOY_KERNEL_MALFORMED_METADATA, "bad tunefarm_metadata", "not valid JSON"});
}

TEST(KernelLibraryLoadErrors, EntryWithoutSymbol) {
  ExpectLoadError(KernelLibrary::Load(DEPLOY_KERNEL_MISSING_ENTRY), StatusCode::kLoadFailed,
                  {DEPLOY_KERNEL_MISSING_ENTRY, "entry \"ghost\"", "exports no such symbol"});
}

TEST(KernelLibraryLoadErrors, NoHostApi) {
  ExpectLoadError(KernelLibrary::Load(DEPLOY_KERNEL_NO_HOST_API), StatusCode::kLoadFailed,
                  {DEPLOY_KERNEL_NO_HOST_API, "missing symbol tunefarm_host_api"});
}

TEST(KernelLibraryLoadErrors, FromBytesNamesTheImage) {
  const std::vector<uint8_t> image = ReadFile(DEPLOY_KERNEL_WRONG_ABI);
  ASSERT_FALSE(image.empty());
  ExpectLoadError(KernelLibrary::LoadFromBytes(image.data(), image.size(), "uploaded-kernel"),
                  StatusCode::kAbiMismatch, {"uploaded-kernel: ", "kernel ABI version 2"});
}

}  // namespace
}  // namespace tunefarm::deploy
