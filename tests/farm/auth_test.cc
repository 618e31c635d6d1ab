#include "proto/auth.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "tests/farm/child_process.h"

namespace tunefarm::wire {
namespace {

// Sets or clears $TUNEFARM_TOKEN for one test and restores it afterwards.
class ScopedTokenEnv {
 public:
  explicit ScopedTokenEnv(const char* value) {
    if (const char* old = getenv(kTokenEnvVar)) old_ = old;
    if (value != nullptr) setenv(kTokenEnvVar, value, 1);
    else unsetenv(kTokenEnvVar);
  }
  ~ScopedTokenEnv() {
    if (old_.empty()) unsetenv(kTokenEnvVar);
    else setenv(kTokenEnvVar, old_.c_str(), 1);
  }

 private:
  std::string old_;
};

TEST(FarmToken, FileWinsAndLosesItsTrailingNewline) {
  testing::TempDir dir;
  ScopedTokenEnv env("from-env");
  const std::string file = dir.WriteFile("token", "from-file\n", 0600);
  absl::StatusOr<std::string> token = LoadToken(file);
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(*token, "from-file");
}

TEST(FarmToken, FileReadableByOthersIsRefusedWithTheFix) {
  testing::TempDir dir;
  const std::string file = dir.WriteFile("token", "secret", 0644);
  absl::StatusOr<std::string> token = LoadToken(file);
  EXPECT_TRUE(absl::IsPermissionDenied(token.status()));
  EXPECT_NE(token.status().message().find("chmod 600"), std::string_view::npos);
}

TEST(FarmToken, MissingOrEmptyFileIsAnErrorNamingIt) {
  testing::TempDir dir;
  absl::StatusOr<std::string> missing = LoadToken(dir.path() + "/nope");
  EXPECT_NE(missing.status().message().find("/nope"), std::string_view::npos);
  const std::string empty = dir.WriteFile("empty", " \n", 0600);
  EXPECT_TRUE(absl::IsInvalidArgument(LoadToken(empty).status()));
}

TEST(FarmToken, EnvironmentIsTheFallbackAndNothingIsAnError) {
  {
    ScopedTokenEnv env("env-token");
    EXPECT_EQ(LoadToken("").value_or(""), "env-token");
  }
  ScopedTokenEnv env(nullptr);
  absl::StatusOr<std::string> none = LoadToken("");
  EXPECT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("--token-file"), std::string_view::npos);
}

TEST(FarmToken, ConstantTimeEqualsComparesWholeStrings) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abd", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("ab", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abcd", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("", "abc"));
  EXPECT_FALSE(ConstantTimeEquals(std::string_view("ab\0", 3), "ab"));
}

}  // namespace
}  // namespace tunefarm::wire
