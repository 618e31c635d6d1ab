#include "common/temp_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace tunefarm {
namespace {

bool Exists(const std::string& path) { return std::filesystem::exists(path); }

TEST(TempDir, IsPrivateAndRemovedWithItsFilesAndSubdirectories) {
  std::string path;
  {
    absl::StatusOr<TempDir> dir = TempDir::Create("tunefarm-test");
    ASSERT_TRUE(dir.ok()) << dir.status();
    path = dir->path();
    struct stat info {};
    ASSERT_EQ(stat(path.c_str(), &info), 0);
    EXPECT_TRUE(S_ISDIR(info.st_mode));
    EXPECT_EQ(info.st_mode & 0777, 0700u);
    EXPECT_NE(path.find("/tunefarm-test-"), std::string::npos) << path;
    std::ofstream(dir->File("a.txt")) << "a";
    std::filesystem::create_directory(dir->File("sub"));
    std::ofstream(dir->File("sub/b.txt")) << "b";
    ASSERT_TRUE(Exists(dir->File("sub/b.txt")));
  }
  EXPECT_FALSE(Exists(path));
}

TEST(TempDir, AMovedDirectoryIsRemovedOnceByItsLastOwner) {
  absl::StatusOr<TempDir> first = TempDir::Create("tunefarm-test");
  ASSERT_TRUE(first.ok());
  const std::string path = first->path();
  {
    TempDir second = *std::move(first);
    EXPECT_EQ(second.path(), path);
    EXPECT_TRUE(first->path().empty());
    EXPECT_TRUE(Exists(path));
  }
  EXPECT_FALSE(Exists(path));
}

TEST(TempDir, KeepLeavesTheDirectory) {
  std::string path;
  {
    absl::StatusOr<TempDir> dir = TempDir::Create("tunefarm-test");
    ASSERT_TRUE(dir.ok());
    path = dir->path();
    dir->Keep();
  }
  EXPECT_TRUE(Exists(path));
  std::filesystem::remove_all(path);
}

TEST(TempDir, AParentThatCannotHoldItIsNamed) {
  absl::StatusOr<TempDir> dir = TempDir::Create("tunefarm-test", "/nonexistent/parent");
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(std::string(dir.status().message()).find("cannot create a temporary directory in /nonexistent/parent"),
            std::string::npos)
      << dir.status();
}

}  // namespace
}  // namespace tunefarm
