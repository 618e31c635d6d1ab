// The control flow that the CPU and the GPU code generators emit the same way: counted loops,
// if/else, and a function's stack slots. Each takes the builder at its insertion point and
// leaves it at the code that follows.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace llvm {
class AllocaInst;
class Function;
class IRBuilderBase;
class Type;
class Value;
}  // namespace llvm

namespace tunefarm::codegen {

// for (i = begin; i < end; ++i) body(i), i an int64 phi. `unroll` asks LLVM to unroll it fully
// (llvm.loop.unroll.full).
void EmitCountedLoop(llvm::IRBuilderBase& b, llvm::Value* begin, llvm::Value* end,
                     const std::function<void(llvm::Value*)>& body, bool unroll = false);

// if (cond) then_body(); else else_body(); with no else block when else_body is empty.
void EmitIfThenElse(llvm::IRBuilderBase& b, llvm::Value* cond, const std::function<void()>& then_body,
                    const std::function<void()>& else_body = nullptr);

// `elements` (at least 1) values of `type` on `fn`'s stack, allocated in its entry block (so a
// loop around the use does not grow the stack, and SROA can promote it to registers).
llvm::AllocaInst* EntryBlockSlot(llvm::Function* fn, llvm::Type* type, int64_t elements, const std::string& name,
                                 uint64_t alignment);

}  // namespace tunefarm::codegen
