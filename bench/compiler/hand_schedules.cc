#include "bench/compiler/hand_schedules.h"

#include "compiler/common/strings.h"

namespace tunefarm::bench {
namespace {

using schedule::IterAnnotation;
using schedule::State;

// Applies steps in order; the first failure drops the template (printed by the caller as absent).
bool All(std::initializer_list<absl::Status> steps) {
  for (const absl::Status& s : steps)
    if (!s.ok()) return false;
  return true;
}

}  // namespace

std::vector<NamedState> GemmTemplates(std::shared_ptr<const te::ComputeDag> dag, int lanes) {
  std::vector<NamedState> out;
  const int64_t m = dag->tensor(2).shape[0];
  for (int64_t mr : {1, 4, 6, 8})
    for (int64_t nr : {2 * lanes, 4 * lanes})
      for (int64_t kc : {0, 128}) {
        if ((mr == 1) != (m == 1)) continue;  // a single row needs no row tile, others do
        State s(dag);
        // i.0 j.0 [k.0] k.1 i.1 j.1: an mr x nr block of C stays in registers across k
        bool ok = All({s.Split(2, 0, {mr}), s.Split(2, 2, {nr})});
        ok = ok && (kc > 0 ? All({s.Split(2, 4, {kc}), s.Reorder(2, {0, 2, 4, 5, 1, 3})}) : s.Reorder(2, {0, 2, 4, 1, 3}).ok());
        int n = static_cast<int>(s.stage(2).iters.size());
        // A single-row GEMM (the dense layer) runs its column tiles in parallel instead.
        ok = ok && (m == 1 ? All({s.Fuse(2, {0, 1}), s.Annotate(2, 0, IterAnnotation::kParallel),
                                  s.Annotate(2, n - 2, IterAnnotation::kVectorize)})
                           : All({s.Annotate(2, 0, IterAnnotation::kParallel), s.Annotate(2, n - 2, IterAnnotation::kUnroll),
                                  s.Annotate(2, n - 1, IterAnnotation::kVectorize)}));
        if (ok) out.push_back({StrCat("mr=", mr, " nr=", nr, " kc=", kc), std::move(s)});
      }
  return out;
}

std::vector<NamedState> ConvTemplates(std::shared_ptr<const te::ComputeDag> dag, int lanes) {
  std::vector<NamedState> out;
  const bool padded = dag->num_tensors() == 4;
  const int conv = padded ? 3 : 2;
  const auto& shape = dag->tensor(conv).shape;  // n k oh ow
  const int64_t channels = dag->tensor(conv).reduce_extents[0];
  std::vector<int64_t> vfs;
  for (int64_t vf = 7; vf <= 4 * lanes; ++vf)
    if (shape[3] % vf == 0 && (vf % lanes == 0 || vf == shape[3])) vfs.push_back(vf);
  if (vfs.empty()) vfs.push_back(lanes);
  for (int64_t kr : {4, 8})
    for (int64_t vf : vfs)
      for (int64_t rcb : {int64_t{0}, int64_t{16}}) {
        if (rcb >= channels) continue;
        State s(dag);
        bool ok = !padded || s.ComputeInline(2).ok();
        // n k oh ow rc ry rx -> n k.0 oh ow.0 [rc.0] rc.1 ry rx k.1 ow.1
        ok = ok && s.Split(conv, 1, {kr}).ok();  // n k.0 k.1 oh ow rc ry rx
        bool split_w = vf < shape[3];
        if (split_w) ok = ok && s.Split(conv, 4, {vf}).ok();  // ... ow.0 ow.1 rc ry rx
        int rc = split_w ? 6 : 5;
        if (rcb > 0) ok = ok && s.Split(conv, rc, {rcb}).ok();
        int n_iters = static_cast<int>(s.stage(conv).iters.size());
        std::vector<int> order = {0, 1, 3};
        if (split_w) order.push_back(4);
        for (int i = rc; i < n_iters; ++i) order.push_back(i);
        order.push_back(2);
        order.push_back(split_w ? 5 : 4);
        ok = ok && s.Reorder(conv, order).ok();
        int outer = split_w ? 4 : 3;
        std::vector<int> fused;
        for (int i = 0; i < outer; ++i) fused.push_back(i);
        ok = ok && All({s.Fuse(conv, fused), s.Annotate(conv, 0, IterAnnotation::kParallel)});
        int n = static_cast<int>(s.stage(conv).iters.size());
        ok = ok && All({s.Annotate(conv, n - 2, IterAnnotation::kUnroll), s.Annotate(conv, n - 1, IterAnnotation::kVectorize)});
        if (ok) out.push_back({StrCat("kr=", kr, " vf=", vf, " rcb=", rcb), std::move(s)});
      }
  return out;
}

}  // namespace tunefarm::bench
