#include "compiler/tir/region_inference.h"

#include <algorithm>

#include "compiler/tir/analyzer.h"
#include "compiler/tir/injected_bug.h"

namespace tunefarm::tir {

std::vector<AxisRegion> InferRegion(const std::vector<std::vector<Expr>>& accesses,
                                    const std::unordered_map<int64_t, int64_t>& inner,
                                    const std::vector<int64_t>& shape) {
  std::vector<AxisRegion> region;
  Analyzer symbolic;  // outer loop variables stay symbols, so constant offsets cancel
  for (size_t d = 0; d < shape.size(); ++d) {
    AxisRegion whole{te::IntImm(te::kIndexType, 0), shape[d]};
    Expr base;
    int64_t lo_off = 0, hi_off = 0;
    bool ok = !accesses.empty();
    for (const auto& access : accesses) {
      Expr lo, hi;
      if (!ok || !RangeOverVars(access[d], inner, &lo, &hi)) {
        ok = false;
        break;
      }
      if (!base.defined()) base = lo;
      int64_t l, h;
      if (!te::IsConstInt(symbolic.Simplify(lo - base), &l) || !te::IsConstInt(symbolic.Simplify(hi - base), &h)) {
        ok = false;
        break;
      }
      lo_off = std::min(lo_off, l);
      hi_off = std::max(hi_off, h);
    }
    int64_t extent = hi_off - lo_off + 1;
    if (CurrentInjectedBug() == InjectedBug::kShrinkComputeAtRegion && extent > 1) --extent;
    if (!ok || extent > shape[d]) {
      region.push_back(whole);
      continue;
    }
    region.push_back({symbolic.Simplify(base + te::IntImm(te::kIndexType, lo_off)), extent});
  }
  return region;
}

}  // namespace tunefarm::tir
