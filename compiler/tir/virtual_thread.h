// Virtual threads (TVM's InjectVirtualThread, done our way). A loop bound to "vthread" means:
// each thread runs all of its iterations, and they are independent, like threads. Lowering
// emits it as a kVirtualThread loop; InjectVirtualThreads then replaces it by pushing the loop
// down the statement tree:
//  - a statement that neither uses the loop variable nor touches a buffer the iterations own
//    is run once (a shared tile's fetch, which every virtual thread reads alike, a barrier);
//  - a sequence, a loop, an if on a condition that does not use the variable, and an Allocate
//    are kept, with the loop pushed into their parts;
//  - anything else (a store, an if on the variable) becomes an unrolled loop over the virtual
//    threads, innermost.
// A local or shared buffer allocated inside the loop and written by a store that depends on
// the virtual thread gets one copy per virtual thread ("owned"): its shape gains a leading
// dimension of the loop's extent and every access is offset by var * size. So a thread's
// accumulators for all its virtual threads are one buffer indexed by constants once unrolled,
// and stay in registers, while a shared tile is fetched once per step for all of them.
//
// Running a statement that does not depend on the virtual thread once, interleaved with the
// others, is right because a stage's nest lies wholly inside its attach loop: every virtual
// thread would run it from its own start (an init, a fetch) to the same result, and a statement
// that reads what a dependent one wrote depends on the virtual thread itself. (A loop of unknown
// extent, which lowering never makes, stays a serial loop.)
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

// Replaces every kVirtualThread loop of `body`, innermost first. `buffers` are the function's
// (owned buffers are reshaped); `next_var_id` numbers the fresh loop variables.
Stmt InjectVirtualThreads(const Stmt& body, std::vector<Buffer>* buffers, int64_t* next_var_id);

}  // namespace tunefarm::tir
