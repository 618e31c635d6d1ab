// Bank conflicts of shared-memory accesses, as the first warp of a block sees them.
//
// Shared memory is 32 banks of 4-byte words; the lanes of a warp that touch different words of
// one bank are served one after another (lanes reading the same word share one read). The
// "ways" of an access are the most distinct words any one bank serves: 1 is conflict-free, 32
// the worst. They are computed exactly for one instance of the access: the first warp (threads
// 0..31 in threadIdx.x-fastest order), the first block, and the first iteration of every loop
// not bound to a thread axis. A GEMM's shared tiles are read the same way at every step, so one
// instance stands for all of them.
//
// A warp reading down a column of a row-major tile (a thread per row) is the classic conflict:
// rows of 16 words put 32 lanes on 2 banks (16 ways); padding each row to 17 words (an odd
// stride, schedule step "SA") spreads them over all 32.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

inline constexpr int kSharedMemoryBanks = 32;

// A loop around an access, outermost first: a thread-bound loop takes each lane's index along
// its axis (block axes take 0), any other loop its first iteration. The block's shape is read
// off these loops (the outermost loop bound to each thread axis), so an access outside a
// thread loop of its launch sees a block without that axis; the GPU sketches bind threadIdx.x
// only, around every access.
struct WarpLoop {
  int64_t var = 0;
  ThreadAxis axis = ThreadAxis::kNone;  // kNone: not bound
  ForKind kind = ForKind::kSerial;
  int64_t extent = 1;
};

// The ways of an access of `element_bytes`-wide elements at `index` (an element index) inside
// `loops`; 0 when the index cannot be evaluated (it reads memory, or names no enclosing loop).
int WarpBankConflictWays(const Expr& index, int element_bytes, const std::vector<WarpLoop>& loops);

struct SharedAccess {
  int buffer = -1;
  bool store = false;  // a store, else a load
  int ways = 0;
};

// Every load and store of a shared buffer of `f` in `body` (a launch's body, or f.body), in
// program order.
std::vector<SharedAccess> SharedBankConflicts(const PrimFunc& f, const Stmt& body);

}  // namespace tunefarm::tir
