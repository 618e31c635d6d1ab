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
// the virtual thread (its index, its value, or the if that guards it uses the variable or
// another such buffer) gets one copy per virtual thread ("owned"): its shape gains a leading
// dimension of the loop's extent and every access is offset by var * size. So a thread's
// accumulators for all its virtual threads are one buffer indexed by constants once unrolled,
// and stay in registers, while a shared tile is fetched once per step for all of them.
//
// Running a statement that does not depend on the virtual thread once, interleaved with the
// others, is right when what it writes is a buffer allocated inside the loop and not owned:
// every virtual thread would compute it from its own start (an init, a fetch) to the same
// contents, and no dependent statement writes it (that would make it owned). A store of that
// kind to a buffer from outside the loop (an argument, the workspace) is right once when it
// stores what it would store every time; but when it reads what the loop writes outside (an
// update in place, accumulating) it would count once instead of once per virtual thread: then
// the loop stays a plain serial loop, the same result without the interleaving.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

// Replaces every kVirtualThread loop of `body`, innermost first. `buffers` are the function's
// (owned buffers are reshaped); `next_var_id` numbers the fresh loop variables.
Stmt InjectVirtualThreads(const Stmt& body, std::vector<Buffer>* buffers, int64_t* next_var_id);

}  // namespace tunefarm::tir
