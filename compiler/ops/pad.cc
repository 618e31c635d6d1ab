#include "compiler/ops/pad.h"

#include "common/strings.h"

namespace tunefarm::ops {

Expr PadSourceIndex(PadMode mode, const Expr& i, int64_t pad_begin, int64_t size) {
  Expr src = i - pad_begin;
  if (mode != PadMode::kReflect || size == 1) return Clamp(src, 0, size - 1);
  // Reflection is periodic with period 2 * (size - 1): fold into one period, then mirror.
  const int64_t period = 2 * (size - 1);
  Expr m = src % period;  // floor modulo: in [0, period)
  return te::Select(te::Lt(m, size), m, period - m);
}

absl::StatusOr<Tensor> Pad(DagBuilder& b, const Tensor& x, const PadParams& p, std::string name) {
  if (auto s = CheckShape("pad", "input", x.shape); !s.ok()) return s;
  const size_t rank = x.shape.size();
  if (p.pads.size() != 2 * rank)
    return OpError("pad", StrCat("pads has ", p.pads.size(), " values, expected 2 * rank = ", 2 * rank));
  Shape shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    shape[d] = x.shape[d] + p.pads[d] + p.pads[rank + d];
    if (shape[d] < 1)
      return OpError("pad", StrCat("axis ", d, " of size ", x.shape[d], " padded by ", p.pads[d], " and ",
                                   p.pads[rank + d], " would be empty"));
  }
  if (auto s = CheckShape("pad", "output", shape); !s.ok()) return s;
  return b.Compute(std::move(name), shape, [&](const Axes& i) {
    std::vector<Expr> index;
    std::vector<Expr> inside;
    for (size_t d = 0; d < rank; ++d) {
      int64_t begin = p.pads[d], end = p.pads[rank + d];
      if (begin == 0 && end == 0) {
        index.push_back(i[d]);
        continue;
      }
      index.push_back(PadSourceIndex(p.mode, i[d], begin, x.shape[d]));
      if (p.mode == PadMode::kConstant) inside.push_back(InRange(i[d] - begin, 0, x.shape[d]));
    }
    Expr read = x(index);
    if (inside.empty()) return read;
    // Select evaluates both arms: the read above is clamped into the input.
    return te::Select(AllOf(inside), read, ScalarConst(x.dtype, p.value));
  });
}

}  // namespace tunefarm::ops
