#include "proto/hardware_facts.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>
#include <sstream>
#include <utility>

#include "common/file_read.h"
#include "common/strings.h"

namespace tunefarm::wire {
namespace {

std::string_view Trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  const size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

// Empty when the file is missing: sysfs and /proc differ between kernels and boards.
std::string ReadFile(const std::string& path) { return ReadWholeFile(path, "").value_or(""); }

}  // namespace

int64_t ParseCacheSize(std::string_view text) {
  text = Trim(text);
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || value < 0) return 0;
  const std::string_view unit = Trim(text.substr(static_cast<size_t>(end - text.data())));
  if (unit.empty()) return value;
  switch (unit[0]) {
    case 'K': case 'k': return value << 10;
    case 'M': case 'm': return value << 20;
    case 'G': case 'g': return value << 30;
  }
  return 0;
}

void ParseCpuInfo(std::string_view text, v1::HardwareFacts* facts) {
  int processors = 0;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::string physical_id, family, model, stepping;
  bool flags_done = false;
  for (const std::string_view line : StrSplit(text, '\n')) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = Trim(line.substr(0, colon));
    const std::string value(Trim(line.substr(colon + 1)));
    if (key == "processor") {
      ++processors;
    } else if (key == "vendor_id" || key == "CPU implementer") {
      if (facts->cpu_vendor().empty()) facts->set_cpu_vendor(value);
    } else if (key == "model name") {
      if (facts->cpu_model().empty()) facts->set_cpu_model(value);
    } else if (key == "CPU part") {
      if (facts->cpu_part().empty()) facts->set_cpu_part(value);
    } else if (key == "cpu family") {
      if (family.empty()) family = value;
    } else if (key == "model") {
      if (model.empty()) model = value;
    } else if (key == "stepping") {
      if (stepping.empty()) stepping = value;
    } else if (key == "physical id") {
      physical_id = value;
    } else if (key == "core id") {
      cores.insert({physical_id, value});
    } else if ((key == "flags" || key == "Features") && !flags_done) {
      // Every processor lists the same flags; the first processor's list is the machine's.
      flags_done = true;
      std::istringstream words(value);
      for (std::string flag; words >> flag;) facts->add_isa_flags(flag);
    }
  }
  if (facts->cpu_part().empty() && !family.empty()) {
    facts->set_cpu_part(family + "/" + model + "/" + stepping);
  }
  facts->set_logical_cpus(processors);
  facts->set_physical_cores(cores.empty() ? processors : static_cast<int32_t>(cores.size()));
}

void ReadCacheSizes(const std::string& cache_dir, v1::HardwareFacts* facts) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(cache_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("index", 0) != 0) continue;
    const std::string dir = entry.path().string();
    const std::string level(Trim(ReadFile(dir + "/level")));
    const std::string type(Trim(ReadFile(dir + "/type")));
    const int64_t size = ParseCacheSize(ReadFile(dir + "/size"));
    if (level == "1" && type == "Data") facts->set_l1d_cache_bytes(size);
    if (level == "2" && type != "Instruction") facts->set_l2_cache_bytes(size);
    if (level == "3" && type != "Instruction") facts->set_l3_cache_bytes(size);
  }
}

v1::HardwareFacts ReadHardwareFacts(const std::string& cpuinfo_path) {
  v1::HardwareFacts facts;
  ParseCpuInfo(ReadFile(cpuinfo_path), &facts);
  if (facts.logical_cpus() == 0) {
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    facts.set_logical_cpus(static_cast<int32_t>(online > 0 ? online : 1));
    facts.set_physical_cores(facts.logical_cpus());
  }
  ReadCacheSizes("/sys/devices/system/cpu/cpu0/cache", &facts);
  // glibc reads the sizes from cpuid where sysfs has nothing (e.g. in some VMs).
  if (facts.l1d_cache_bytes() == 0) facts.set_l1d_cache_bytes(std::max(0L, sysconf(_SC_LEVEL1_DCACHE_SIZE)));
  if (facts.l2_cache_bytes() == 0) facts.set_l2_cache_bytes(std::max(0L, sysconf(_SC_LEVEL2_CACHE_SIZE)));
  if (facts.l3_cache_bytes() == 0) facts.set_l3_cache_bytes(std::max(0L, sysconf(_SC_LEVEL3_CACHE_SIZE)));
  utsname name{};
  if (uname(&name) == 0) {
    facts.set_os(std::string(name.sysname) + " " + name.release);
    facts.set_arch(name.machine);
  }
  return facts;
}

std::string CpuInfoMismatch(const v1::HardwareFacts& facts) {
  // ARM's "CPU implementer" is a number ("0x41"); x86's vendor_id a name ("GenuineIntel").
  const std::string& vendor = facts.cpu_vendor();
  if (vendor.empty()) return "";
  const bool arm_cpuinfo = vendor.rfind("0x", 0) == 0;
  const bool arm_process = facts.arch() == "aarch64" || facts.arch() == "arm64";
  if (arm_cpuinfo == arm_process) return "";
  return std::string("the CPU description (vendor \"") + vendor + "\") is of " +
         (arm_cpuinfo ? "an ARM" : "an x86") + " CPU, but this agent runs as " + facts.arch() +
         ": under an emulator such as qemu-user, which shows the host's /proc/cpuinfo? "
         "Pass --cpuinfo FILE with the board's own description, or the tuner will build for "
         "the wrong CPU";
}

}  // namespace tunefarm::wire
