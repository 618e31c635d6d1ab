// The raw hardware facts an agent reports (HardwareFacts in the proto): what /proc/cpuinfo,
// sysfs and uname say, uninterpreted. The tuner maps them to a target string, so the agent
// needs no LLVM to know what it is.
#ifndef TUNEFARM_PROTO_HARDWARE_FACTS_H_
#define TUNEFARM_PROTO_HARDWARE_FACTS_H_

#include <string>
#include <string_view>

#include "proto/tunefarm.pb.h"

namespace tunefarm::wire {

// Fills vendor, model, part, ISA flags and core counts from /proc/cpuinfo text. x86: vendor_id,
// "model name", part "family/model/stepping", "flags", cores from distinct (physical id,
// core id). ARM: "CPU implementer", "CPU part", "Features"; cores = processors.
void ParseCpuInfo(std::string_view text, v1::HardwareFacts* facts);

// Fills L1d/L2/L3 sizes from a sysfs cache directory (.../cpu0/cache: index*/level, type,
// size). Leaves them untouched when the directory is missing (some VMs have none).
void ReadCacheSizes(const std::string& cache_dir, v1::HardwareFacts* facts);

// "32K" -> 32768, "1M" -> 1048576, "512" -> 512; 0 when unparsable.
int64_t ParseCacheSize(std::string_view text);

// The facts of this machine: cpuinfo (from `cpuinfo_path`: another file stands in for a
// board's own description under an emulator), sysfs caches (glibc's sysconf values where sysfs
// has none), uname.
v1::HardwareFacts ReadHardwareFacts(const std::string& cpuinfo_path = "/proc/cpuinfo");

// Empty when the CPU description fits the architecture uname reports; otherwise a warning
// that it does not (an x86 cpuinfo in an aarch64 process: qemu-user shows the host's).
std::string CpuInfoMismatch(const v1::HardwareFacts& facts);

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_HARDWARE_FACTS_H_
