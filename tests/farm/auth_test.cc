#include "proto/auth.h"
#include "proto/token_gate.h"

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

using Metadata = std::vector<std::pair<std::string_view, std::string_view>>;
constexpr std::string_view kRegister = "/tunefarm.v1.Tracker/Register";

TEST(TokenGate, TheRightTokenPassesAndNothingElseDoes) {
  EXPECT_EQ(TokenRefusal(kRegister, {{":path", kRegister}, {"tunefarm-token", "s3cret"}}, "s3cret"), std::nullopt);
  EXPECT_EQ(TokenRefusal(kRegister, {{":path", kRegister}}, "s3cret"), "missing tunefarm-token metadata");
  EXPECT_EQ(TokenRefusal(kRegister, {{"tunefarm-token", "s3cre"}}, "s3cret"), "wrong tunefarm-token");
  EXPECT_EQ(TokenRefusal(kRegister, {{"tunefarm-token", ""}}, "s3cret"), "wrong tunefarm-token");
  // Two guesses in one call are refused even when one of them is right.
  EXPECT_EQ(TokenRefusal(kRegister, {{"tunefarm-token", "x"}, {"tunefarm-token", "s3cret"}}, "s3cret"),
            "more than one tunefarm-token entry");
  // A server without a token lets nothing through, not even an empty token.
  EXPECT_EQ(TokenRefusal(kRegister, {{"tunefarm-token", ""}}, ""), "wrong tunefarm-token");
}

TEST(TokenGate, OnlyTheHealthServiceNeedsNoToken) {
  EXPECT_EQ(TokenRefusal("/grpc.health.v1.Health/Check", {}, "s3cret"), std::nullopt);
  EXPECT_EQ(TokenRefusal("/grpc.health.v1.Health/Watch", {}, "s3cret"), std::nullopt);
  EXPECT_NE(TokenRefusal("/grpc.health.v1.HealthX/Check", {}, "s3cret"), std::nullopt);
  EXPECT_NE(TokenRefusal("/tunefarm.v1.Tuner/ListJobs", {}, "s3cret"), std::nullopt);
  EXPECT_NE(TokenRefusal("", {}, "s3cret"), std::nullopt);
}

TEST(TokenGate, ARefusalNeverEchoesAToken) {
  for (const Metadata& md : {Metadata{{"tunefarm-token", "guess-1234"}},
                             Metadata{{"tunefarm-token", "guess-1234"}, {"tunefarm-token", "guess-5678"}}}) {
    std::optional<std::string> why = TokenRefusal(kRegister, md, "expected-token");
    ASSERT_TRUE(why.has_value());
    EXPECT_EQ(why->find("guess"), std::string::npos) << *why;
    EXPECT_EQ(why->find("expected"), std::string::npos) << *why;
  }
}

}  // namespace
}  // namespace tunefarm::wire
