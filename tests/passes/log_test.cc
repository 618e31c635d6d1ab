// The logger: level parsing, filtering, and the line format.
#include "common/log.h"

#include <gtest/gtest.h>

namespace tunefarm::log {
namespace {

TEST(LogTest, ParsesLevels) {
  Level l = Level::kError;
  EXPECT_TRUE(ParseLevel("debug", &l));
  EXPECT_EQ(l, Level::kDebug);
  EXPECT_TRUE(ParseLevel("WARN", &l));
  EXPECT_EQ(l, Level::kWarn);
  EXPECT_FALSE(ParseLevel("verbose", &l));
}

TEST(LogTest, FiltersByLevelAndWritesOneLine) {
  Level saved = CurrentLevel();
  SetLevel(Level::kInfo);
  int evaluated = 0;
  auto count = [&] { return ++evaluated; };
  ::testing::internal::CaptureStderr();
  TF_LOG(DEBUG, "passes") << "hidden " << count();
  TF_LOG(INFO, "passes") << "dce: dropped " << 3 << " nodes";
  std::string err = ::testing::internal::GetCapturedStderr();
  SetLevel(saved);
  EXPECT_EQ(evaluated, 0) << "a disabled statement must not evaluate its arguments";
  EXPECT_EQ(err, "[tunefarm info passes] dce: dropped 3 nodes\n");
}

}  // namespace
}  // namespace tunefarm::log
