#include "compiler/codegen/nvptx_codegen.h"

#include <functional>
#include <map>
#include <set>
#include <string>

#include "common/check.h"
#include "common/strings.h"
#include "compiler/codegen/control_flow.h"
#include "compiler/codegen/expr_emitter.h"
#include "compiler/codegen/llvm_codegen.h"
#include "compiler/codegen/llvm_target.h"
#include "compiler/codegen/metadata.h"
#include "compiler/codegen/vector_plan.h"
#include "compiler/tir/gpu_barriers.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/stmt_functor.h"
#include "deploy/tunefarm_abi.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace tunefarm::codegen {
namespace {

using llvm::BasicBlock;
using llvm::Value;
using tir::StmtNode;

// Global memory: where NVPTX puts variables that the host reads with cuModuleGetGlobal.
constexpr unsigned kGlobalAddressSpace = 1;
// A block's shared memory.
constexpr unsigned kSharedAddressSpace = 3;

llvm::Intrinsic::ID SpecialRegister(tir::ThreadAxis axis) {
  switch (axis) {
    case tir::ThreadAxis::kBlockX: return llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x;
    case tir::ThreadAxis::kBlockY: return llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y;
    case tir::ThreadAxis::kBlockZ: return llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z;
    case tir::ThreadAxis::kThreadX: return llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x;
    case tir::ThreadAxis::kThreadY: return llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y;
    case tir::ThreadAxis::kThreadZ: return llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z;
    case tir::ThreadAxis::kNone: break;
  }
  TF_CHECK(false, "a thread-binding loop without a thread axis (tir::For and VerifyPrimFunc refuse one)");
  return llvm::Intrinsic::not_intrinsic;
}

// Emits one launch of one PrimFunc as a kernel: scalar code per thread.
class KernelEmitter : private tir::StmtVisitor {
 public:
  KernelEmitter(llvm::Module& m, const tir::PrimFunc& f, const MathOptions& math)
      : m_(m), f_(f), ctx_(m.getContext()), b_(ctx_), exprs_(b_, f, math) {
    exprs_.AlignChunksByIndex();
    llvm::FastMathFlags fmf;
    fmf.setAllowContract(true);  // a*b+c becomes fma.rn, as nvcc does by default
    b_.setFastMathFlags(fmf);
  }

