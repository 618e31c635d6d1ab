// Emits te expressions and stores as LLVM IR, for one lane (scalar code) or for all lanes of
// a vectorized chunk at once.
//
// Inside a chunk every value is one of three shapes (LaneValue): the same for every lane
// (kept scalar, broadcast only where it meets a vector), a ramp base + lane*stride (the loop
// variable and affine index arithmetic on it, so a stride-1 index becomes one contiguous
// vector load/store), or a general vector. Anything else that depends on the lane (a strided
// or computed index) becomes a gather/scatter.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "compiler/codegen/alias_scopes.h"
#include "compiler/codegen/dot_product.h"
#include "compiler/codegen/math_emitter.h"
#include "compiler/tir/stmt.h"

namespace llvm {
struct Align;
class Instruction;
class IRBuilderBase;
class Type;
class Value;
}  // namespace llvm

namespace tunefarm::codegen {

// A chunk's lanes come in groups of ExprScope::group lanes (one group, all lanes, unless the
// chunk runs several iterations of the loop around the vector loop: lane_groups.h). A ramp's
// value in lane l is base + stride * (l % group) + group_stride * (l / group); with one group,
// group_stride is stride * group, so that the ramp is base + stride * l.
struct LaneValue {
  enum class Kind : uint8_t { kScalar, kRamp, kVector };
  Kind kind = Kind::kScalar;
  llvm::Value* value = nullptr;  // the scalar, the ramp's base (int64), or the vector
  int64_t stride = 0;            // kRamp only (a ramp of both strides 0 is a scalar)
  int64_t group_stride = 0;      // kRamp only
};

// What expressions can see: buffers, bound loop variables and the current vector chunk.
struct ExprScope {
  std::vector<llvm::Value*> buffers;     // base pointer per buffer id
  std::map<int64_t, llvm::Value*> vars;  // loop variable id -> int64 value
  int64_t lane_var = -1;                 // the vectorized variable, -1 outside a chunk
  llvm::Value* lane_base = nullptr;      // its value in lane 0 (int64)
  int lanes = 0;                         // lanes of the chunk
  int group = 0;                         // lanes per group: lanes, or fewer with lane groups
  int64_t group_var = -1;                // the loop whose iterations the groups are, or -1
  llvm::Value* group_base = nullptr;     // its value in group 0 (int64)
};

class ExprEmitter {
 public:
  ExprEmitter(llvm::IRBuilderBase& b, const tir::PrimFunc& func, const MathOptions& math,
              const DotProductOptions& dot = {});

  // The expression's value; in a chunk it may be a ramp or a vector.
  LaneValue Emit(const te::Expr& e, const ExprScope& scope);
  // The expression's value, which must be the same in every lane (checked).
  llvm::Value* EmitScalar(const te::Expr& e, const ExprScope& scope);
  // buffers[buffer][index] = value, for one lane or for the whole chunk.
  void EmitStore(int buffer, const te::Expr& index, const te::Expr& value, const ExprScope& scope);

  // From now on, a contiguous access of a chunk whose first lane is 0 gets the alignment its
  // index proves (up to 16 bytes: every buffer base is at least that aligned), not just its
  // element's: a GPU loads or stores a vector only when it is aligned to the vector's size.
  void AlignChunksByIndex() { align_chunks_by_index_ = true; }

  // Register type of a dtype (bool is i1) and its memory type (bool is one byte).
  llvm::Type* ValueType(te::DType t) const;
  llvm::Type* MemoryType(te::DType t) const;

 private:
  LaneValue Rec(const te::Expr& e);
  LaneValue Binary(const te::Expr& e, LaneValue a, LaneValue b);
  LaneValue Load(const te::Expr& e);
  // An int32 sum of four-way byte products, vectorized as one load per operand and group
  // (dot_product.h); false, having emitted nothing that matters, for any other expression.
  bool TryDotProduct(const te::Expr& e, LaneValue* out);
  llvm::Value* Arith(te::ExprKind kind, te::DType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* Compare(te::ExprKind kind, te::DType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* CastValue(te::DType from, te::DType to, llvm::Value* v);
  // The lane value as an int64 index (sign/zero-extending narrower integers).
  LaneValue AsIndex(const te::Expr& index);
  llvm::Value* ToVector(const LaneValue& v);
  // A load of every lane whose index is a ramp (contiguous, per group, or a gather).
  llvm::Value* LoadRamp(te::DType t, llvm::Value* base, const te::Expr& index, const LaneValue& idx,
                        std::vector<llvm::Instruction*>* loads);
  // The alignment of a contiguous chunk access at `index` (see AlignChunksByIndex).
  llvm::Align ChunkAlign(te::DType t, const te::Expr& index) const;
  // True for a ramp that is base + l in lane l: one contiguous vector access.
  bool IsContiguous(const LaneValue& idx) const;
  // Concatenates equal-width vectors, in order.
  llvm::Value* Concat(std::vector<llvm::Value*> parts);
  llvm::Type* LaneType(te::DType t, bool memory) const;

  llvm::IRBuilderBase& b_;
  const tir::PrimFunc& func_;
  MathOptions math_;
  DotProductOptions dot_;
  WorkspaceAliasScopes alias_scopes_;
  const ExprScope* scope_ = nullptr;
  bool align_chunks_by_index_ = false;
  // Values of the nodes already emitted for the current top-level expression (same block,
  // same scope), so shared subtrees are emitted once. Never iterated.
  std::unordered_map<const te::ExprNode*, LaneValue> memo_;
};

}  // namespace tunefarm::codegen
