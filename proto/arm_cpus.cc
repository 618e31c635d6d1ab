#include "proto/arm_cpus.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace tunefarm::wire {
namespace {

struct ArmCore {
  uint32_t implementer, part;
  const char* llvm_name;
};

// Implementer 0x41 is Arm Ltd., 0x61 Apple, 0xc0 Ampere; parts per the cores' reference
// manuals. Only cores LLVM 19 knows by name.
constexpr ArmCore kCores[] = {
    {0x41, 0xd03, "cortex-a53"},  {0x41, 0xd04, "cortex-a35"},  {0x41, 0xd05, "cortex-a55"},
    {0x41, 0xd07, "cortex-a57"},  {0x41, 0xd08, "cortex-a72"},  {0x41, 0xd09, "cortex-a73"},
    {0x41, 0xd0a, "cortex-a75"},  {0x41, 0xd0b, "cortex-a76"},  {0x41, 0xd0c, "neoverse-n1"},
    {0x41, 0xd0d, "cortex-a77"},  {0x41, 0xd40, "neoverse-v1"}, {0x41, 0xd41, "cortex-a78"},
    {0x41, 0xd44, "cortex-x1"},   {0x41, 0xd46, "cortex-a510"}, {0x41, 0xd47, "cortex-a710"},
    {0x41, 0xd48, "cortex-x2"},   {0x41, 0xd49, "neoverse-n2"}, {0x41, 0xd4b, "cortex-a78c"},
    {0x41, 0xd4d, "cortex-a715"}, {0x41, 0xd4f, "neoverse-v2"}, {0xc0, 0xac3, "ampere1"},
};

// "0xd08" -> 0xd08; false for anything that is not one hex number.
bool ParseHex(std::string_view text, uint32_t* value) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
  if (text.empty() || text.size() > 8) return false;
  const std::string digits(text);
  char* end = nullptr;
  const unsigned long v = std::strtoul(digits.c_str(), &end, 16);
  if (end != digits.c_str() + digits.size()) return false;
  *value = static_cast<uint32_t>(v);
  return true;
}

}  // namespace

std::string ArmCpuName(std::string_view implementer, std::string_view part) {
  uint32_t i = 0, p = 0;
  if (!ParseHex(implementer, &i) || !ParseHex(part, &p)) return "";
  for (const ArmCore& core : kCores)
    if (core.implementer == i && core.part == p) return core.llvm_name;
  return "";
}

}  // namespace tunefarm::wire
