#include "compiler/codegen/llvm_codegen.h"

#include <functional>
#include <map>
#include <set>
#include <string>

#include "compiler/codegen/control_flow.h"
#include "compiler/codegen/expr_emitter.h"
#include "compiler/codegen/lane_groups.h"
#include "compiler/codegen/llvm_target.h"
#include "compiler/codegen/metadata.h"
#include "compiler/codegen/vector_plan.h"
#include "common/check.h"
#include "common/log.h"
#include "common/strings.h"
#include "compiler/tir/stmt_functor.h"
#include "deploy/tunefarm_abi.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace tunefarm::codegen {
namespace {

using llvm::BasicBlock;
using llvm::Value;
using tir::Stmt;
using tir::StmtKind;
using tir::StmtNode;

struct ModuleState {
  llvm::Module& module;
  const Target& target;
  std::string cpu;
  std::string features;
  MathOptions math;
  DotProductOptions dot;
  llvm::GlobalVariable* host_api = nullptr;  // tunefarm_host_api
  llvm::StructType* host_api_type = nullptr;  // struct tunefarm_host_api
};

// An LLVM function that statements are emitted into: a PrimFunc's `.impl` or the body of an
// outlined parallel loop. Its parameters are the argument buffers, the workspace and int64s.
struct Region {
  ExprScope scope;
  std::vector<int64_t> bound;           // loop variables in scope, outermost first
  std::vector<Value*> buffer_params;    // argument pointers, then the workspace pointer
  std::vector<int> locals;              // local buffers allocated in scope, outermost first
  std::map<int, llvm::AllocaInst*> slots;  // this function's stack slot per local buffer
};

// The loop variables and buffers a statement reads or writes (what an outlined body needs).
class UseCollector : public tir::StmtVisitor {
 public:
  std::set<int64_t> vars;
  std::set<int> buffers;

 private:
  void VisitExpr(const te::Expr& e) override {
    te::Visit(e, [&](const te::Expr& n) {
      if (n->kind == te::ExprKind::kVar) vars.insert(n->int_value);
      if (n->kind == te::ExprKind::kLoad) buffers.insert(static_cast<int>(n->int_value));
    });
  }
  void VisitStore(const StmtNode& op) override {
    buffers.insert(op.buffer);
    tir::StmtVisitor::VisitStore(op);
  }
};

class FunctionEmitter : private tir::StmtVisitor {
 public:
  FunctionEmitter(ModuleState& ms, const tir::PrimFunc& f)
      : ms_(ms), f_(f), ctx_(ms.module.getContext()), b_(ctx_), exprs_(b_, f, ms.math, ms.dot) {
    // Let LLVM fuse a*b+c into an FMA (what makes GEMM inner loops vfmadd); nothing else of
    // fast-math, so the math polynomials keep their accuracy.
    llvm::FastMathFlags fmf;
    fmf.setAllowContract(true);
    b_.setFastMathFlags(fmf);
  }

  void Emit() {
    llvm::Function* impl = NewRegionFunction(StrCat(f_.name, ".impl"), {}, 0);
    Region region;
    EnterRegion(impl, &region, {});
    EmitStmt(f_.body);
    b_.CreateRet(b_.getInt32(TUNEFARM_OK));
    EmitEntry(impl);
  }

 private:
  llvm::Type* I32() { return b_.getInt32Ty(); }
  llvm::Type* I64() { return b_.getInt64Ty(); }
  llvm::PointerType* Ptr() { return b_.getPtrTy(); }
  BasicBlock* NewBlock(const char* name) {
    return BasicBlock::Create(ctx_, name, b_.GetInsertBlock()->getParent());
  }

  llvm::Function* NewFunction(llvm::FunctionType* type, const std::string& name, bool exported) {
    auto* fn = llvm::Function::Create(
        type, exported ? llvm::GlobalValue::ExternalLinkage : llvm::GlobalValue::InternalLinkage,
        name, ms_.module);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    fn->addFnAttr("target-cpu", ms_.cpu);
    if (!ms_.features.empty()) fn->addFnAttr("target-features", ms_.features);
    return fn;
  }

