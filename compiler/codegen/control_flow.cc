#include "compiler/codegen/control_flow.h"

#include <algorithm>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Metadata.h"

namespace tunefarm::codegen {
namespace {

llvm::BasicBlock* NewBlock(llvm::IRBuilderBase& b, const char* name) {
  return llvm::BasicBlock::Create(b.getContext(), name, b.GetInsertBlock()->getParent());
}

}  // namespace

void EmitCountedLoop(llvm::IRBuilderBase& b, llvm::Value* begin, llvm::Value* end,
                     const std::function<void(llvm::Value*)>& body, bool unroll) {
  llvm::BasicBlock* pre = b.GetInsertBlock();
  llvm::BasicBlock* head = NewBlock(b, "for.head");
  llvm::BasicBlock* body_bb = NewBlock(b, "for.body");
  llvm::BasicBlock* exit = NewBlock(b, "for.end");
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2);
  i->addIncoming(begin, pre);
  b.CreateCondBr(b.CreateICmpSLT(i, end), body_bb, exit);
  b.SetInsertPoint(body_bb);
  body(i);
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
  llvm::BranchInst* latch = b.CreateBr(head);
  if (unroll) {
    llvm::LLVMContext& ctx = b.getContext();
    llvm::MDNode* full = llvm::MDNode::get(ctx, {llvm::MDString::get(ctx, "llvm.loop.unroll.full")});
    llvm::MDNode* id = llvm::MDNode::getDistinct(ctx, {nullptr, full});
    id->replaceOperandWith(0, id);
    latch->setMetadata(llvm::LLVMContext::MD_loop, id);
  }
  i->addIncoming(next, b.GetInsertBlock());
  b.SetInsertPoint(exit);
}

void EmitIfThenElse(llvm::IRBuilderBase& b, llvm::Value* cond, const std::function<void()>& then_body,
                    const std::function<void()>& else_body) {
  llvm::BasicBlock* then_bb = NewBlock(b, "if.then");
  llvm::BasicBlock* else_bb = else_body ? NewBlock(b, "if.else") : nullptr;
  llvm::BasicBlock* merge = NewBlock(b, "if.end");
  b.CreateCondBr(cond, then_bb, else_bb ? else_bb : merge);
  b.SetInsertPoint(then_bb);
  then_body();
  b.CreateBr(merge);
  if (else_bb) {
    b.SetInsertPoint(else_bb);
    else_body();
    b.CreateBr(merge);
  }
  b.SetInsertPoint(merge);
}

llvm::AllocaInst* EntryBlockSlot(llvm::Function* fn, llvm::Type* type, int64_t elements, const std::string& name,
                                 uint64_t alignment) {
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  llvm::AllocaInst* slot = entry.CreateAlloca(type, entry.getInt64(std::max<int64_t>(elements, 1)), name);
  slot->setAlignment(llvm::Align(alignment));
  return slot;
}

}  // namespace tunefarm::codegen
