#include "compiler/codegen/dot_product.h"

#include <optional>
#include <utility>

#include "compiler/codegen/expr_emitter.h"
#include "compiler/tir/analyzer.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsAArch64.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Target/TargetMachine.h"

namespace tunefarm::codegen {
namespace {

using llvm::Value;
using te::DType;
using te::Expr;
using te::ExprKind;

void FlattenSum(const Expr& e, std::vector<Expr>* terms) {
  if (e->kind == ExprKind::kAdd && e->dtype == DType::kInt32) {
    FlattenSum(e->operands[0], terms);
    FlattenSum(e->operands[1], terms);
    return;
  }
  terms->push_back(e);
}

// The load under i32(load), or null.
const Expr* WidenedLoad(const Expr& e) {
  if (e->kind != ExprKind::kCast || e->dtype != DType::kInt32) return nullptr;
  const Expr& src = e->operands[0];
  return src->kind == ExprKind::kLoad ? &src : nullptr;
}

// i32(uint8 load) * i32(int8 load), in either order.
bool AsByteProduct(const Expr& e, Dot4Group* loads) {
  if (e->kind != ExprKind::kMul || e->dtype != DType::kInt32) return false;
  const Expr* x = WidenedLoad(e->operands[0]);
  const Expr* y = WidenedLoad(e->operands[1]);
  if (x == nullptr || y == nullptr) return false;
  if ((*x)->dtype == DType::kInt8 && (*y)->dtype == DType::kUInt8) std::swap(x, y);
  if ((*x)->dtype != DType::kUInt8 || (*y)->dtype != DType::kInt8) return false;
  *loads = {*x, *y};
  return true;
}

// How many elements load `to` reads past load `from`, when both read one buffer at indices a
// constant apart.
std::optional<int64_t> ElementOffset(const tir::Analyzer& analyzer, const Expr& from, const Expr& to) {
  if (from->int_value != to->int_value) return std::nullopt;
  Expr d = analyzer.Simplify(to->operands[0] - from->operands[0]);
  if (d->kind != ExprKind::kIntImm) return std::nullopt;
  return d->int_value;
}

}  // namespace

DotProductOptions DotProductOptionsFor(const llvm::TargetMachine& tm) {
  DotProductOptions options;
  if (tm.getTargetTriple().isX86()) {
    const llvm::MCSubtargetInfo& cpu = *tm.getMCSubtargetInfo();
    options.vnni_512 = cpu.checkFeatures("+avx512vnni");
    options.vnni_256 = cpu.checkFeatures("+avx512vnni,+avx512vl") || cpu.checkFeatures("+avxvnni");
  } else if (tm.getTargetTriple().isAArch64()) {
    const llvm::MCSubtargetInfo& cpu = *tm.getMCSubtargetInfo();
    options.neon_usdot = cpu.checkFeatures("+i8mm");
    options.neon_sdot = cpu.checkFeatures("+dotprod");
  }
  return options;
}

bool MatchDot4Sum(const Expr& sum, Dot4Sum* out) {
  std::vector<Expr> terms;
  FlattenSum(sum, &terms);
  struct Product {
    size_t term;
    Dot4Group loads;
    bool grouped = false;
  };
  std::vector<Product> products;
  for (size_t i = 0; i < terms.size(); ++i) {
    Dot4Group loads;
    if (AsByteProduct(terms[i], &loads)) products.push_back({i, loads});
  }
  if (products.size() < 4) return false;

  const tir::Analyzer analyzer;
  // The product at `offset` elements past `first` in both buffers, ungrouped; -1 if none.
  auto find = [&](const Product& first, int64_t offset) -> int {
    for (size_t q = 0; q < products.size(); ++q) {
      const Product& p = products[q];
      if (p.grouped || &p == &first) continue;
      std::optional<int64_t> du = ElementOffset(analyzer, first.loads.unsigned_load, p.loads.unsigned_load);
      if (!du || *du != offset) continue;
      std::optional<int64_t> ds = ElementOffset(analyzer, first.loads.signed_load, p.loads.signed_load);
      if (ds && *ds == offset) return static_cast<int>(q);
    }
    return -1;
  };
  Dot4Sum result;
  // A group starts at a product with no ungrouped predecessor; repeat until no group forms, so
  // the order of the terms does not matter.
  for (bool formed = true; formed;) {
    formed = false;
    for (Product& first : products) {
      if (first.grouped || find(first, -1) >= 0) continue;
      const int second = find(first, 1), third = find(first, 2), fourth = find(first, 3);
      if (second < 0 || third < 0 || fourth < 0) continue;
      for (int q : {second, third, fourth}) products[q].grouped = true;
      first.grouped = true;
      result.groups.push_back(first.loads);
      formed = true;
    }
  }
  if (result.groups.empty()) return false;
  std::vector<bool> in_group(terms.size(), false);
  for (const Product& p : products) in_group[p.term] = p.grouped;
  for (size_t i = 0; i < terms.size(); ++i)
    if (!in_group[i]) result.rest.push_back(terms[i]);
  *out = std::move(result);
  return true;
}

bool ExprEmitter::TryDotProduct(const Expr& e, LaneValue* out) {
  const int lanes = scope_->lanes;
  if (lanes < 2 || e->kind != ExprKind::kAdd || e->dtype != DType::kInt32) return false;
  Dot4Sum sum;
  if (!MatchDot4Sum(e, &sum)) return false;
  // Every group must read the same four unsigned bytes in every lane and four signed bytes per
  // lane, lane after lane (b packed as [.., lanes, 4]).
  struct Addresses {
    LaneValue unsigned_index, signed_index;
  };
  std::vector<Addresses> addresses;
  for (const Dot4Group& g : sum.groups) {
    LaneValue u = AsIndex(g.unsigned_load->operands[0]);
    LaneValue s = AsIndex(g.signed_load->operands[0]);
    if (u.kind != LaneValue::Kind::kScalar) return false;
    if (s.kind != LaneValue::Kind::kRamp || s.stride != 4 || s.group_stride != 4 * scope_->group) return false;
    addresses.push_back({u, s});
  }

  llvm::Type* i8 = b_.getInt8Ty();
  llvm::Type* i32 = b_.getInt32Ty();
  auto* words = llvm::FixedVectorType::get(i32, lanes);
  Value* acc = llvm::Constant::getNullValue(words);
  for (const Expr& term : sum.rest) acc = b_.CreateAdd(acc, ToVector(Rec(term)));

  // The instruction's width in int32 lanes (vpdpbusd 16, else 8; usdot/sdot 4) when it divides
  // the chunk into a power-of-two number of parts (Concat joins pairs); 0 for none.
  int width = 0;
  llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
  if (dot_.vnni_512 && lanes % 16 == 0) {
    width = 16, id = llvm::Intrinsic::x86_avx512_vpdpbusd_512;
  } else if (dot_.vnni_256 && lanes % 8 == 0) {
    width = 8, id = llvm::Intrinsic::x86_avx512_vpdpbusd_256;
  } else if ((dot_.neon_usdot || dot_.neon_sdot) && lanes % 4 == 0) {
    width = 4, id = dot_.neon_usdot ? llvm::Intrinsic::aarch64_neon_usdot : llvm::Intrinsic::aarch64_neon_sdot;
  }
  if (width > 0 && ((lanes / width) & (lanes / width - 1)) != 0) width = 0;
  const bool neon = id == llvm::Intrinsic::aarch64_neon_usdot || id == llvm::Intrinsic::aarch64_neon_sdot;
  auto* part_words = llvm::FixedVectorType::get(i32, std::max(width, 1));
  auto* part_bytes = llvm::FixedVectorType::get(i8, 4 * std::max(width, 1));
  // One instruction on `width` lanes: acc + the four products of a's bytes and w's in each lane.
  auto dot = [&](Value* acc_part, Value* a_words, Value* w_part) -> Value* {
    if (!neon) return b_.CreateIntrinsic(id, {}, {acc_part, a_words, w_part});
    Value* a_bytes = b_.CreateBitCast(a_words, part_bytes);
    Value* w_bytes = b_.CreateBitCast(w_part, part_bytes);
    if (id == llvm::Intrinsic::aarch64_neon_usdot)
      return b_.CreateIntrinsic(id, {part_words, part_bytes}, {acc_part, a_bytes, w_bytes});
    // sdot only: sum (u ^ 0x80) * w as signed bytes, plus 128 x sum(w) (an sdot by ones, shifted).
    Value* shifted = b_.CreateXor(a_bytes, llvm::ConstantInt::get(part_bytes, 0x80));
    Value* ones = llvm::ConstantInt::get(part_bytes, 1);
    Value* zero = llvm::Constant::getNullValue(part_words);
    Value* sum_w = b_.CreateIntrinsic(id, {part_words, part_bytes}, {zero, ones, w_bytes});
    Value* with_shifted = b_.CreateIntrinsic(id, {part_words, part_bytes}, {acc_part, shifted, w_bytes});
    return b_.CreateAdd(with_shifted, b_.CreateShl(sum_w, 7));
  };
  for (size_t i = 0; i < sum.groups.size(); ++i) {
    const Dot4Group& g = sum.groups[i];
    llvm::LoadInst* a = b_.CreateAlignedLoad(
        i32, b_.CreateInBoundsGEP(i8, scope_->buffers[g.unsigned_load->int_value], addresses[i].unsigned_index.value),
        llvm::Align(1));
    llvm::LoadInst* w = b_.CreateAlignedLoad(
        words, b_.CreateInBoundsGEP(i8, scope_->buffers[g.signed_load->int_value], addresses[i].signed_index.value),
        llvm::Align(1));
    alias_scopes_.Tag(a, static_cast<int>(g.unsigned_load->int_value));
    alias_scopes_.Tag(w, static_cast<int>(g.signed_load->int_value));
    if (width > 0) {
      Value* a_words = b_.CreateVectorSplat(width, a);
      std::vector<Value*> parts;
      for (int p = 0; p < lanes / width; ++p) {
        std::vector<int> part(width);
        for (int l = 0; l < width; ++l) part[l] = p * width + l;
        Value* acc_part = lanes == width ? acc : b_.CreateShuffleVector(acc, part);
        Value* w_part = lanes == width ? static_cast<Value*>(w) : b_.CreateShuffleVector(w, part);
        parts.push_back(dot(acc_part, a_words, w_part));
      }
      if (parts.size() == 1) {
        acc = parts[0];
      } else {
        acc = Concat(std::move(parts));
      }
    } else {
      // Without VNNI: widen the 4 x lanes bytes, multiply, and add each lane's four products.
      auto* bytes = llvm::FixedVectorType::get(i8, 4 * lanes);
      auto* wide = llvm::FixedVectorType::get(i32, 4 * lanes);
      Value* u = b_.CreateZExt(b_.CreateBitCast(b_.CreateVectorSplat(lanes, a), bytes), wide);
      Value* s = b_.CreateSExt(b_.CreateBitCast(w, bytes), wide);
      Value* products = b_.CreateMul(u, s);
      for (int j = 0; j < 4; ++j) {
        std::vector<int> pick(lanes);
        for (int l = 0; l < lanes; ++l) pick[l] = 4 * l + j;
        acc = b_.CreateAdd(acc, b_.CreateShuffleVector(products, pick));
      }
    }
  }
  *out = LaneValue{LaneValue::Kind::kVector, acc, 0, 0};
  return true;
}

}  // namespace tunefarm::codegen
