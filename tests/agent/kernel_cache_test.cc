#include "device_agent/kernel_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "tests/agent/agent_fixture.h"

namespace tunefarm::agent {
namespace {

using testing::FileExists;

std::string Sha(char c) { return std::string(64, c); }

class KernelCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<KernelCache>> cache = KernelCache::Create(100, parent_.path());
    ASSERT_TRUE(cache.ok()) << cache.status();
    cache_ = std::move(*cache);
  }

  // Writes a temporary file of `size` bytes and inserts it.
  std::shared_ptr<const CachedKernel> Put(char c, int size) {
    const std::string path = cache_->NewTemporaryPath();
    std::ofstream(path) << std::string(size, c);
    absl::StatusOr<std::shared_ptr<const CachedKernel>> entry = cache_->Insert(Sha(c), path, size);
    EXPECT_TRUE(entry.ok()) << entry.status();
    EXPECT_FALSE(FileExists(path));  // moved into place
    return entry.value_or(nullptr);
  }

  testing::TempDir parent_;
  std::unique_ptr<KernelCache> cache_;
};

TEST_F(KernelCacheTest, TheDirectoryIsPrivateAndRemovedWithTheCache) {
  struct stat st {};
  ASSERT_EQ(stat(cache_->dir().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(cache_->dir().rfind(parent_.path(), 0), 0u);
  const std::string dir = cache_->dir();
  const std::string file = Put('a', 10)->path();
  cache_.reset();
  EXPECT_FALSE(FileExists(dir));
  EXPECT_FALSE(FileExists(file));
}

TEST_F(KernelCacheTest, EvictsTheLeastRecentlyUsedToStayWithinTheLimit) {
  Put('a', 40);
  Put('b', 40);
  ASSERT_NE(cache_->Find(Sha('a')), nullptr);  // a is now more recent than b
  Put('c', 40);                                // 120 > 100: b goes
  EXPECT_EQ(cache_->Find(Sha('b')), nullptr);
  EXPECT_NE(cache_->Find(Sha('a')), nullptr);
  EXPECT_NE(cache_->Find(Sha('c')), nullptr);
  const CacheStats stats = cache_->stats();
  EXPECT_EQ(stats.bytes, 80);
  EXPECT_EQ(stats.kernels, 2);
  EXPECT_EQ(stats.limit_bytes, 100);
}

TEST_F(KernelCacheTest, AHeldKernelKeepsItsFileUntilReleased) {
  std::shared_ptr<const CachedKernel> held = Put('a', 60);
  Put('b', 60);  // evicts a from the index, not from the disk
  EXPECT_EQ(cache_->Find(Sha('a')), nullptr);
  EXPECT_TRUE(FileExists(held->path()));
  // Uploaded again meanwhile: a new file, which the old holder's release must not delete.
  std::shared_ptr<const CachedKernel> again = Put('a', 60);
  EXPECT_NE(again->path(), held->path());
  const std::string old_path = held->path();
  held.reset();
  EXPECT_FALSE(FileExists(old_path));
  EXPECT_TRUE(FileExists(again->path()));
}

TEST_F(KernelCacheTest, DuplicatesAndOversizedKernels) {
  const std::string first = Put('a', 10)->path();
  EXPECT_EQ(Put('a', 10)->path(), first);  // the cached copy is kept
  EXPECT_EQ(cache_->stats().kernels, 1);
  const std::string path = cache_->NewTemporaryPath();
  std::ofstream(path) << std::string(101, 'x');
  absl::StatusOr<std::shared_ptr<const CachedKernel>> big = cache_->Insert(Sha('x'), path, 101);
  EXPECT_TRUE(absl::IsResourceExhausted(big.status())) << big.status();
  EXPECT_FALSE(FileExists(path));
  EXPECT_FALSE(KernelCache::Create(0).ok());
}

}  // namespace
}  // namespace tunefarm::agent
