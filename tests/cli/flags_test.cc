// cli/flags.h: the option parser every subcommand uses.
#include "common/command_flags.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tunefarm::cli {
namespace {

const CommandSpec kSpec{"db top",
                        "Lists records.",
                        {{"db", 0, "FILE", "the database", true},
                         {"count", 'k', "N", "how many"},
                         {"json", 0, "", "as JSON"}},
                        {}};

absl::StatusOr<ParsedFlags> Parse(const CommandSpec& spec, std::vector<std::string> args) {
  args.insert(args.begin(), "top");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return ParsedFlags::Parse(spec, static_cast<int>(args.size()), argv.data());
}

std::string ErrorOf(const CommandSpec& spec, std::vector<std::string> args) {
  absl::StatusOr<ParsedFlags> parsed = Parse(spec, std::move(args));
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? "" : std::string(parsed.status().message());
}

TEST(CliFlagsTest, AcceptsSpaceEqualsAndShortForms) {
  absl::StatusOr<ParsedFlags> parsed = Parse(kSpec, {"--db", "a.db", "-k", "3", "--json"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Get("db"), "a.db");
  EXPECT_EQ(*parsed->GetInt("count", 10, 1, 100), 3);
  EXPECT_TRUE(parsed->Has("json"));

  parsed = Parse(kSpec, {"--db=b.db", "--count=7"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->Get("db"), "b.db");
  EXPECT_EQ(*parsed->GetInt("count", 10, 1, 100), 7);
  EXPECT_FALSE(parsed->Has("json"));
  EXPECT_EQ(parsed->Get("json", "fallback"), "fallback");
}

TEST(CliFlagsTest, EmptyValueAfterEqualsIsAValue) {
  absl::StatusOr<ParsedFlags> parsed = Parse(kSpec, {"--db="});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->Has("db"));
  EXPECT_EQ(parsed->Get("db", "x"), "");
}

TEST(CliFlagsTest, ErrorsNameTheFlag) {
  EXPECT_EQ(ErrorOf(kSpec, {"--db", "a", "--bogus", "1"}), "unknown flag --bogus");
  EXPECT_EQ(ErrorOf(kSpec, {"--db", "a", "-z"}), "unknown flag -z");
  EXPECT_EQ(ErrorOf(kSpec, {"--json"}), "missing required flag --db FILE");
  EXPECT_EQ(ErrorOf(kSpec, {"--db"}), "--db needs a value (FILE)");
  EXPECT_EQ(ErrorOf(kSpec, {"--db", "a", "--json=yes"}), "--json takes no value");
  EXPECT_EQ(ErrorOf(kSpec, {"--db", "a", "-k", "1", "--count", "2"}), "-k/--count given twice");
  EXPECT_EQ(ErrorOf(kSpec, {"--db", "a", "stray"}), "unexpected argument 'stray'");
}

TEST(CliFlagsTest, GetIntChecksTheRange) {
  absl::StatusOr<ParsedFlags> parsed = Parse(kSpec, {"--db", "a", "-k", "0"});
  ASSERT_TRUE(parsed.ok());
  absl::StatusOr<int64_t> k = parsed->GetInt("count", 10, 1, 100);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().message(), "--count '0': expected an integer in [1, 100]");
  parsed = Parse(kSpec, {"--db", "a", "-k", "3x"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed->GetInt("count", 10, 1, 100).ok());
  parsed = Parse(kSpec, {"--db", "a"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed->GetInt("count", 10, 1, 100), 10);
}

TEST(CliFlagsTest, PositionalsAreCountedAndDashDashEndsOptions) {
  const CommandSpec spec{"db import", "", {{"db", 0, "FILE", "", true}}, {"FILE.jsonl"}};
  EXPECT_EQ(ErrorOf(spec, {"--db", "a"}), "missing argument FILE.jsonl");
  EXPECT_EQ(ErrorOf(spec, {"--db", "a", "x", "y"}), "unexpected argument 'y'");
  absl::StatusOr<ParsedFlags> parsed = Parse(spec, {"--db", "a", "--", "--odd-name.jsonl"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->positionals(), std::vector<std::string>{"--odd-name.jsonl"});
  parsed = Parse(spec, {"-", "--db", "a"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->positionals(), std::vector<std::string>{"-"});
}

TEST(CliFlagsTest, HelpSuspendsRequiredChecks) {
  absl::StatusOr<ParsedFlags> parsed = Parse(kSpec, {"--help"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(parsed->help());
  parsed = Parse(kSpec, {"-h"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->help());
}

TEST(CliFlagsTest, UsageListsEveryFlag) {
  const std::string usage = Usage(kSpec);
  EXPECT_EQ(usage.rfind("usage: tunefarm db top --db FILE [-k N] [--json]\n", 0), 0u) << usage;
  EXPECT_NE(usage.find("  --db FILE      the database (required)\n"), std::string::npos) << usage;
  EXPECT_NE(usage.find("  -k, --count N  how many\n"), std::string::npos) << usage;
  EXPECT_NE(usage.find("  --json"), std::string::npos) << usage;
}

}  // namespace
}  // namespace tunefarm::cli
