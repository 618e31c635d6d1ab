#include "tracker/pool_facts.h"

#include <set>

#include "absl/strings/str_cat.h"

namespace tunefarm::tracker {
namespace {

template <typename T>
std::string Differs(const char* field, const T& device, const T& pool) {
  if (device == pool) return "";
  return absl::StrCat(field, " '", device, "' (the pool's: '", pool, "')");
}

std::string FlagsDiffer(const v1::HardwareFacts& pool, const v1::HardwareFacts& device) {
  const std::set<std::string> p(pool.isa_flags().begin(), pool.isa_flags().end());
  const std::set<std::string> d(device.isa_flags().begin(), device.isa_flags().end());
  for (const std::string& f : d)
    if (!p.count(f)) return absl::StrCat("ISA flag '", f, "', which the pool's devices lack");
  for (const std::string& f : p)
    if (!d.count(f)) return absl::StrCat("no ISA flag '", f, "', which the pool's devices have");
  return "";
}

std::string GpusDiffer(const v1::HardwareFacts& pool, const v1::HardwareFacts& device) {
  if (pool.gpus_size() != device.gpus_size()) {
    return absl::StrCat(device.gpus_size(), " GPUs (the pool's: ", pool.gpus_size(), ")");
  }
  for (int i = 0; i < pool.gpus_size(); ++i) {
    const v1::GpuFacts& p = pool.gpus(i);
    const v1::GpuFacts& d = device.gpus(i);
    if (std::string s = Differs("GPU", d.name(), p.name()); !s.empty()) return s;
    if (std::string s = Differs("GPU compute capability", d.compute_capability(), p.compute_capability());
        !s.empty())
      return s;
    // What the GPU target string is made of: two slices of one GPU (MIG) share its name and
    // compute capability, but not their multiprocessors.
    if (std::string s = Differs("GPU multiprocessors", d.multiprocessors(), p.multiprocessors()); !s.empty()) return s;
    if (std::string s = Differs("GPU shared memory per block", d.max_shared_memory_per_block(),
                                p.max_shared_memory_per_block());
        !s.empty())
      return s;
    if (std::string s = Differs("GPU threads per block", d.max_threads_per_block(), p.max_threads_per_block());
        !s.empty())
      return s;
    if (std::string s = Differs("GPU registers per block", d.max_registers_per_block(), p.max_registers_per_block());
        !s.empty())
      return s;
  }
  return "";
}

}  // namespace

std::string PoolFactsMismatch(const v1::HardwareFacts& pool, const v1::HardwareFacts& device) {
  const std::string checks[] = {
      Differs("arch", device.arch(), pool.arch()),
      Differs("cpu_vendor", device.cpu_vendor(), pool.cpu_vendor()),
      Differs("cpu_model", device.cpu_model(), pool.cpu_model()),
      Differs("cpu_part", device.cpu_part(), pool.cpu_part()),
      FlagsDiffer(pool, device),
      Differs("physical_cores", device.physical_cores(), pool.physical_cores()),
      Differs("logical_cpus", device.logical_cpus(), pool.logical_cpus()),
      Differs("l1d_cache_bytes", device.l1d_cache_bytes(), pool.l1d_cache_bytes()),
      Differs("l2_cache_bytes", device.l2_cache_bytes(), pool.l2_cache_bytes()),
      Differs("l3_cache_bytes", device.l3_cache_bytes(), pool.l3_cache_bytes()),
      GpusDiffer(pool, device),
  };
  for (const std::string& s : checks)
    if (!s.empty()) return s;
  return "";
}

}  // namespace tunefarm::tracker
