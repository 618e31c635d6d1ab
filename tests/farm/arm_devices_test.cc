// ARM boards in the device list: the core's LLVM name from cpuinfo's implementer and part,
// or a warning that the part is unknown and the board is tuned as a generic aarch64.
#include <gtest/gtest.h>

#include "proto/arm_cpus.h"
#include "tracker/devices_format.h"

namespace tunefarm::tracker {
namespace {

TEST(ArmCpus, NamesKnownCoresWhateverTheHexSpelling) {
  EXPECT_EQ(wire::ArmCpuName("0x41", "0xd08"), "cortex-a72");
  EXPECT_EQ(wire::ArmCpuName("0x41", "0xD03"), "cortex-a53");
  EXPECT_EQ(wire::ArmCpuName("0x41", "0x0d0b"), "cortex-a76");
  EXPECT_EQ(wire::ArmCpuName("0x41", "0xd0c"), "neoverse-n1");
  EXPECT_EQ(wire::ArmCpuName("0x41", "0xd40"), "neoverse-v1");
  EXPECT_EQ(wire::ArmCpuName("0x41", "0xfff"), "");
  EXPECT_EQ(wire::ArmCpuName("0x42", "0xd08"), "");  // another implementer's part numbers
  EXPECT_EQ(wire::ArmCpuName("GenuineIntel", "6/167/1"), "");
  EXPECT_EQ(wire::ArmCpuName("", ""), "");
}

v1::ListDevicesReply OneArmDevice(const std::string& part) {
  v1::ListDevicesReply reply;
  v1::PoolInfo* pool = reply.add_pools();
  pool->set_key("arm-board");
  pool->set_devices(1);
  v1::DeviceInfo* d = reply.add_devices();
  d->set_key("arm-board");
  d->set_address("10.0.0.7:9191");
  d->mutable_facts()->set_arch("aarch64");
  d->mutable_facts()->set_cpu_vendor("0x41");
  d->mutable_facts()->set_cpu_part(part);
  return reply;
}

TEST(ArmCpus, TheDeviceListNamesTheCoreOrWarnsAboutAnUnknownPart) {
  const std::string known = FormatDevicesTable(OneArmDevice("0xd08"));
  EXPECT_NE(known.find("cortex-a72 (0x41 0xd08)"), std::string::npos) << known;
  EXPECT_EQ(known.find("warning"), std::string::npos) << known;
  const std::string unknown = FormatDevicesTable(OneArmDevice("0xabc"));
  EXPECT_NE(unknown.find("0x41 0xabc (warning: unknown ARM part, tuned as a generic aarch64)"), std::string::npos)
      << unknown;
}

// A GPU agent's device shows its GPU and arch beside the host's CPU; a CPU's shows "-".
TEST(DeviceList, AGpuAgentsDeviceNamesItsGpu) {
  v1::ListDevicesReply reply = OneArmDevice("0xd08");
  v1::GpuFacts* gpu = reply.mutable_devices(0)->mutable_facts()->add_gpus();
  gpu->set_name("NVIDIA H100 80GB HBM3");
  gpu->set_compute_capability("9.0");
  const std::string table = FormatDevicesTable(reply);
  EXPECT_NE(table.find("GPU"), std::string::npos) << table;
  EXPECT_NE(table.find("NVIDIA H100 80GB HBM3 (sm_90)"), std::string::npos) << table;
  EXPECT_NE(table.find("cortex-a72"), std::string::npos) << table;
  const std::string cpu_only = FormatDevicesTable(OneArmDevice("0xd08"));
  EXPECT_EQ(cpu_only.find("sm_"), std::string::npos) << cpu_only;
}

}  // namespace
}  // namespace tunefarm::tracker
