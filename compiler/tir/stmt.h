// The loop-nest IR: what a scheduled compute DAG lowers to, and what codegen and the
// interpreter consume. Expressions are te::Expr (see compiler/te/expr.h) with these rules:
//  - kVar leaves are loop variables (int64), identified by their id (int_value), unique in a
//    PrimFunc; kAxis / kReduceAxis never appear;
//  - kLoad reads buffers[int_value] at one flat element index (operands[0], int64);
//  - every integer index is int64.
// Statements:
//  - kFor: `for (var = 0; var < extent; ++var) body`; extent is an int64 expression of outer
//    loop variables (a constant after lowering today). kind says how it may run:
//      kSerial; kParallel (iterations are independent: codegen outlines the body and runs it
//      through tunefarm_host_api->parallel_for); kVectorized (constant extent; iterations are
//      independent lanes: codegen emits vector instructions, or a scalar loop if the body
//      holds a condition that depends on the variable); kUnrolled (constant extent; emit the
//      body `extent` times); kThreadBinding (a GPU target: the iterations run at once, one
//      per block or thread of the launch along thread_axis; the extent is that dimension of
//      the launch, so the loop itself disappears. Elsewhere it means what kParallel means:
//      the interpreter runs it as a serial loop, the CPU code generator refuses it).
//  - kStore: buffers[buffer][index] = value (value has the buffer's dtype).
//  - kIf: if (cond) then_case else else_case (else_case may be undefined).
//  - kSeq: the statements in order.
//  - kAllocate: buffers[buffer] (scope kLocal) exists while body runs; its contents are
//    undefined on entry. Every load and store of a local buffer lies inside its Allocate.
//    Codegen gives it a stack slot in the function that runs the body (so inside a parallel
//    loop each task has its own), which LLVM promotes to registers when every access has a
//    constant index: that is how a register tile is written. A kShared buffer (a GPU target
//    only) is one array per thread block in the GPU's shared memory, which every thread of the
//    block reads and writes; the interpreter and the serial reading treat it as a local buffer.
//  - kBarrier: (a GPU target only) every thread of the block waits here until all have arrived,
//    and their shared-memory writes before it are visible to all after it. It is inserted just
//    before code generation (gpu_barriers.h); elsewhere, where bound loops run in turn, it is a
//    no-op.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/te/expr.h"

namespace tunefarm::tir {

using te::DType;
using te::Expr;

enum class StmtKind : uint8_t { kFor, kStore, kIf, kSeq, kAllocate, kBarrier };
// kVirtualThread exists only inside the lowering: InjectVirtualThreads (virtual_thread.h)
// replaces every such loop before the lowering returns.
enum class ForKind : uint8_t { kSerial, kParallel, kVectorized, kUnrolled, kThreadBinding, kVirtualThread };
std::string_view ForKindName(ForKind k);

// The GPU launch dimension a kThreadBinding loop runs across.
enum class ThreadAxis : uint8_t { kNone, kBlockX, kBlockY, kBlockZ, kThreadX, kThreadY, kThreadZ };
std::string_view ThreadAxisName(ThreadAxis a);  // "blockIdx.x", ..., "threadIdx.z"; "none"
inline bool IsBlockAxis(ThreadAxis a) { return a >= ThreadAxis::kBlockX && a <= ThreadAxis::kBlockZ; }
inline bool IsThreadAxis(ThreadAxis a) { return a >= ThreadAxis::kThreadX; }
// 0, 1, 2 for x, y, z.
inline int ThreadAxisDim(ThreadAxis a) { return (static_cast<int>(a) - 1) % 3; }

struct StmtNode;

class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(std::shared_ptr<const StmtNode> node) : node_(std::move(node)) {}
  const StmtNode* operator->() const { return node_.get(); }
  const StmtNode& operator*() const { return *node_; }
  bool defined() const { return node_ != nullptr; }
  bool same_as(const Stmt& o) const { return node_ == o.node_; }

 private:
  std::shared_ptr<const StmtNode> node_;
};

struct StmtNode {
  StmtKind kind;
  // kFor
  Expr loop_var;  // a kVar
  Expr extent;
  ForKind for_kind = ForKind::kSerial;
  ThreadAxis thread_axis = ThreadAxis::kNone;  // kThreadBinding only
  Stmt body;
  // kStore, kAllocate
  int buffer = -1;
  Expr index;
  Expr value;
  // kIf
  Expr cond;
  Stmt then_case, else_case;
  // kSeq
  std::vector<Stmt> seq;
};

// `axis` is given for kThreadBinding loops only.
Stmt For(Expr loop_var, Expr extent, ForKind kind, Stmt body, ThreadAxis axis = ThreadAxis::kNone);
Stmt Store(int buffer, Expr index, Expr value);
Stmt IfThenElse(Expr cond, Stmt then_case, Stmt else_case = Stmt());
Stmt Seq(std::vector<Stmt> stmts);  // flattens nested sequences; one statement is returned as is
Stmt Allocate(int buffer, Stmt body);
Stmt Barrier();

// kArg: a kernel argument; kWorkspace: a slot of the per-call workspace; kLocal: allocated by an
// Allocate statement (a register tile or a small per-task scratch), never in the workspace;
// kShared: allocated by an Allocate statement in a GPU block's shared memory (a tile the
// block's threads fetch together and all read), shaped like a local buffer by the lowering.
enum class BufferScope : uint8_t { kArg, kWorkspace, kLocal, kShared };
// Local and shared buffers: allocated by an Allocate, holding a region of their tensor.
inline bool IsAllocatedScope(BufferScope s) { return s == BufferScope::kLocal || s == BufferScope::kShared; }
enum class ArgRole : uint8_t { kInput, kOutput, kParam };
std::string_view ArgRoleName(ArgRole r);  // "in", "out", "param"

// Local buffers live on the stack of the function that runs their Allocate: each is capped, and
// so is their sum per kernel, well below a thread's stack.
inline constexpr int64_t kMaxLocalBufferBytes = 256 * 1024;
inline constexpr int64_t kMaxLocalBytesPerFunc = 1024 * 1024;

struct Buffer {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  BufferScope scope;
  ArgRole role = ArgRole::kInput;  // kArg only
  int64_t workspace_offset = 0;    // kWorkspace only: byte offset, a multiple of 64
  // Integer kArg inputs only: every element lies in [range_min, range_max] (e.g. gather indices),
  // so a measurement harness can generate valid data. Recorded in the kernel metadata.
  bool has_range = false;
  int64_t range_min = 0, range_max = 0;
  // kArg inputs only, usually empty: the entry of the same library that makes this argument
  // from the tensor it replaces (a tuning kernel's weights in a rewritten layout; the kernel
  // metadata's "prepared_by", docs/kernel-abi.md).
  std::string prepared_by = {};  // an initializer, so aggregates may leave it out without a warning
  int64_t NumElements() const;
  int64_t NumBytes() const;
};

// One kernel entry: buffers [0, num_args) are the arguments in ABI order (inputs, then
// outputs); the rest live in the workspace at their offsets, or are local (kLocal).
struct PrimFunc {
  std::string name;
  std::vector<Buffer> buffers;
  int num_args = 0;
  int64_t workspace_bytes = 0;
  Stmt body;
};

std::string StmtToString(const Stmt& s);  // readable, C-like; for logs and test failures
std::string PrimFuncToString(const PrimFunc& f);

}  // namespace tunefarm::tir
