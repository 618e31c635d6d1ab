// A device's target from its agent's raw facts (tuner/device_target.h), for devices that are
// not this machine: an x86 server, an ARM board with a known core, one with an unknown core.
#include "tuner/device_target.h"

#include <gtest/gtest.h>

namespace tunefarm::tuner {
namespace {

v1::HardwareFacts ArmBoard(const std::string& part) {
  v1::HardwareFacts facts;
  facts.set_arch("aarch64");
  facts.set_cpu_vendor("0x41");
  facts.set_cpu_part(part);
  for (const char* f : {"fp", "asimd", "evtstrm", "crc32", "cpuid", "asimddp", "sve"}) facts.add_isa_flags(f);
  facts.set_physical_cores(4);
  facts.set_logical_cpus(4);
  facts.set_l1d_cache_bytes(32 << 10);
  facts.set_l2_cache_bytes(1 << 20);
  return facts;
}

TEST(DeviceTarget, AnArmBoardGetsItsCoreNeonAndItsCaches) {
  auto target = TargetForDevice(ArmBoard("0xd08"), "");
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ(target->ToString(),
            "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+dotprod,+neon -num-cores=4 -l1d-cache=32768 "
            "-l2-cache=1048576");
  EXPECT_EQ(target->VectorLanes(te::DType::kFloat32), 4);
  EXPECT_EQ(target->VectorRegisters(), 32);  // NEON's, not SSE's 16
}

TEST(DeviceTarget, AnUnknownArmCoreIsAGenericAarch64) {
  auto target = TargetForDevice(ArmBoard("0xabc"), "");
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_TRUE(target->cpu.empty()) << target->ToString();
  EXPECT_TRUE(target->IsAArch64());
  EXPECT_TRUE(target->HasFeature("neon")) << target->ToString();
}

TEST(DeviceTarget, AnotherX86MachineGetsItsVectorFeatures) {
  v1::HardwareFacts facts;
  facts.set_arch("x86_64");
  facts.set_cpu_vendor("GenuineIntel");
  facts.set_cpu_model("Some Other Xeon");
  for (const char* f : {"fpu", "sse4_2", "avx", "avx2", "fma"}) facts.add_isa_flags(f);
  facts.set_physical_cores(8);
  auto target = TargetForDevice(facts, "");
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ(target->ToString(), "llvm -mtriple=x86_64-linux-gnu -mattr=+avx,+avx2,+fma,+sse4.2 -num-cores=8");
  EXPECT_EQ(target->VectorRegisters(), 16);
}

TEST(DeviceTarget, AJobsExplicitTargetWinsAndAnUnsupportedArchitectureIsAnError) {
  auto given = TargetForDevice(ArmBoard("0xd08"), "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a53");
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_EQ(given->cpu, "cortex-a53");
  v1::HardwareFacts riscv;
  riscv.set_arch("riscv64");
  auto refused = TargetForDevice(riscv, "");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("riscv64"), std::string::npos) << refused.status();
}

TEST(DeviceTarget, AGpuAgentGetsACudaTargetWithItsLimits) {
  v1::HardwareFacts facts = ArmBoard("0xd08");  // a Grace-like host: the GPU decides
  v1::GpuFacts* gpu = facts.add_gpus();
  gpu->set_name("NVIDIA H200");
  gpu->set_compute_capability("9.0");
  gpu->set_multiprocessors(132);
  gpu->set_max_threads_per_block(1024);
  gpu->set_max_shared_memory_per_block(49152);
  gpu->set_max_registers_per_block(65536);
  auto target = TargetForDevice(facts, "");
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ(target->ToString(),
            "cuda -arch=sm_90 -max-threads-per-block=1024 -max-shared-memory-per-block=49152 "
            "-max-registers-per-block=65536 -num-sms=132");
  gpu->set_compute_capability("nine");
  auto bad = TargetForDevice(facts, "");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("reports compute capability 'nine', not MAJOR.MINOR"),
            std::string::npos)
      << bad.status();
}

}  // namespace
}  // namespace tunefarm::tuner
