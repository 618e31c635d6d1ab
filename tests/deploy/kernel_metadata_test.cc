#include "deploy/kernel_metadata.h"

#include <gtest/gtest.h>

#include <string>

namespace tunefarm::deploy {
namespace {

constexpr const char* kValid = R"({
  "format": 1,
  "target": "llvm -mtriple=x86_64-linux-gnu -mcpu=znver3",
  "entries": [
    {"name": "conv2d_relu", "workspace_bytes": 8192, "args": [
      {"name": "data", "dtype": "float32", "shape": [1, 3, 8, 8], "role": "in"},
      {"name": "weight", "dtype": "float32", "shape": [4, 3, 3, 3], "role": "param"},
      {"name": "indices", "dtype": "int64", "shape": [5], "role": "in", "range": [-2, 9]},
      {"name": "out", "dtype": "float32", "shape": [1, 4, 6, 6], "role": "out"}
    ]},
    {"name": "scalar", "workspace_bytes": 0, "args": [
      {"name": "x", "dtype": "float64", "shape": [], "role": "out"}
    ], "future_field": "ignored"}
  ]
})";

TEST(KernelMetadata, ParsesEveryField) {
  Result<KernelMetadata> parsed = ParseKernelMetadata(kValid);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const KernelMetadata& m = *parsed;
  EXPECT_EQ(m.format, 1);
  EXPECT_EQ(m.target, "llvm -mtriple=x86_64-linux-gnu -mcpu=znver3");
  ASSERT_EQ(m.entries.size(), 2u);

  const EntryInfo& conv = m.entries[0];
  EXPECT_EQ(conv.name, "conv2d_relu");
  EXPECT_EQ(conv.workspace_bytes, 8192u);
  ASSERT_EQ(conv.args.size(), 4u);
  EXPECT_EQ(conv.args[0].name, "data");
  EXPECT_EQ(conv.args[0].dtype, "float32");
  EXPECT_EQ(conv.args[0].shape, (std::vector<int64_t>{1, 3, 8, 8}));
  EXPECT_EQ(conv.args[0].role, ArgRole::kIn);
  EXPECT_FALSE(conv.args[0].range.has_value());
  EXPECT_EQ(conv.args[0].NumElements(), 192);
  EXPECT_EQ(conv.args[0].NumBytes(), 768);
  EXPECT_EQ(conv.args[1].role, ArgRole::kParam);
  ASSERT_TRUE(conv.args[2].range.has_value());
  EXPECT_EQ(conv.args[2].range->lo, -2);
  EXPECT_EQ(conv.args[2].range->hi, 9);
  EXPECT_EQ(conv.args[2].NumBytes(), 40);
  EXPECT_EQ(conv.args[3].role, ArgRole::kOut);

  const EntryInfo& scalar = m.entries[1];
  EXPECT_TRUE(scalar.args[0].shape.empty());
  EXPECT_EQ(scalar.args[0].NumElements(), 1);

  EXPECT_EQ(m.FindEntry("scalar"), &m.entries[1]);
  EXPECT_EQ(m.FindEntry("missing"), nullptr);
}

