// cli/table.h: aligned tables and the units they print.
#include "cli/table.h"

#include <cmath>
#include <limits>
#include <optional>

#include "gtest/gtest.h"

namespace tunefarm::cli {
namespace {

TEST(CliTableTest, AlignsColumnsLeftAndRight) {
  Table table({{"NAME"}, {"COUNT", Table::Align::kRight}, {"NOTE"}});
  table.AddRow({"a", "1", "short"});
  table.AddRow({"longer-name", "12345", ""});
  EXPECT_EQ(table.ToString(),
            "NAME         COUNT  NOTE\n"
            "a                1  short\n"
            "longer-name  12345\n");
}

TEST(CliTableTest, HeaderOnlyWhenEmptyAndRowsArePaddedToTheColumns) {
  Table table({{"A"}, {"B"}});
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(table.ToString(), "A  B\n");
  table.AddRow({"x"});
  EXPECT_EQ(table.ToString(), "A  B\nx\n");
}

TEST(CliTableTest, FormatsSecondsWithAUnit) {
  EXPECT_EQ(FormatSeconds(2.0), "2.000 s");
  EXPECT_EQ(FormatSeconds(0.0015), "1.500 ms");
  EXPECT_EQ(FormatSeconds(12.344e-6), "12.34 us");
  EXPECT_EQ(FormatSeconds(812.5e-9), "812.5 ns");
  EXPECT_EQ(FormatSeconds(std::numeric_limits<double>::infinity()), "-");
  EXPECT_EQ(FormatSeconds(std::optional<double>()), "-");
  EXPECT_EQ(FormatSeconds(std::optional<double>(0.25)), "250.0 ms");
}

TEST(CliTableTest, FormatsUnixMillisecondsAsUtc) {
  EXPECT_EQ(FormatUnixMs(1'700'000'000'500), "2023-11-14 22:13:20Z");
  EXPECT_EQ(FormatUnixMs(0), "-");
}

}  // namespace
}  // namespace tunefarm::cli
