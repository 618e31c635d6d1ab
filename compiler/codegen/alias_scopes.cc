#include "compiler/codegen/alias_scopes.h"

#include "llvm/IR/Instruction.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Metadata.h"

namespace tunefarm::codegen {

WorkspaceAliasScopes::WorkspaceAliasScopes(llvm::LLVMContext& ctx, const tir::PrimFunc& func)
    : lists_(func.buffers.size()) {
  std::vector<int> slots;
  for (size_t i = 0; i < func.buffers.size(); ++i)
    if (static_cast<int>(i) >= func.num_args && func.buffers[i].scope == tir::BufferScope::kWorkspace)
      slots.push_back(static_cast<int>(i));
  if (slots.size() < 2) return;
  llvm::MDBuilder md(ctx);
  llvm::MDNode* domain = md.createAnonymousAliasScopeDomain(func.name);
  std::vector<llvm::Metadata*> scopes;
  for (int b : slots) scopes.push_back(md.createAnonymousAliasScope(domain, func.buffers[b].name));
  for (size_t k = 0; k < slots.size(); ++k) {
    std::vector<llvm::Metadata*> others;
    for (size_t j = 0; j < slots.size(); ++j)
      if (j != k) others.push_back(scopes[j]);
    lists_[slots[k]] = {llvm::MDNode::get(ctx, {scopes[k]}), llvm::MDNode::get(ctx, others)};
  }
}

void WorkspaceAliasScopes::Tag(llvm::Instruction* access, int buffer) const {
  if (buffer < 0 || buffer >= static_cast<int>(lists_.size()) || lists_[buffer].scope == nullptr) return;
  access->setMetadata(llvm::LLVMContext::MD_alias_scope, lists_[buffer].scope);
  access->setMetadata(llvm::LLVMContext::MD_noalias, lists_[buffer].noalias);
}

}  // namespace tunefarm::codegen
