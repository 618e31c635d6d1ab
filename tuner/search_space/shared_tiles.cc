#include "tuner/search_space/shared_tiles.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "common/strings.h"
#include "compiler/tir/analyzer.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/region_inference.h"
#include "tuner/search_space/gpu_sketch_rules.h"

namespace tunefarm::tuner {
namespace {

using schedule::Stage;
using schedule::State;
using te::Expr;

absl::Status NotATile(const State& s, int stage, std::string_view why) {
  return absl::FailedPreconditionError(
      StrCat(s.dag().tensor(s.stage(stage).tensor_id).name, " is not a shared tile of a gpu-tile stage: ", why));
}

// The leaves that `node` of `st` was split into, outermost first (the node itself when it was
// never split). False when a fuse took part: then its levels are no simple tile.
bool LeavesOf(const Stage& st, int node, std::vector<int>* out) {
  for (const schedule::IterRelation& r : st.relations) {
    if (std::find(r.from.begin(), r.from.end(), node) == r.from.end()) continue;
    if (r.kind == schedule::IterRelation::kFuse) return false;
    for (int child : r.to)
      if (!LeavesOf(st, child, out)) return false;
    return true;
  }
  out->push_back(node);
  return true;
}

int IterPosition(const Stage& st, int node) {
  for (int i = 0; i < static_cast<int>(st.iters.size()); ++i)
    if (st.iters[i].node == node) return i;
  return -1;
}

}  // namespace

absl::StatusOr<SharedTile> EstimateSharedTile(const State& s, int stage) {
  const Stage& st = s.stage(stage);
  if (st.scope != "shared" || st.location != schedule::ComputeLocation::kAt)
    return NotATile(s, stage, "not a shared stage computed at a loop");
  const Stage& local = s.stage(st.attach_stage);
  const int attach = IterPosition(local, st.attach_node);
  if (local.scope != "local" || attach < 0) return NotATile(s, stage, "not computed at a loop of a local stage");
  const auto& reads = s.dag().analysis(local.tensor_id).reads;
  const auto accessed = reads.find(st.tensor_id);
  if (accessed == reads.end()) return NotATile(s, stage, "its local stage reads it through another stage");

  // Each axis of X.local runs over [base, base + covered): base a symbol (the block, the step
  // along the reduction), covered the product of the levels the tile spans.
  std::unordered_map<int64_t, int64_t> covered;
  std::vector<Expr> space, reduce;
  int64_t next_var = 0;
  for (int axis = 0; axis < local.num_space_axes + local.num_reduce_axes; ++axis) {
    std::vector<int> leaves;
    if (!LeavesOf(local, axis, &leaves)) return NotATile(s, stage, "an axis of its local stage is fused");
    const bool is_space = axis < local.num_space_axes;
    int64_t extent = 1;
    bool spanned = false;
    for (int leaf : leaves) {
      const schedule::IterNode& n = local.nodes[leaf];
      if (n.extent == schedule::kUnknownExtent) return NotATile(s, stage, "a split length is unfilled");
      const int level = TileLevel(n);
      const bool spans =
          IterPosition(local, leaf) > attach || (is_space && level >= 1 && level < kGpuCopyOutLevels);
      // The spanned levels must be an axis's inner ones, so that they cover one range.
      if (spanned && !spans) return NotATile(s, stage, "it spans an outer level of an axis but not an inner one");
      spanned |= spans;
      if (spans) extent *= n.extent;
    }
    const Expr base = te::MakeVar("base", next_var++), offset = te::MakeVar("offset", next_var++);
    covered[offset->int_value] = extent;
    (is_space ? space : reduce).push_back(base + offset);
  }
  std::vector<std::vector<Expr>> accesses;
  for (const std::vector<Expr>& indices : accessed->second) {
    std::vector<Expr>& bound = accesses.emplace_back();
    for (const Expr& index : indices)
      bound.push_back(te::Rewrite(index, [&](const Expr& e) -> Expr {
        if (e->kind == te::ExprKind::kAxis) return space[e->int_value];
        if (e->kind == te::ExprKind::kReduceAxis) return reduce[e->int_value];
        return Expr();
      }));
  }
  const te::TensorDef& tensor = s.dag().tensor(st.tensor_id);
  SharedTile tile;
  tile.stage = stage;
  for (const std::vector<Expr>& access : accesses)
    for (const Expr& index : access) {
      Expr lo, hi;
      tile.exact = tile.exact && tir::RangeOverVars(index, covered, &lo, &hi);
    }
  for (const tir::AxisRegion& d : tir::InferRegion(accesses, covered, tensor.shape)) tile.extents.push_back(d.extent);
  tile.allocated = st.AlignedShape(tile.extents);
  tile.element_bytes = te::DTypeBytes(tensor.dtype);
  // Its source: inlined already, or to be (the GPU sketch inlines every strictly inlinable
  // stage, after it made this copy).
  for (const auto& [source, indices] : s.dag().analysis(st.tensor_id).reads) {
    const Stage& from = s.stage(source);
    if (!from.is_placeholder &&
        (from.location == schedule::ComputeLocation::kInlined || s.dag().analysis(source).strictly_inlinable))
      tile.plain_copy = false;
  }
  tile.bytes = te::DTypeBytes(tensor.dtype);
  for (int64_t d : tile.allocated) tile.bytes *= d;
  return tile;
}

absl::StatusOr<int64_t> SharedBytesOfTile(const State& s, int local) {
  int64_t bytes = 0;
  for (int stage = 0; stage < static_cast<int>(s.stages().size()); ++stage) {
    const Stage& st = s.stage(stage);
    if (st.scope != "shared" || st.location != schedule::ComputeLocation::kAt || st.attach_stage != local) continue;
    auto tile = EstimateSharedTile(s, stage);
    if (!tile.ok()) return tile.status();
    if (!tile->exact) return NotATile(s, stage, "an index is not linear in the tile's loops, so only lowering bounds it");
    bytes += tir::SharedArrayBytes(tile->bytes);
  }
  return bytes;
}

}  // namespace tunefarm::tuner
