// Skipping the taps that fall on padding. A reduction update that accumulates a padded read,
//
//   acc[i] = acc[i] + select(inside, x[...], 0) * w[...]     (or `+ select(...)`, or `w * select`)
//
// becomes `if (inside) acc[i] = acc[i] + x[...] * w[...]`: a conv whose padding is inlined no
// longer multiplies by the zeros of its border, as oneDNN's and ONNX Runtime's convolutions do
// not (on a 7x7 map with a 3x3 window and pad 1 that is 18% of the multiply-adds).
//
// Then each conjunct of such a test moves out of every loop whose variable it does not use, as
// long as the test is that loop's whole body: in a conv the row test lands on the kernel-row
// loop (one branch per row of taps), and the column test, inside loops LLVM unrolls, becomes a
// constant there and the dead taps disappear. A test that varies across a vectorized loop's lanes
// is left a select (a blend), and so is one that could not leave a vectorized loop.
//
// A guard that would end up innermost around a store to a buffer in memory (not a local tile)
// becomes a select of the update instead, `acc = select(inside, acc + x * w, acc)`: a branch
// there would keep LLVM from holding the accumulator in registers across the reduction.
//
// Exact: what is skipped adds 0 times a weight to the sum, which changes nothing unless that
// weight is inf or NaN (and the sign of a zero sum). Sums in GPU shared memory are left alone:
// their loops get barriers, which must not sit under a test of the thread index.
#pragma once

#include <vector>

#include "compiler/tir/stmt.h"

namespace tunefarm::tir {

// `buffers`: the function's buffers, which `s` indexes.
Stmt SkipPaddedTaps(const Stmt& s, const std::vector<Buffer>& buffers);

}  // namespace tunefarm::tir
