// Tells LLVM that distinct workspace buffers never overlap.
//
// Workspace buffers are slots at fixed offsets of one workspace pointer, so LLVM's alias
// analysis sees them as one object and cannot keep a value in a register across a store to
// another slot. A conv whose padding is a workspace stage and whose accumulator is another
// then reloads and stores its accumulators around every FMA (2x slower, SqueezeNet's 3x3
// expand convs). The slots are disjoint by construction (buffer_plan.h lays them end to end
// and never reuses one), so each gets its own alias scope, and every access to a slot is
// marked as not aliasing the others. Arguments are already `noalias` parameters and local
// buffers are allocas, so only workspace accesses are tagged.
#pragma once

#include <vector>

#include "compiler/tir/stmt.h"

namespace llvm {
class Instruction;
class LLVMContext;
class MDNode;
}  // namespace llvm

namespace tunefarm::codegen {

class WorkspaceAliasScopes {
 public:
  WorkspaceAliasScopes(llvm::LLVMContext& ctx, const tir::PrimFunc& func);

  // Marks a load, store, gather or scatter of `buffer`; a no-op for other buffers or when the
  // function has fewer than two workspace slots.
  void Tag(llvm::Instruction* access, int buffer) const;

 private:
  struct Lists {
    llvm::MDNode* scope = nullptr;    // !alias.scope: this slot
    llvm::MDNode* noalias = nullptr;  // !noalias: every other slot
  };
  std::vector<Lists> lists_;  // per buffer id; null lists for non-workspace buffers
};

}  // namespace tunefarm::codegen