  // (buffers..., workspace, local buffers captured..., int64 x num_ints) -> i32, the buffers
  // noalias + align 64.
  llvm::Function* NewRegionFunction(const std::string& name, const std::vector<int>& captured, size_t num_ints) {
    std::vector<llvm::Type*> params(f_.num_args + 1 + captured.size(), Ptr());
    params.insert(params.end(), num_ints, I64());
    llvm::Function* fn = NewFunction(llvm::FunctionType::get(I32(), params, false), name, false);
    for (size_t i = 0; i < f_.num_args + 1 + captured.size(); ++i) {
      int64_t bytes = 0;
      if (i < static_cast<size_t>(f_.num_args)) bytes = f_.buffers[i].NumBytes();
      else if (i == static_cast<size_t>(f_.num_args)) bytes = f_.workspace_bytes;
      else bytes = f_.buffers[captured[i - f_.num_args - 1]].NumBytes();
      fn->addParamAttr(i, llvm::Attribute::NoAlias);
      fn->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(TUNEFARM_BUFFER_ALIGNMENT)));
      if (bytes > 0) fn->addDereferenceableParamAttr(i, bytes);
    }
    return fn;
  }

  // Binds the function's buffer parameters: arguments, workspace slots, captured locals.
  void EnterRegion(llvm::Function* fn, Region* region, const std::vector<int>& captured) {
    region_ = region;
    b_.SetInsertPoint(BasicBlock::Create(ctx_, "entry", fn));
    for (int i = 0; i <= f_.num_args; ++i) region->buffer_params.push_back(fn->getArg(i));
    for (int i = 0; i < f_.num_args; ++i) region->scope.buffers.push_back(fn->getArg(i));
    Value* workspace = fn->getArg(f_.num_args);
    for (size_t i = f_.num_args; i < f_.buffers.size(); ++i) {
      const tir::Buffer& b = f_.buffers[i];
      region->scope.buffers.push_back(b.scope == tir::BufferScope::kWorkspace
                                          ? b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), workspace, b.workspace_offset)
                                          : nullptr);
    }
    for (size_t k = 0; k < captured.size(); ++k) {
      region->scope.buffers[captured[k]] = fn->getArg(f_.num_args + 1 + k);
      region->locals.push_back(captured[k]);
    }
  }

  void EmitEntry(llvm::Function* impl) {
    auto* type = llvm::FunctionType::get(I32(), {Ptr(), I32(), Ptr()}, false);
    llvm::Function* entry = NewFunction(type, f_.name, /*exported=*/true);
    b_.SetInsertPoint(BasicBlock::Create(ctx_, "entry", entry));
    BasicBlock* bad = NewBlock("bad_args");
    BasicBlock* call = NewBlock("call");
    b_.CreateCondBr(b_.CreateICmpEQ(entry->getArg(1), b_.getInt32(f_.num_args)), call, bad);
    b_.SetInsertPoint(bad);
    b_.CreateRet(b_.getInt32(TUNEFARM_ERR_BAD_ARGS));
    b_.SetInsertPoint(call);
    std::vector<Value*> args;
    llvm::Align ptr_align = ms_.module.getDataLayout().getPointerABIAlignment(0);
    for (int i = 0; i < f_.num_args; ++i) {
      Value* slot = b_.CreateConstInBoundsGEP1_64(Ptr(), entry->getArg(0), i);
      args.push_back(b_.CreateAlignedLoad(Ptr(), slot, ptr_align));
    }
    args.push_back(entry->getArg(2));
    b_.CreateRet(b_.CreateCall(impl, args));
  }

  void Bind(int64_t var, Value* v) {
    region_->scope.vars[var] = v;
    region_->bound.push_back(var);
  }
  void Unbind(int64_t var) {
    region_->scope.vars.erase(var);
    TF_CHECK(!region_->bound.empty() && region_->bound.back() == var, "unbalanced loop scopes");
    region_->bound.pop_back();
  }

  void EmitStmt(const Stmt& s) { VisitStmt(s); }

  void VisitStore(const StmtNode& s) override { exprs_.EmitStore(s.buffer, s.index, s.value, region_->scope); }

  void VisitIf(const StmtNode& s) override {
    Value* cond = exprs_.EmitScalar(s.cond, region_->scope);
    if (!s.else_case.defined()) return EmitIfThenElse(b_, cond, [&] { EmitStmt(s.then_case); });
    EmitIfThenElse(b_, cond, [&] { EmitStmt(s.then_case); }, [&] { EmitStmt(s.else_case); });
  }

  void VisitFor(const StmtNode& s) override { EmitFor(s); }

  // One stack slot per local buffer and function, in the entry block (so a loop around the
  // Allocate does not grow the stack, and SROA can promote it to registers).
  void VisitAllocate(const StmtNode& s) override {
    llvm::AllocaInst*& slot = region_->slots[s.buffer];
    if (!slot) {
      const tir::Buffer& b = f_.buffers[s.buffer];
      slot = EntryBlockSlot(b_.GetInsertBlock()->getParent(), exprs_.MemoryType(b.dtype), b.NumElements(), b.name,
                            TUNEFARM_BUFFER_ALIGNMENT);
    }
    Value* saved = region_->scope.buffers[s.buffer];
    region_->scope.buffers[s.buffer] = slot;
    region_->locals.push_back(s.buffer);
    EmitStmt(s.body);
    region_->locals.pop_back();
    region_->scope.buffers[s.buffer] = saved;
  }

  void EmitFor(const StmtNode& loop) {
    const int64_t var = loop.loop_var->int_value;
    auto body = [&](Value* i) {
      Bind(var, i);
      EmitStmt(loop.body);
      Unbind(var);
    };
    int64_t extent = 0;
    if (loop.for_kind == tir::ForKind::kSerial || loop.for_kind == tir::ForKind::kUnrolled) {
      const LaneGroupPlan groups = PlanLaneGroups(loop, ms_.target);
      if (groups.groups > 0) {
        TF_LOG(DEBUG, "codegen") << f_.name << ": " << groups.groups << " lane groups over loop var "
                                 << var;
        EmitLaneGroups(loop, groups.groups);
        return;
      }
      if (groups.narrow)
        TF_LOG(DEBUG, "codegen") << f_.name << ": loop var " << var << " not widened: " << groups.reason;
    }
    switch (loop.for_kind) {
      case tir::ForKind::kThreadBinding:  // refused on a CPU target by ValidatePrimFuncs
      case tir::ForKind::kVirtualThread:  // never left by the lowering (tir::Verify)
      case tir::ForKind::kSerial:
        EmitLoop(b_.getInt64(0), exprs_.EmitScalar(loop.extent, region_->scope), body);
        return;
      case tir::ForKind::kUnrolled:
        if (te::IsConstInt(loop.extent, &extent) && extent <= kMaxUnrolledCopies) {
          for (int64_t i = 0; i < extent; ++i) body(b_.getInt64(i));
        } else {
          EmitLoop(b_.getInt64(0), exprs_.EmitScalar(loop.extent, region_->scope), body,
                   /*unroll=*/true);
        }
        return;
      case tir::ForKind::kVectorized:
        EmitVectorized(loop);
        return;
      case tir::ForKind::kParallel:
        EmitParallel(loop);
        return;
    }
  }

  void EmitLoop(Value* begin, Value* end, const std::function<void(Value*)>& body, bool unroll = false) {
    EmitCountedLoop(b_, begin, end, body, unroll);
  }

  void EmitVectorized(const StmtNode& loop) {
    const int64_t var = loop.loop_var->int_value;
    VectorPlan plan = PlanVectorLoop(loop, ms_.target);
    if (!plan.vectorize) {  // scalar fallback (vector_plan.h says when)
      EmitLoop(b_.getInt64(0), exprs_.EmitScalar(loop.extent, region_->scope), [&](Value* i) {
        Bind(var, i);
        EmitStmt(loop.body);
        Unbind(var);
      });
      return;
    }
    const int64_t chunk = plan.chunk_lanes;
    if (plan.num_full_chunks == 1) {
      EmitLaneChunk(loop, b_.getInt64(0), plan.chunk_lanes);
    } else {
      EmitLoop(b_.getInt64(0), b_.getInt64(plan.num_full_chunks), [&](Value* c) {
        EmitLaneChunk(loop, b_.CreateMul(c, b_.getInt64(chunk), "", true, true), plan.chunk_lanes);
      });
    }
    // The tail in chunks of a power of two registers, as the full ones (vector_plan.h).
    int64_t base = plan.num_full_chunks * chunk;
    for (int left = plan.tail_lanes; left > 0;) {
      const int lanes = static_cast<int>(PowerOfTwoChunk(left, plan.native_lanes));
      EmitLaneChunk(loop, b_.getInt64(base), lanes);
      base += lanes;
      left -= lanes;
    }
  }

  // The body for lanes base .. base+lanes-1 at once.
  void EmitLaneChunk(const StmtNode& loop, Value* base, int lanes) {
    const int64_t var = loop.loop_var->int_value;
    if (lanes == 1) {
      Bind(var, base);
      EmitStmt(loop.body);
      Unbind(var);
      return;
    }
    EmitChunkBody(loop, base, lanes, lanes, -1, nullptr);
  }

  // `outer`'s body is a vectorized loop of E lanes; each chunk runs `groups` iterations of
  // `outer` (lane_groups.h), and the iterations left over run one at a time.
  void EmitLaneGroups(const StmtNode& outer, int groups) {
    const StmtNode& inner = *outer.body;
    const int64_t outer_var = outer.loop_var->int_value;
    int64_t extent = 0, lanes = 0;
    TF_CHECK(te::IsConstInt(outer.extent, &extent) && te::IsConstInt(inner.extent, &lanes), "constant extents");
    const int64_t chunks = extent / groups;
    auto chunk = [&](Value* first) {
      EmitChunkBody(inner, b_.getInt64(0), static_cast<int>(lanes * groups), static_cast<int>(lanes), outer_var, first);
    };
    const bool unrolled = outer.for_kind == tir::ForKind::kUnrolled;
    if (unrolled && chunks <= kMaxUnrolledCopies) {
      for (int64_t c = 0; c < chunks; ++c) chunk(b_.getInt64(c * groups));
    } else {
      EmitLoop(b_.getInt64(0), b_.getInt64(chunks), [&](Value* c) {
        chunk(b_.CreateMul(c, b_.getInt64(groups), "", true, true));
      }, unrolled);
    }
    for (int64_t i = chunks * groups; i < extent; ++i) {
      Bind(outer_var, b_.getInt64(i));
      EmitStmt(outer.body);
      Unbind(outer_var);
    }
  }

  void EmitChunkBody(const StmtNode& loop, Value* base, int lanes, int group, int64_t group_var, Value* group_base) {
    ExprScope& scope = region_->scope;
    scope.lane_var = loop.loop_var->int_value;
    scope.lane_base = base;
    scope.lanes = lanes;
    scope.group = group;
    scope.group_var = group_var;
    scope.group_base = group_base;
    EmitStmt(loop.body);
    scope.lane_var = -1;
    scope.lane_base = nullptr;
    scope.lanes = 0;
    scope.group = 0;
    scope.group_var = -1;
    scope.group_base = nullptr;
  }

  // Outlines the loop into `name.parN` (a tunefarm_parallel_body) that runs a contiguous
  // chunk of iterations per task, and calls tunefarm_host_api->parallel_for on it. The
  // closure (buffer pointers, the free loop variables, the extent) lives on the caller's
  // stack for the duration of the call.
  void EmitParallel(const StmtNode& loop) {
    const int64_t var = loop.loop_var->int_value;
    Value* extent = exprs_.EmitScalar(loop.extent, region_->scope);
    UseCollector used;
    used.VisitStmt(loop.body);
    std::vector<int64_t> free_vars;
    for (int64_t v : region_->bound) {
      if (used.vars.count(v)) free_vars.push_back(v);
    }
    // Local buffers allocated outside the loop and used inside it are shared by the tasks.
    std::vector<int> captured;
    for (int b : region_->locals) {
      if (used.buffers.count(b)) captured.push_back(b);
    }
    const std::string name = StrCat(f_.name, ".par", num_parallel_++);
    std::vector<llvm::Type*> fields(f_.num_args + 1 + captured.size(), Ptr());
    fields.insert(fields.end(), free_vars.size() + 1, I64());
    const unsigned first_var_field = f_.num_args + 1 + captured.size();
    llvm::StructType* closure_type = llvm::StructType::get(ctx_, fields);
    const unsigned extent_field = fields.size() - 1;

    auto* task_type = llvm::FunctionType::get(I32(), {I32(), I32(), Ptr()}, false);
    llvm::Function* task = NewFunction(task_type, name, false);
    llvm::Function* body = NewRegionFunction(StrCat(name, ".body"), captured, free_vars.size() + 2);
    {
      llvm::IRBuilderBase::InsertPointGuard guard(b_);
      Region* outer = region_;
      b_.SetInsertPoint(BasicBlock::Create(ctx_, "entry", task));
      std::vector<Value*> args;
      for (unsigned i = 0; i < extent_field; ++i) {
        args.push_back(b_.CreateLoad(fields[i], b_.CreateStructGEP(closure_type, task->getArg(2), i)));
      }
      Value* n = b_.CreateLoad(I64(), b_.CreateStructGEP(closure_type, task->getArg(2), extent_field));
      Value* t = b_.CreateZExt(task->getArg(0), I64());
      Value* num_tasks = b_.CreateZExt(task->getArg(1), I64());
      args.push_back(b_.CreateUDiv(b_.CreateMul(t, n), num_tasks));
      args.push_back(b_.CreateUDiv(b_.CreateMul(b_.CreateAdd(t, b_.getInt64(1)), n), num_tasks));
      b_.CreateRet(b_.CreateCall(body, args));

      Region inner;
      EnterRegion(body, &inner, captured);
      for (size_t k = 0; k < free_vars.size(); ++k) Bind(free_vars[k], body->getArg(first_var_field + k));
      Value* begin = body->getArg(first_var_field + free_vars.size());
      Value* end = body->getArg(first_var_field + 1 + free_vars.size());
      EmitLoop(begin, end, [&](Value* i) {
        Bind(var, i);
        EmitStmt(loop.body);
        Unbind(var);
      });
      b_.CreateRet(b_.getInt32(TUNEFARM_OK));
      region_ = outer;
    }

    BasicBlock* run = NewBlock("par.run");
    BasicBlock* done = NewBlock("par.done");
    b_.CreateCondBr(b_.CreateICmpSGT(extent, b_.getInt64(0)), run, done);
    b_.SetInsertPoint(run);
    llvm::Function* fn = run->getParent();
    llvm::IRBuilder<> entry_builder(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    Value* closure = entry_builder.CreateAlloca(closure_type);
    for (unsigned i = 0; i < region_->buffer_params.size(); ++i) {
      b_.CreateStore(region_->buffer_params[i], b_.CreateStructGEP(closure_type, closure, i));
    }
    for (size_t k = 0; k < captured.size(); ++k) {
      b_.CreateStore(region_->scope.buffers[captured[k]], b_.CreateStructGEP(closure_type, closure, f_.num_args + 1 + k));
    }
    for (size_t k = 0; k < free_vars.size(); ++k) {
      b_.CreateStore(region_->scope.vars.at(free_vars[k]), b_.CreateStructGEP(closure_type, closure, first_var_field + k));
    }
    b_.CreateStore(extent, b_.CreateStructGEP(closure_type, closure, extent_field));
    Value* num_tasks = b_.CreateTrunc(
        b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, extent, b_.getInt64(kMaxParallelTasks)), I32());

    Value* api = b_.CreateLoad(Ptr(), ms_.host_api);
    BasicBlock* no_api = NewBlock("par.no_host_api");
    BasicBlock* call = NewBlock("par.call");
    b_.CreateCondBr(b_.CreateIsNull(api), no_api, call);
    b_.SetInsertPoint(no_api);
    b_.CreateRet(b_.getInt32(TUNEFARM_ERR_NO_HOST_API));
    b_.SetInsertPoint(call);
    Value* parallel_for = b_.CreateLoad(Ptr(), b_.CreateStructGEP(ms_.host_api_type, api, 1));
    auto* parallel_for_type = llvm::FunctionType::get(I32(), {Ptr(), Ptr(), I32()}, false);
    Value* rc = b_.CreateCall(parallel_for_type, parallel_for, {task, closure, num_tasks});
    ReturnIfError(rc);
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

  void ReturnIfError(Value* rc) {
    BasicBlock* fail = NewBlock("fail");
    BasicBlock* ok = NewBlock("ok");
    b_.CreateCondBr(b_.CreateICmpNE(rc, b_.getInt32(TUNEFARM_OK)), fail, ok);
    b_.SetInsertPoint(fail);
    b_.CreateRet(rc);
    b_.SetInsertPoint(ok);
  }

  ModuleState& ms_;
  const tir::PrimFunc& f_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  ExprEmitter exprs_;
  Region* region_ = nullptr;
  int num_parallel_ = 0;
};