  void Emit(const tir::GpuLaunch& launch, const std::string& name) {
    std::vector<llvm::Type*> params(f_.num_args + 1, b_.getPtrTy());
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), params, false);
    llvm::Function* fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, m_);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    for (int i = 0; i <= f_.num_args; ++i) {
      fn->addParamAttr(i, llvm::Attribute::NoAlias);
      fn->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(TUNEFARM_BUFFER_ALIGNMENT)));
    }
    MarkKernel(fn, launch);
    b_.SetInsertPoint(BasicBlock::Create(ctx_, "entry", fn));
    for (int i = 0; i < f_.num_args; ++i) scope_.buffers.push_back(fn->getArg(i));
    Value* workspace = fn->getArg(f_.num_args);
    for (size_t i = f_.num_args; i < f_.buffers.size(); ++i) {
      const tir::Buffer& b = f_.buffers[i];
      scope_.buffers.push_back(b.scope == tir::BufferScope::kWorkspace
                                   ? b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), workspace, b.workspace_offset)
                                   : nullptr);
    }
    VisitStmt(launch.body);
    b_.CreateRetVoid();
  }

 private:
  // NVVM's kernel annotation, and the block shape as the most threads it will run with, so
  // that ptxas may give each thread more registers.
  void MarkKernel(llvm::Function* fn, const tir::GpuLaunch& launch) {
    llvm::NamedMDNode* annotations = m_.getOrInsertNamedMetadata("nvvm.annotations");
    auto add = [&](const char* key, int64_t value) {
      llvm::Metadata* ops[] = {llvm::ValueAsMetadata::get(fn), llvm::MDString::get(ctx_, key),
                               llvm::ValueAsMetadata::get(b_.getInt32(static_cast<int32_t>(value)))};
      annotations->addOperand(llvm::MDNode::get(ctx_, ops));
    };
    add("kernel", 1);
    add("maxntidx", launch.block[0]);
    add("maxntidy", launch.block[1]);
    add("maxntidz", launch.block[2]);
  }

  void VisitStore(const StmtNode& s) override { exprs_.EmitStore(s.buffer, s.index, s.value, scope_); }

  void VisitIf(const StmtNode& s) override {
    Value* cond = exprs_.EmitScalar(s.cond, scope_);
    if (!s.else_case.defined()) return EmitIfThenElse(b_, cond, [&] { VisitStmt(s.then_case); });
    EmitIfThenElse(b_, cond, [&] { VisitStmt(s.then_case); }, [&] { VisitStmt(s.else_case); });
  }

  // A thread's own array (local memory, or registers after SROA when every index is constant),
  // or the block's array in shared memory: a static variable of the kernel, reached through a
  // generic pointer (LLVM's address-space inference turns its accesses back into ld/st.shared).
  void VisitAllocate(const StmtNode& s) override {
    Value*& slot = slots_[s.buffer];
    if (!slot) {
      const tir::Buffer& b = f_.buffers[s.buffer];
      llvm::Function* fn = b_.GetInsertBlock()->getParent();
      if (b.scope == tir::BufferScope::kShared) {
        auto* type = llvm::ArrayType::get(exprs_.MemoryType(b.dtype), static_cast<uint64_t>(b.NumElements()));
        auto* shared = new llvm::GlobalVariable(m_, type, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
                                                llvm::UndefValue::get(type), StrCat(fn->getName().str(), ".", b.name),
                                                nullptr, llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
        shared->setAlignment(llvm::Align(tir::kSharedArrayAlignment));  // counted by PlanGpuLaunches
        llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
        slot = entry.CreateAddrSpaceCast(shared, b_.getPtrTy());
      } else {
        slot = EntryBlockSlot(fn, exprs_.MemoryType(b.dtype), b.NumElements(), b.name, 16);
      }
    }
    Value* saved = scope_.buffers[s.buffer];
    scope_.buffers[s.buffer] = slot;
    VisitStmt(s.body);
    scope_.buffers[s.buffer] = saved;
  }

  void VisitBarrier(const StmtNode&) override { b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {}); }

  void VisitFor(const StmtNode& loop) override {
    const int64_t var = loop.loop_var->int_value;
    if (loop.for_kind == tir::ForKind::kThreadBinding) {
      Value* index = b_.CreateIntrinsic(SpecialRegister(loop.thread_axis), {}, {});
      scope_.vars[var] = b_.CreateZExt(index, b_.getInt64Ty());
      VisitStmt(loop.body);
      scope_.vars.erase(var);
      return;
    }
    if (loop.for_kind == tir::ForKind::kVectorized && EmitVectorCopy(loop)) return;
    // Serial, unrolled and vectorized loops all run inside the thread; unrolled and vectorized
    // ones are unrolled fully.
    const bool unroll = loop.for_kind == tir::ForKind::kUnrolled || loop.for_kind == tir::ForKind::kVectorized;
    EmitCountedLoop(b_, b_.getInt64(0), exprs_.EmitScalar(loop.extent, scope_), [&](Value* i) {
      scope_.vars[var] = i;
      VisitStmt(loop.body);
      scope_.vars.erase(var);
    }, unroll);
  }

  // A vectorized copy (a cooperative fetch split for 128-bit accesses): a loop of 2 or 4 lanes
  // whose body is one store of one load, each lane its own element. Emitted for all lanes at
  // once, so each side is one vector access when its index is contiguous and provably aligned
  // (ld.global.v4.f32, st.shared.v4.f32), else per element. False, having emitted nothing, for
  // any other vectorized loop: it is unrolled instead (LLVM does not merge those accesses).
  bool EmitVectorCopy(const StmtNode& loop) {
    const int64_t var = loop.loop_var->int_value;
    int64_t lanes = 0;
    if (!te::IsConstInt(loop.extent, &lanes) || (lanes != 2 && lanes != 4)) return false;
    const tir::Stmt& body = loop.body;
    if (body->kind != tir::StmtKind::kStore || body->value->kind != te::ExprKind::kLoad) return false;
    if (!UsesVar(body->index, var) || te::DTypeBytes(body->value->dtype) != 4) return false;
    scope_.lane_var = var;
    scope_.lane_base = b_.getInt64(0);
    scope_.lanes = scope_.group = static_cast<int>(lanes);
    exprs_.EmitStore(body->buffer, body->index, body->value, scope_);
    scope_.lane_var = -1;
    scope_.lane_base = nullptr;
    scope_.lanes = scope_.group = 0;
    return true;
  }

  llvm::Module& m_;
  const tir::PrimFunc& f_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  ExprEmitter exprs_;
  ExprScope scope_;
  std::map<int, Value*> slots_;
};

