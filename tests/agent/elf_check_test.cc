#include "device_agent/elf_check.h"

#include <gtest/gtest.h>

#include "device_agent/target_arch.h"
#include "tests/agent/agent_fixture.h"

namespace tunefarm::agent {
namespace {

using testing::ReadBinary;
using testing::TempDir;

TEST(TargetArch, ReadsTheTripleOfATargetString) {
  EXPECT_EQ(TargetArch("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72"), "aarch64");
  EXPECT_EQ(TargetArch("llvm -mcpu=znver3 -mtriple=x86_64-linux-gnu"), "x86_64");
  EXPECT_EQ(TargetArch("llvm -mtriple=arm64-apple-darwin"), "aarch64");
  EXPECT_EQ(TargetArch("llvm"), "");
  EXPECT_EQ(TargetMismatch("llvm"), "");
  EXPECT_EQ(TargetMismatch("llvm -mtriple=" + HostArch() + "-linux-gnu"), "");
  EXPECT_NE(TargetMismatch("cuda -arch=sm_90").find("not a CPU"), std::string::npos);
  const std::string other = HostArch() == "aarch64" ? "x86_64" : "aarch64";
  EXPECT_EQ(TargetMismatch("llvm -mtriple=" + other + "-linux-gnu"),
            "its target \"llvm -mtriple=" + other + "-linux-gnu\" is for " + other +
                ", this host is " + HostArch());
}

TEST(ElfCheck, AHostKernelIsLoadableAndItsMetadataIsRead) {
  deploy::Result<ElfFacts> facts = ReadElfFacts(AGENT_KERNEL_GOOD);
  ASSERT_TRUE(facts.ok()) << facts.status().ToString();
  EXPECT_EQ(facts->machine, HostElfMachine());
  EXPECT_TRUE(facts->shared_object);
  ASSERT_TRUE(facts->metadata.has_value());
  EXPECT_NE(facts->metadata->find("\"vadd_ref\""), std::string::npos) << *facts->metadata;
  EXPECT_EQ(WhyNotLoadable("good.so", *facts), "");
}

TEST(ElfCheck, ForeignMetadataIsFoundWithoutLoading) {
  deploy::Result<ElfFacts> facts = ReadElfFacts(AGENT_KERNEL_FOREIGN);
  ASSERT_TRUE(facts.ok()) << facts.status().ToString();
  const std::string why = WhyNotLoadable("foreign.so", *facts);
  EXPECT_NE(why.find("foreign.so: its target"), std::string::npos) << why;
  EXPECT_NE(why.find("is for aarch64"), std::string::npos) << why;
}

TEST(ElfCheck, AnotherMachineOrNoElfIsRefused) {
  TempDir dir;
  std::string bytes = ReadBinary(AGENT_KERNEL_GOOD);
  bytes[18] = 40;  // EM_ARM
  bytes[19] = 0;
  const std::string arm = dir.WriteFile("arm.so", bytes);
  deploy::Result<ElfFacts> facts = ReadElfFacts(arm);
  ASSERT_TRUE(facts.ok()) << facts.status().ToString();
  EXPECT_EQ(WhyNotLoadable("arm.so", *facts), "arm.so is an ELF for arm, this host is " + HostArch());

  const std::string text = dir.WriteFile("text.so", "#!/bin/sh\n");
  facts = ReadElfFacts(text);
  ASSERT_FALSE(facts.ok());
  EXPECT_EQ(facts.status().message(), text + ": not an ELF file");
  EXPECT_FALSE(ReadElfFacts(dir.path() + "/missing.so").ok());

  // A truncated ELF: the header is there, the section table is not.
  const std::string cut = dir.WriteFile("cut.so", ReadBinary(AGENT_KERNEL_GOOD).substr(0, 200));
  facts = ReadElfFacts(cut);
  ASSERT_FALSE(facts.ok());
  EXPECT_NE(facts.status().message().find("outside the file"), std::string::npos);
}

}  // namespace
}  // namespace tunefarm::agent
