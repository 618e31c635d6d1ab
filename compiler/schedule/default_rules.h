// Default schedules as rules: an ordered table of small rules, each with a condition and an
// action on one stage, applied to a (fused) compute DAG from its outputs backwards. The same
// rules schedule a conv alone and a conv + bias + relu + add; the tuner's sketch rules extend
// this machinery with choices where these rules make fixed ones.
//
// The table (first matching rule wins for a stage):
//   1. inline          strictly inlinable stages (elementwise, padding) are inlined
//   2. tile+epilogue   a reuse-heavy stage (GEMM, conv) read by an elementwise output: the
//                      output is tiled, the stage is computed per output tile and tiled for
//                      registers inside it
//   3. tile            a reuse-heavy stage with no such consumer: tiled for registers itself
//                      (a tile one vector wide, as in an NCHW[x]c conv, also tiles a second
//                      reused axis: col x row vectors sized to the register file; a tile of
//                      several vectors a row, as in a GEMM, is rows x vectors sized to it, its
//                      column strips outermost when it is wider than tall)
//   4. reduction       a reduction without reuse (pooling, row sums): outer loops parallel,
//                      the innermost space loop moved inside the reduce loops and vectorized
//   5. elementwise     anything else at the root: the innermost axis split by the vector
//                      width and vectorized (alone, so lanes stay contiguous), the loops
//                      around it fused and run in parallel
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "compiler/schedule/state.h"

namespace tunefarm::schedule {

struct RuleContext {
  int vector_lanes = 8;  // float32 lanes of the target's vectors
  int num_threads = 1;
  // The target's vector registers (codegen::Target::VectorRegisters); 0: as an x86 target with
  // these lanes would have (32 with 16 lanes, else 16).
  int vector_registers = 0;
  int Registers() const { return vector_registers > 0 ? vector_registers : (vector_lanes >= 16 ? 32 : 16); }
};

struct ScheduleRule {
  std::string_view name;
  bool (*condition)(const State& state, int stage, const RuleContext& ctx);
  absl::Status (*apply)(State* state, int stage, const RuleContext& ctx);
};

// The rules above, in order.
const std::vector<ScheduleRule>& DefaultRules();

// Applies the first matching rule to every stage, outputs first. `applied`, if given, receives
// "stage: rule" lines (for logs and tests).
absl::StatusOr<State> ApplyDefaultSchedule(std::shared_ptr<const te::ComputeDag> dag, const RuleContext& ctx,
                                           std::vector<std::string>* applied = nullptr);

}  // namespace tunefarm::schedule