void EmitGlobals(llvm::Module& m, const std::string& metadata_json) {
  llvm::LLVMContext& ctx = m.getContext();
  auto* i32 = llvm::Type::getInt32Ty(ctx);
  new llvm::GlobalVariable(m, i32, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantInt::get(i32, TUNEFARM_ABI_VERSION), TUNEFARM_SYM_ABI_VERSION, nullptr,
                           llvm::GlobalValue::NotThreadLocal, kGlobalAddressSpace);
  llvm::Constant* json = llvm::ConstantDataArray::getString(ctx, metadata_json, /*AddNull=*/true);
  new llvm::GlobalVariable(m, json->getType(), /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage, json,
                           TUNEFARM_SYM_METADATA, nullptr, llvm::GlobalValue::NotThreadLocal, kGlobalAddressSpace);
}

}  // namespace

tir::GpuLimits GpuLimitsOf(const Target& target) {
  tir::GpuLimits limits;
  limits.max_threads_per_block = target.MaxThreadsPerBlock();
  limits.max_shared_memory_per_block = target.MaxSharedMemoryPerBlock();
  return limits;
}

absl::StatusOr<std::unique_ptr<llvm::Module>> BuildNvptxModule(const std::vector<tir::PrimFunc>& funcs,
                                                               const Target& target, llvm::TargetMachine& tm,
                                                               llvm::LLVMContext& ctx) {
  std::vector<std::vector<tir::GpuLaunch>> launches;
  std::set<std::string> names;
  for (const tir::PrimFunc& f : funcs) names.insert(f.name);
  for (const tir::PrimFunc& f : funcs) {
    absl::StatusOr<std::vector<tir::GpuLaunch>> planned = tir::PlanGpuLaunches(f, GpuLimitsOf(target));
    if (!planned.ok()) return planned.status();
    for (tir::GpuLaunch& launch : *planned) {
      absl::StatusOr<tir::Stmt> with_barriers = tir::InsertSharedMemoryBarriers(f, launch.body);
      if (!with_barriers.ok()) return with_barriers.status();
      launch.body = *std::move(with_barriers);
    }
    for (size_t i = 0; i < planned->size(); ++i) {
      if (!names.insert(GpuKernelName(f.name, i)).second) {
        return absl::InvalidArgumentError(StrCat("GPU kernel name ", GpuKernelName(f.name, i), " of PrimFunc ", f.name,
                                                 " is taken by another PrimFunc or kernel"));
      }
    }
    launches.push_back(std::move(*planned));
  }
  auto module = std::make_unique<llvm::Module>("tunefarm", ctx);
  module->setSourceFileName("tunefarm");
  module->setTargetTriple(tm.getTargetTriple().str());
  module->setDataLayout(tm.createDataLayout());
  EmitGlobals(*module, BuildMetadataJson(funcs, target, &launches));
  const MathOptions math = MathOptionsFor(tm);
  for (size_t k = 0; k < funcs.size(); ++k) {
    for (size_t i = 0; i < launches[k].size(); ++i) {
      KernelEmitter(*module, funcs[k], math).Emit(launches[k][i], GpuKernelName(funcs[k].name, i));
    }
  }
  return module;
}

}  // namespace tunefarm::codegen
