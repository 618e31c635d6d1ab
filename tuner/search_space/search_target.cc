#include "tuner/search_space/search_target.h"

#include <algorithm>

namespace tunefarm::tuner {

SearchTarget SearchTarget::FromTarget(const codegen::Target& target) {
  SearchTarget t;
  t.vector_lanes = target.VectorLanes(te::DType::kFloat32);
  t.vector_registers = target.VectorRegisters();
  t.l1_bytes = target.L1dCacheBytes();
  t.l2_bytes = target.L2CacheBytes();
  t.cores = target.Cores();
  if (target.IsCuda()) {
    t.gpu = true;
    t.max_threads_per_block = target.MaxThreadsPerBlock();
    t.max_shared_bytes = target.MaxSharedMemoryPerBlock();
    t.max_registers_per_block = target.MaxRegistersPerBlock();
    t.num_sms = target.gpu.num_sms;
  }
  return t;
}

int64_t SearchTarget::MaxVectorExtent() const {
  constexpr int64_t kCodegenMaxVectorExtent = 64;  // compiler/schedule/annotation_step.cc
  return std::min<int64_t>(kCodegenMaxVectorExtent, 4 * static_cast<int64_t>(std::max(vector_lanes, 1)));
}

}  // namespace tunefarm::tuner
