// ARM cores by the numbers an ARM board's /proc/cpuinfo reports ("CPU implementer" and "CPU
// part"), as LLVM names them (-mcpu). The tuner derives an ARM device's target from this
// (tuner/device_target.h); `tunefarm devices` shows the name, or warns that a part is unknown
// and its device is tuned as a generic aarch64. Add a core: one row in arm_cpus.cc, with the
// part number from the core's Technical Reference Manual (MIDR_EL1.PartNum).
#ifndef TUNEFARM_PROTO_ARM_CPUS_H_
#define TUNEFARM_PROTO_ARM_CPUS_H_

#include <string>
#include <string_view>

namespace tunefarm::wire {

// LLVM's name for the core ("cortex-a72"), or "" when the pair is not known. Both numbers are
// as cpuinfo prints them ("0x41", "0xd08"); hex case and leading zeros do not matter.
std::string ArmCpuName(std::string_view implementer, std::string_view part);

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_ARM_CPUS_H_
