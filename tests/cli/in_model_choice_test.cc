// cli/in_model_choice.h: which variant a kernel keeps, given its variants' in-model times.
#include "cli/in_model_choice.h"

#include "gtest/gtest.h"

namespace tunefarm::cli {
namespace {

TEST(CliInModelChoiceTest, TheFastestDistinctVariantWinsAndATieKeepsTheEarlierOne) {
  // default, best record, 2nd record: three distinct schedules.
  const std::vector<std::string> distinct = {"default", "db:a", "db:b"};
  EXPECT_EQ(ChooseVariant(distinct, {3e-4, 2e-4, 1e-4}), 2);
  EXPECT_EQ(ChooseVariant(distinct, {1e-4, 2e-4, 3e-4}), 0);
  EXPECT_EQ(ChooseVariant(distinct, {3e-4, 1e-4, 2e-4}), 1);
  EXPECT_EQ(ChooseVariant(distinct, {2e-4, 2e-4, 2e-4}), 0);  // a tie: the default
  EXPECT_EQ(ChooseVariant(distinct, {3e-4, 1e-4, 1e-4}), 1);  // a tie: the best record before the 2nd
}

TEST(CliInModelChoiceTest, AVariantThatRepeatsAnEarlierScheduleIsNoChoice) {
  // No 2nd record: its build fell back to the default rules, the same program as variant 0,
  // so its (noisy) faster time must not make it the choice.
  const std::vector<std::string> no_second = {"default", "db:a", "default"};
  EXPECT_TRUE(IsRepeatVariant(no_second, 2));
  EXPECT_FALSE(IsRepeatVariant(no_second, 1));
  EXPECT_EQ(ChooseVariant(no_second, {3e-4, 2e-4, 1e-4}), 1);
  // No record at all: only the default.
  EXPECT_EQ(ChooseVariant({"default", "default", "default"}, {3e-4, 2e-4, 1e-4}), 0);
  // The 2nd record is the best record again (the same origin): variant 1 stands for both.
  EXPECT_EQ(ChooseVariant({"default", "db:a", "db:a"}, {3e-4, 2e-4, 1e-4}), 1);
}

}  // namespace
}  // namespace tunefarm::cli
