// Four-way 8-bit dot products: the shape of x86's VNNI instruction vpdpbusd, which adds to
// each int32 lane the four products of an unsigned byte and a signed byte.
//
// Nothing in the IR names the instruction. An int8 kernel (ops/int8_matmul.h) writes its
// update as plain arithmetic,
//   acc + i32(a[i]) * i32(b[j]) + i32(a[i+1]) * i32(b[j+1]) + ... (four adjacent products),
// with a uint8 and b int8, so the interpreter, the features and every other backend read it as
// they read any sum. When such a sum is vectorized so that `a`'s four bytes are the same in
// every lane and lane l reads `b`'s bytes 4l..4l+3 (b packed four k per lane), the expression
// emitter (dot_product.cc) emits one vpdpbusd per group of four instead of four gathers, or,
// without VNNI, one contiguous load and widening arithmetic. Any other shape of the same sum is
// emitted term by term, as before.
//
// AArch64 has the same four-way instruction on 4 int32 lanes: usdot (unsigned x signed, with
// +i8mm) and sdot (signed x signed, with +dotprod). With sdot alone the unsigned bytes are
// shifted into the signed range, u = (u ^ 0x80) + 128 as int8, and the 128 x sum(b) this takes
// away comes back from a second sdot of b by bytes of 1: exact, as every sum wraps the same.
#pragma once

#include <vector>

#include "compiler/te/expr.h"

namespace llvm {
class TargetMachine;
}  // namespace llvm

namespace tunefarm::codegen {

// What the target's vector units offer for dot products.
struct DotProductOptions {
  bool vnni_512 = false;  // vpdpbusd on 16 int32 lanes (AVX512-VNNI)
  bool vnni_256 = false;  // vpdpbusd on 8 int32 lanes (AVX512-VNNI with AVX512VL, or AVX-VNNI)
  bool neon_usdot = false;  // AArch64 usdot on 4 int32 lanes (+i8mm)
  bool neon_sdot = false;   // AArch64 sdot on 4 int32 lanes (+dotprod)
};

DotProductOptions DotProductOptionsFor(const llvm::TargetMachine& tm);

// One group of four products: the loads of its first product (element offset 0); the others
// read the next three elements of the same two buffers.
struct Dot4Group {
  te::Expr unsigned_load;  // uint8
  te::Expr signed_load;    // int8
};

// An int32 sum split into groups of four and the terms that are not in one.
struct Dot4Sum {
  std::vector<Dot4Group> groups;
  std::vector<te::Expr> rest;
};

// Splits the int32 add tree `sum` into its terms, and the products i32(uint8 load) *
// i32(int8 load) among them into groups of four whose both indices advance by 1, 2 and 3 from
// the group's first. True when at least one group was found.
bool MatchDot4Sum(const te::Expr& sum, Dot4Sum* out);

}  // namespace tunefarm::codegen
