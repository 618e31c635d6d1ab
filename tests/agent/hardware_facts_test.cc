#include "proto/hardware_facts.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/agent/agent_fixture.h"

namespace tunefarm::agent {
namespace {

using wire::CpuInfoMismatch;
using wire::ParseCacheSize;
using wire::ParseCpuInfo;
using wire::ReadCacheSizes;
using wire::ReadHardwareFacts;

constexpr char kX86[] = R"(processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 85
model name	: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz
stepping	: 7
physical id	: 0
core id		: 0
flags		: fpu sse sse2 avx avx2 avx512f
processor	: 1
vendor_id	: GenuineIntel
physical id	: 0
core id		: 0
flags		: fpu sse sse2 avx avx2 avx512f
processor	: 2
physical id	: 0
core id		: 1
flags		: fpu sse sse2 avx avx2 avx512f
)";

constexpr char kArm[] = R"(processor	: 0
BogoMIPS	: 108.00
Features	: fp asimd evtstrm crc32 cpuid
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x0
CPU part	: 0xd08
CPU revision	: 3

processor	: 1
Features	: fp asimd evtstrm crc32 cpuid
CPU implementer	: 0x41
CPU part	: 0xd08
)";

TEST(HardwareFacts, ParsesX86CpuInfo) {
  v1::HardwareFacts facts;
  ParseCpuInfo(kX86, &facts);
  EXPECT_EQ(facts.cpu_vendor(), "GenuineIntel");
  EXPECT_EQ(facts.cpu_model(), "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");
  EXPECT_EQ(facts.cpu_part(), "6/85/7");
  ASSERT_EQ(facts.isa_flags_size(), 6);  // the first processor's list only
  EXPECT_EQ(facts.isa_flags(5), "avx512f");
  EXPECT_EQ(facts.logical_cpus(), 3);
  EXPECT_EQ(facts.physical_cores(), 2);  // processors 0 and 1 share core 0
}

TEST(HardwareFacts, ParsesArmCpuInfo) {
  v1::HardwareFacts facts;
  ParseCpuInfo(kArm, &facts);
  EXPECT_EQ(facts.cpu_vendor(), "0x41");
  EXPECT_EQ(facts.cpu_part(), "0xd08");
  EXPECT_EQ(facts.cpu_model(), "");
  ASSERT_EQ(facts.isa_flags_size(), 5);
  EXPECT_EQ(facts.isa_flags(1), "asimd");
  EXPECT_EQ(facts.logical_cpus(), 2);
  EXPECT_EQ(facts.physical_cores(), 2);
}

TEST(HardwareFacts, ParsesCacheSizes) {
  EXPECT_EQ(ParseCacheSize("32K\n"), 32768);
  EXPECT_EQ(ParseCacheSize("1M"), 1 << 20);
  EXPECT_EQ(ParseCacheSize("512"), 512);
  EXPECT_EQ(ParseCacheSize("lots"), 0);

  testing::TempDir sysfs;
  const auto write = [&](const std::string& index, const char* level, const char* type,
                         const char* size) {
    const std::string dir = sysfs.path() + "/" + index;
    std::filesystem::create_directory(dir);
    std::ofstream(dir + "/level") << level << "\n";
    std::ofstream(dir + "/type") << type << "\n";
    std::ofstream(dir + "/size") << size << "\n";
  };
  write("index0", "1", "Data", "48K");
  write("index1", "1", "Instruction", "32K");
  write("index2", "2", "Unified", "2048K");
  write("index3", "3", "Unified", "105M");
  v1::HardwareFacts facts;
  ReadCacheSizes(sysfs.path(), &facts);
  EXPECT_EQ(facts.l1d_cache_bytes(), 48 << 10);
  EXPECT_EQ(facts.l2_cache_bytes(), 2048 << 10);
  EXPECT_EQ(facts.l3_cache_bytes(), int64_t{105} << 20);
}

TEST(HardwareFacts, ReadsThisMachine) {
  const v1::HardwareFacts facts = ReadHardwareFacts();
  EXPECT_GT(facts.logical_cpus(), 0);
  EXPECT_GE(facts.logical_cpus(), facts.physical_cores());
  EXPECT_FALSE(facts.arch().empty());
  EXPECT_EQ(facts.os().rfind("Linux ", 0), 0u) << facts.os();
}

TEST(HardwareFacts, ReadsAnotherCpuDescriptionInsteadOfThisMachines) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/cpuinfo";
  std::ofstream(path) << kArm;
  const v1::HardwareFacts facts = ReadHardwareFacts(path);
  EXPECT_EQ(facts.cpu_vendor(), "0x41");
  EXPECT_EQ(facts.cpu_part(), "0xd08");
  EXPECT_EQ(facts.logical_cpus(), 2);
}

TEST(HardwareFacts, ACpuDescriptionOfAnotherArchitectureIsNamed) {
  v1::HardwareFacts arm_in_x86;  // the host's cpuinfo as qemu-aarch64 shows it
  ParseCpuInfo(kX86, &arm_in_x86);
  arm_in_x86.set_arch("aarch64");
  const std::string warning = CpuInfoMismatch(arm_in_x86);
  EXPECT_NE(warning.find("GenuineIntel"), std::string::npos) << warning;
  EXPECT_NE(warning.find("runs as aarch64"), std::string::npos) << warning;
  EXPECT_NE(warning.find("--cpuinfo"), std::string::npos) << warning;

  v1::HardwareFacts x86_in_arm;
  ParseCpuInfo(kArm, &x86_in_arm);
  x86_in_arm.set_arch("x86_64");
  EXPECT_NE(CpuInfoMismatch(x86_in_arm).find("an ARM CPU"), std::string::npos);

  v1::HardwareFacts board;
  ParseCpuInfo(kArm, &board);
  board.set_arch("aarch64");
  EXPECT_EQ(CpuInfoMismatch(board), "");
  v1::HardwareFacts server;
  ParseCpuInfo(kX86, &server);
  server.set_arch("x86_64");
  EXPECT_EQ(CpuInfoMismatch(server), "");
}

}  // namespace
}  // namespace tunefarm::agent