void EmitGlobals(ModuleState& ms, const std::string& metadata_json) {
  llvm::Module& m = ms.module;
  llvm::LLVMContext& ctx = m.getContext();
  auto* i32 = llvm::Type::getInt32Ty(ctx);
  auto* ptr = llvm::PointerType::get(ctx, 0);
  new llvm::GlobalVariable(m, i32, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantInt::get(i32, TUNEFARM_ABI_VERSION), TUNEFARM_SYM_ABI_VERSION);
  llvm::Constant* json = llvm::ConstantDataArray::getString(ctx, metadata_json, /*AddNull=*/true);
  new llvm::GlobalVariable(m, json->getType(), /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
                           json, TUNEFARM_SYM_METADATA);
  ms.host_api = new llvm::GlobalVariable(m, ptr, /*isConstant=*/false, llvm::GlobalValue::ExternalLinkage,
                                         llvm::ConstantPointerNull::get(ptr), TUNEFARM_SYM_HOST_API);
  ms.host_api_type = llvm::StructType::get(ctx, {i32, ptr});  // struct tunefarm_host_api, v1
}

// The module of `funcs`: the ABI globals describing them, and their code unless only the
// globals are wanted (BuildLibraryGlobalsModule).
std::unique_ptr<llvm::Module> BuildModule(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                                          llvm::TargetMachine& tm, llvm::LLVMContext& ctx, bool emit_code) {
  auto module = std::make_unique<llvm::Module>("tunefarm", ctx);
  module->setSourceFileName("tunefarm");
  module->setTargetTriple(tm.getTargetTriple().str());
  module->setDataLayout(tm.createDataLayout());
  ModuleState ms{*module, target, tm.getTargetCPU().str(), tm.getTargetFeatureString().str(),
                 MathOptionsFor(tm), DotProductOptionsFor(tm)};
  EmitGlobals(ms, BuildMetadataJson(funcs, target));
  if (emit_code)
    for (const tir::PrimFunc& f : funcs) FunctionEmitter(ms, f).Emit();
  return module;
}

}  // namespace

std::unique_ptr<llvm::Module> BuildLlvmModule(const std::vector<tir::PrimFunc>& funcs,
                                              const Target& target, llvm::TargetMachine& tm,
                                              llvm::LLVMContext& ctx) {
  return BuildModule(funcs, target, tm, ctx, /*emit_code=*/true);
}

void LeaveLibraryGlobalsToAnotherObject(llvm::Module& module) {
  for (const char* name : {TUNEFARM_SYM_ABI_VERSION, TUNEFARM_SYM_METADATA})
    if (llvm::GlobalVariable* g = module.getNamedGlobal(name)) g->eraseFromParent();
  if (llvm::GlobalVariable* api = module.getNamedGlobal(TUNEFARM_SYM_HOST_API)) api->setInitializer(nullptr);
}

std::unique_ptr<llvm::Module> BuildLibraryGlobalsModule(const std::vector<tir::PrimFunc>& entries,
                                                        const Target& target, llvm::TargetMachine& tm,
                                                        llvm::LLVMContext& ctx) {
  return BuildModule(entries, target, tm, ctx, /*emit_code=*/false);
}

}  // namespace tunefarm::codegen
