#include "common/file_read.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/common/temp_file.h"

namespace tunefarm {
namespace {

TEST(ReadWholeFile, ReadsAFileToItsEnd) {
  const std::string bytes(200'000, 'x');  // more than one read chunk
  const std::string path = testing::WriteTempFile(bytes + "end", ".bin");
  ASSERT_FALSE(path.empty());
  absl::StatusOr<std::string> read = ReadWholeFile(path, "test file");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, bytes + "end");
}

TEST(ReadWholeFile, ReadsAProcFileThatReportsSizeZero) {
  absl::StatusOr<std::string> read = ReadWholeFile("/proc/self/status", "status");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_NE(read->find("Name:"), std::string::npos) << *read;
}

TEST(ReadWholeFile, AMissingFileIsNamedWithItsRole) {
  absl::StatusOr<std::string> read = ReadWholeFile("/nonexistent/token", "token file");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(read.status().message(), "token file /nonexistent/token: no such file");
}

TEST(ReadWholeFile, ADirectoryIsAnError) {
  absl::StatusOr<std::string> read = ReadWholeFile("/tmp", "model");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(std::string(read.status().message()).find("model /tmp"), std::string::npos) << read.status();
}

TEST(ReadRegularFile, RefusesADeviceBeforeReadingIt) {
  absl::StatusOr<std::string> read = ReadRegularFile("/dev/zero", 1 << 20, "model");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(std::string(read.status().message()).find("not a regular file"), std::string::npos) << read.status();
}

TEST(ReadRegularFile, RefusesAFileOverTheLimit) {
  const std::string path = testing::WriteTempFile(std::string(100, 'x'), ".bin");
  ASSERT_FALSE(path.empty());
  absl::StatusOr<std::string> read = ReadRegularFile(path, 99, "input");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(std::string(read.status().message()).find("100 bytes, more than the 99"), std::string::npos) << read.status();
  EXPECT_EQ(ReadRegularFile(path, 100, "input").value_or(""), std::string(100, 'x'));
}

}  // namespace
}  // namespace tunefarm