TEST(KernelMetadata, EmptyEntryListIsValid) {
  Result<KernelMetadata> parsed = ParseKernelMetadata(R"({"format":1,"target":"","entries":[]})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(parsed->entries.empty());
}

TEST(KernelMetadata, DTypeTable) {
  EXPECT_EQ(DTypeBytes("float32"), 4u);
  EXPECT_EQ(DTypeBytes("bfloat16"), 2u);
  EXPECT_EQ(DTypeBytes("int64"), 8u);
  EXPECT_EQ(DTypeBytes("bool"), 1u);
  EXPECT_EQ(DTypeBytes("complex64"), 0u);
  EXPECT_TRUE(IsIntegerDType("uint8"));
  EXPECT_FALSE(IsIntegerDType("float16"));
  EXPECT_STREQ(ArgRoleName(ArgRole::kParam), "param");
}

struct BadCase {
  const char* label;
  std::string json;
  std::string expected_message;  // a substring of the error
};

std::string WithArg(const std::string& arg) {
  return R"({"format":1,"target":"t","entries":[{"name":"k","workspace_bytes":0,"args":[)" + arg +
         "]}]}";
}

std::string WithEntry(const std::string& entry) {
  return R"({"format":1,"target":"t","entries":[)" + entry + "]}";
}

const std::string kGoodArg = R"({"name":"x","dtype":"float32","shape":[2],"role":"in"})";

class BadMetadata : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadMetadata, IsRefusedWithAClearMessage) {
  Result<KernelMetadata> parsed = ParseKernelMetadata(GetParam().json);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kBadMetadata);
  EXPECT_NE(parsed.status().message().find(GetParam().expected_message), std::string::npos)
      << "message: " << parsed.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadMetadata,
    ::testing::Values(
        BadCase{"NotJson", "{\"format\":1,", "not valid JSON"},
        BadCase{"Empty", "", "not valid JSON"},
        BadCase{"NotAnObject", "[1,2]", "expected a JSON object, got array"},
        BadCase{"MissingFormat", R"({"target":"t","entries":[]})", "missing field \"format\""},
        BadCase{"FormatNotInt", R"({"format":"1","target":"t","entries":[]})",
                "format: expected an integer, got string"},
        BadCase{"FutureFormat", R"({"format":2,"target":"t","entries":[]})",
                "format: this runtime reads metadata format 1, got 2"},
        BadCase{"MissingTarget", R"({"format":1,"entries":[]})", "missing field \"target\""},
        BadCase{"EntriesNotArray", R"({"format":1,"target":"t","entries":{}})",
                "entries: expected an array, got object"},
        BadCase{"EntryNotObject", WithEntry("3"), "entries[0]: expected an object, got number"},
        BadCase{"EntryWithoutName", WithEntry(R"({"workspace_bytes":0,"args":[]})"),
                "entries[0]: missing field \"name\""},
        BadCase{"EntryNameNotSymbol",
                WithEntry(R"({"name":"my kernel","workspace_bytes":0,"args":[]})"),
                "entries[0].name: \"my kernel\" is not a C identifier"},
        BadCase{"DuplicateEntry",
                WithEntry(R"({"name":"k","workspace_bytes":0,"args":[]},)"
                          R"({"name":"k","workspace_bytes":0,"args":[]})"),
                "entries[1].name: duplicate entry \"k\""},
        BadCase{"MissingWorkspace", WithEntry(R"({"name":"k","args":[]})"),
                "entries[0]: missing field \"workspace_bytes\""},
        BadCase{"NegativeWorkspace", WithEntry(R"({"name":"k","workspace_bytes":-1,"args":[]})"),
                "entries[0].workspace_bytes: expected a non-negative integer, got -1"},
        BadCase{"FractionalWorkspace",
                WithEntry(R"({"name":"k","workspace_bytes":1.5,"args":[]})"),
                "entries[0].workspace_bytes: expected an integer"},
        BadCase{"MissingArgs", WithEntry(R"({"name":"k","workspace_bytes":0})"),
                "entries[0]: missing field \"args\""},
        BadCase{"UnknownDType", WithArg(R"({"name":"x","dtype":"float33","shape":[2],"role":"in"})"),
                "entries[0].args[0].dtype: unknown dtype \"float33\""},
        BadCase{"MissingShape", WithArg(R"({"name":"x","dtype":"float32","role":"in"})"),
                "entries[0].args[0]: missing field \"shape\""},
        BadCase{"NegativeExtent",
                WithArg(R"({"name":"x","dtype":"float32","shape":[2,-3],"role":"in"})"),
                "entries[0].args[0].shape[1]: expected a non-negative integer, got -3"},
        BadCase{"HugeShape",
                WithArg(R"({"name":"x","dtype":"float32","shape":[4294967296,4294967296],)"
                        R"("role":"in"})"),
                "entries[0].args[0].shape: the argument's byte size overflows int64"},
        BadCase{"BadRole", WithArg(R"({"name":"x","dtype":"float32","shape":[2],"role":"inout"})"),
                "entries[0].args[0].role: expected \"in\", \"out\" or \"param\", got \"inout\""},
        BadCase{"EmptyArgName", WithArg(R"({"name":"","dtype":"float32","shape":[2],"role":"in"})"),
                "entries[0].args[0].name: empty argument name"},
        BadCase{"DuplicateArg", WithArg(kGoodArg + "," + kGoodArg),
                "entries[0].args[1].name: duplicate argument \"x\""},
        BadCase{"InputAfterOutput",
                WithArg(R"({"name":"y","dtype":"float32","shape":[2],"role":"out"},)" + kGoodArg),
                "entries[0].args[1].role: \"in\" argument after an output"},
        BadCase{"RangeOnFloat",
                WithArg(R"({"name":"x","dtype":"float32","shape":[2],"role":"in","range":[0,1]})"),
                "entries[0].args[0].range: a value range is only allowed on integer arguments"},
        BadCase{"RangeNotPair",
                WithArg(R"({"name":"x","dtype":"int32","shape":[2],"role":"in","range":[0]})"),
                "entries[0].args[0].range: expected [lo, hi]"},
        BadCase{"RangeReversed",
                WithArg(R"({"name":"x","dtype":"int32","shape":[2],"role":"in","range":[5,1]})"),
                "entries[0].args[0].range: lo 5 is greater than hi 1"},
        BadCase{"RangeOutOfInt64",
                WithArg(R"({"name":"x","dtype":"uint64","shape":[2],"role":"in",)"
                        R"("range":[0,18446744073709551615]})"),
                "entries[0].args[0].range[1]: integer 18446744073709551615 is out of range"},
        BadCase{"PreparedByNoEntry",
                WithArg(R"({"name":"x","dtype":"float32","shape":[2],"role":"param","prepared_by":"mk"})"),
                "entries[0].args[0].prepared_by: no entry \"mk\" in this library"},
        BadCase{"PreparedOutput",
                WithArg(R"({"name":"x","dtype":"float32","shape":[2],"role":"out","prepared_by":"mk"})"),
                "entries[0].args[0].prepared_by: an output cannot be prepared"},
        BadCase{"PreparedByWrongShape",
                WithEntry(R"({"name":"k","workspace_bytes":0,"args":[)"
                          R"({"name":"x","dtype":"float32","shape":[2],"role":"param","prepared_by":"mk"}]},)"
                          R"({"name":"mk","workspace_bytes":0,"args":[)" +
                          kGoodArg + R"(,{"name":"y","dtype":"float32","shape":[3],"role":"out"}]})"),
                "entries[0].args[0].prepared_by: entry \"mk\" makes a tensor of another type or shape"},
        BadCase{"PreparedByTwoOutputs",
                WithEntry(R"({"name":"k","workspace_bytes":0,"args":[)"
                          R"({"name":"x","dtype":"float32","shape":[2],"role":"param","prepared_by":"mk"}]},)"
                          R"({"name":"mk","workspace_bytes":0,"args":[)" + kGoodArg + "]}"),
                "entries[0].args[0].prepared_by: entry \"mk\" must take one input and one output"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.label); });

}  // namespace
}  // namespace tunefarm::deploy
