// What the search-space rules need to know about the device: a few hardware facts taken from
// the code generation target, so no rule hard-wires an x86 constant.
#pragma once

#include <algorithm>
#include <cstdint>

#include "compiler/codegen/target.h"

namespace tunefarm::tuner {

// Accumulators per GPU thread: 64 of the 255 registers a thread may have leave room for the
// operands and addresses.
inline constexpr int64_t kGpuRegisterTileElements = 64;
// Virtual threads per thread (a tiled stage's fused S1 loop): Ansor's limit for a cuda target
// (a quarter of a warp). Each multiplies the thread's accumulators, which stay within
// kGpuRegisterTileElements all together.
inline constexpr int64_t kMaxVirtualThreads = 8;

struct SearchTarget {
  int vector_lanes = 4;       // float32 elements per vector register
  int vector_registers = 16;  // architectural vector registers
  int64_t l1_bytes = 32 * 1024;
  int64_t l2_bytes = 512 * 1024;
  int cores = 1;
  // A GPU (a cuda target): the GPU sketch rules and annotation, and its per-block limits.
  bool gpu = false;
  int max_threads_per_block = 1024;
  int64_t max_shared_bytes = 48 * 1024;
  int64_t max_registers_per_block = 65536;
  int num_sms = 0;  // the device's SMs (-num-sms); 0: not known

  // Lanes, registers (codegen::Target::VectorRegisters), caches and cores are the target's;
  // for a cuda target, its thread and shared-memory limits.
  static SearchTarget FromTarget(const codegen::Target& target);

  // The widest loop random annotation vectorizes: four vectors (as the default rules' widest
  // vector tile), and never over codegen's limit of 64 lanes.
  int64_t MaxVectorExtent() const;
  // float32 accumulators the register file holds: the cap on a tile's innermost space level
  // (on a GPU, what one thread may accumulate: kGpuRegisterTileElements).
  int64_t RegisterTileElements() const {
    return gpu ? kGpuRegisterTileElements : static_cast<int64_t>(vector_registers) * vector_lanes;
  }
  // On a GPU, the accumulators a thread of a `threads`-thread block may hold: at most half the
  // registers the block's share of the register file leaves each thread (the rest hold the
  // operands and addresses; ptxas, bound to that share, spills beyond it), and at most
  // RegisterTileElements(). A 1,024-thread block has 64 registers a thread: 32 accumulators.
  int64_t AccumulatorsPerThread(int64_t threads) const {
    return std::min(RegisterTileElements(), max_registers_per_block / (2 * std::max<int64_t>(threads, 1)));
  }
};

}  // namespace tunefarm::tuner
