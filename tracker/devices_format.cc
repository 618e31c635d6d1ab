#include "tracker/devices_format.h"

#include <algorithm>
#include <vector>

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/arm_cpus.h"

namespace tunefarm::tracker {
namespace {

// Left-aligned columns, two spaces apart.
std::string Columns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

std::string Cpu(const v1::HardwareFacts& facts) {
  if (facts.arch() == "aarch64" && !facts.cpu_part().empty()) {
    const std::string name = wire::ArmCpuName(facts.cpu_vendor(), facts.cpu_part());
    const std::string numbers = absl::StrCat(facts.cpu_vendor(), " ", facts.cpu_part());
    if (name.empty()) return absl::StrCat(numbers, " (warning: unknown ARM part, tuned as a generic aarch64)");
    return absl::StrCat(name, " (", numbers, ")");
  }
  if (!facts.cpu_model().empty()) return facts.cpu_model();
  if (!facts.cpu_part().empty()) return absl::StrCat(facts.cpu_vendor(), " ", facts.cpu_part());
  return facts.arch().empty() ? "-" : facts.arch();
}

// "NVIDIA H100 80GB HBM3 (sm_90)" for a GPU agent's device, "-" for a CPU's.
std::string Gpu(const v1::HardwareFacts& facts) {
  if (facts.gpus().empty()) return "-";
  const v1::GpuFacts& gpu = facts.gpus(0);
  std::string arch = gpu.compute_capability();
  arch.erase(std::remove(arch.begin(), arch.end(), '.'), arch.end());
  return absl::StrCat(gpu.name(), " (sm_", arch, ")");
}

}  // namespace

std::string FormatDevicesTable(const v1::ListDevicesReply& reply) {
  if (reply.pools().empty()) return "no devices registered\n";
  std::vector<std::vector<std::string>> pools = {{"POOL", "DEVICES", "LEASED", "WAITING"}};
  for (const v1::PoolInfo& p : reply.pools()) {
    pools.push_back({p.key(), absl::StrCat(p.devices()), absl::StrCat(p.leased(), "/", p.capacity()),
                     absl::StrCat(p.waiting())});
  }
  std::vector<std::vector<std::string>> devices = {
      {"KEY", "ADDRESS", "STATE", "LEASED", "HOLDERS", "CPU", "CORES", "GPU", "LAST SEEN", "AGENT"}};
  for (const v1::DeviceInfo& d : reply.devices()) {
    devices.push_back({d.key(), d.address(), d.state() == v1::DEVICE_STATE_BUSY ? "busy" : "idle",
                       absl::StrCat(d.leased(), "/", d.capacity()),
                       d.holders().empty() ? "-" : absl::StrJoin(d.holders(), ","),
                       Cpu(d.facts()), absl::StrCat(d.facts().physical_cores()), Gpu(d.facts()),
                       absl::StrCat(d.last_seen_ms_ago(), " ms ago"), d.agent_id()});
  }
  return absl::StrCat(Columns(pools), "\n", Columns(devices));
}

std::string FormatDevicesJson(const v1::ListDevicesReply& reply) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(reply, &json, options);
  return json;
}

}  // namespace tunefarm::tracker
