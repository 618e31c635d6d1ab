// The runtime keeps its own dtype table (deploy/kernel_metadata.cc), because it links nothing of
// the compiler; this keeps the two from drifting apart.
#include <gtest/gtest.h>

#include <string>

#include "compiler/te/dtype.h"
#include "deploy/kernel_metadata.h"

namespace tunefarm {
namespace {

TEST(DTypeTables, TheRuntimeKnowsEveryCompilerDTypeWithItsSizeAndKind) {
  for (int i = 0; i <= static_cast<int>(te::DType::kBFloat16); ++i) {
    const auto t = static_cast<te::DType>(i);
    const std::string name(te::DTypeName(t));
    EXPECT_EQ(deploy::DTypeBytes(name), static_cast<size_t>(te::DTypeBytes(t))) << name;
    EXPECT_EQ(deploy::IsIntegerDType(name), te::IsInt(t) || t == te::DType::kBool) << name;
    EXPECT_EQ(te::ParseDType(name), t) << name;
  }
  EXPECT_EQ(deploy::DTypeBytes("float8"), 0u);
  EXPECT_FALSE(te::ParseDType("float8").has_value());
}

}  // namespace
}  // namespace tunefarm
