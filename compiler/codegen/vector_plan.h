// How a kVectorized loop is emitted (see docs/codegen.md, "Vectorized loops").
//
// The loop variable becomes a vector of lanes at code generation time. That is possible when
// every statement of the body can run for all lanes at once:
//  - no nested loop;
//  - every IfThenElse condition is the same for all lanes (does not use the variable);
//  - no store writes one address from all lanes (index without the variable, value with it).
// Select with a lane-dependent condition is fine (both arms are evaluated anyway, and every
// load is in bounds by the IR's rules). Otherwise the loop is emitted as a plain scalar loop
// and LLVM's own loop vectorizer gets a chance at it.
#pragma once

#include <cstdint>
#include <string>

#include "compiler/codegen/target.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::codegen {

struct VectorPlan {
  bool vectorize = false;
  std::string reason;         // why the loop stays scalar (for logs and tests)
  int chunk_lanes = 0;        // lanes of each full chunk
  int64_t num_full_chunks = 0;
  int tail_lanes = 0;         // lanes after the full chunks, 0 if none (emitted in PowerOfTwoChunk pieces)
  int native_lanes = 0;       // lanes of the widest element type in one register
};

// Up to this many native vectors per chunk: wide enough to keep the FMA units busy, small
// enough that LLVM does not spill the lane vectors.
inline constexpr int kMaxVectorsPerChunk = 4;

VectorPlan PlanVectorLoop(const tir::StmtNode& loop, const Target& target);

// The lanes of a chunk of at most `lanes`: `lanes` itself when it fits one register of `native`
// lanes, else the most native registers, in a power of two, that it holds. LLVM legalizes a
// vector of three registers' worth (<48 x float> with AVX-512) by splitting it lane by lane
// where rows of a register tile are unrolled around it: such a GEMM tile ran 25-40x slower than
// with chunks of 32 and 16 lanes. A loop of 48 lanes is a chunk of 32 and one of 16.
int64_t PowerOfTwoChunk(int64_t lanes, int native);

// True if `e` reads the loop variable `var_id`.
bool UsesVar(const te::Expr& e, int64_t var_id);

}  // namespace tunefarm::codegen
