#include "compiler/schedule/padding_placement.h"

namespace tunefarm::schedule {

bool PaddingWorthComputingOnce(const State& s, int stage, int vector_lanes) {
  const te::TensorDef& t = s.dag().tensor(stage);
  if (!t.body.defined() || t.body->kind != te::ExprKind::kSelect) return false;
  const std::vector<int>& readers = s.dag().consumers(stage);
  if (readers.size() != 1) return false;
  const te::StageAnalysis& reader = s.dag().analysis(readers[0]);
  if (!reader.needs_multi_level_tiling) return false;
  if (t.shape.empty() || t.shape.back() < vector_lanes) return false;
  double elements = 1;
  for (int64_t d : t.shape) elements *= static_cast<double>(d);
  return reader.flops >= kMinFlopsPerPaddedElement * elements;
}

}  // namespace tunefarm::schedule
