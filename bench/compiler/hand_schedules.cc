#include "bench/compiler/hand_schedules.h"

#include <cstdio>
#include <cstdlib>

#include "common/strings.h"

namespace tunefarm::bench {
namespace {

using schedule::IterAnnotation;
using schedule::State;

// Applies steps in order; the first failure drops the template (printed by the caller as absent).
bool All(std::initializer_list<absl::Status> steps) {
  for (const absl::Status& s : steps)
    if (!s.ok()) {
      if (std::getenv("TUNEFARM_BENCH_VERBOSE")) std::fprintf(stderr, "  step refused: %s\n", std::string(s.message()).c_str());
      return false;
    }
  return true;
}

// An NCHW[x]c conv DAG (x, w, [pad], conv): whether it pads, its conv stage, and that stage's
// output shape [n, ko, oh, ow, y].
struct NchwcConvStage {
  bool padded;
  int conv;
  std::vector<int64_t> shape;
};
NchwcConvStage ConvStageOf(const te::ComputeDag& dag) {
  const bool padded = dag.num_tensors() == 4;
  const int conv = padded ? 3 : 2;
  return {padded, conv, dag.tensor(conv).shape};
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
  // A single row streamed: each task owns 1/parts of the columns and walks B row by row, kr
  // rows per pass over its part of C (which stays in L1, its vectors loaded and stored once per
  // pass); B is read once, in order.
  const int64_t n = dag->tensor(2).shape[1];
  for (int64_t parts : {1, 2, 4, 5, 8}) {
    if (m != 1 || n % parts != 0) continue;
    int64_t vec = 0;
    for (int64_t v = 64; v >= 8 && vec == 0; v -= 8)
      if ((n / parts) % v == 0) vec = v;
    for (int64_t v = 64; v >= 16 && vec == 0; --v)
      if ((n / parts) % v == 0) vec = v;
    if (vec == 0) continue;
    for (int64_t kr : {4, 8, 16}) {
      State s(dag);  // i j k -> i j.0 j.1 j.2 k.0 k.1 -> (i j.0) k.0 j.1 k.1 j.2
      bool ok = All({s.Split(2, 1, {n / parts / vec, vec}), s.Split(2, 4, {kr}), s.Reorder(2, {0, 1, 4, 2, 5, 3}),
                     s.Fuse(2, {0, 1})});
      ok = ok && (parts == 1 || All({s.Annotate(2, 0, IterAnnotation::kParallel)})) &&
           All({s.Annotate(2, 3, IterAnnotation::kUnroll), s.Annotate(2, 4, IterAnnotation::kVectorize)});
      if (ok) out.push_back({StrCat("stream parts=", parts, " vec=", vec, " kr=", kr), std::move(s)});
    }
  }
  return out;
}

std::vector<NamedState> GemmTileTemplates(std::shared_ptr<const te::ComputeDag> dag, int lanes) {
  std::vector<NamedState> out;
  const auto& c_shape = dag->tensor(2).shape;
  if (c_shape[0] == 1) return out;
  for (int64_t mr : {4, 6, 8, 12})
    for (int64_t nr : {2 * lanes, 4 * lanes})
      for (bool pack : {false, true}) {
        if (mr * (nr / lanes) > 24) continue;  // accumulators + operands must fit 32 registers
        State s(dag);  // A B C
        bool ok = !pack || s.CacheRead(1, "local", {2}).ok();  // A B B.local C
        const int cl = pack ? 3 : 2, co = cl + 1;
        ok = ok && All({s.CacheWrite(cl, "local"),                                     // ... C.local C
                        s.Split(co, 0, {mr}), s.Split(co, 2, {nr}), s.Reorder(co, {2, 0, 1, 3}),  // j.0 i.0 i.1 j.1
                        s.ComputeAt(cl, co, 1),                                        // the tile per (j.0, i.0)
                        // C.local split like the tile (its outer loops run once inside it), so its
                        // inner loops have known extents: i.0 j.0 k i.1 j.1
                        s.Split(cl, 0, {mr}), s.Split(cl, 2, {nr}), s.Reorder(cl, {0, 2, 4, 1, 3}),
                        s.Annotate(cl, 3, IterAnnotation::kUnroll), s.Annotate(cl, 4, IterAnnotation::kVectorize)});
        // B.local (k j) split the same way: k j.0 j.1, the panel row vectorized.
        if (pack) ok = ok && All({s.ComputeAt(2, co, 0), s.Split(2, 1, {nr}), s.Annotate(2, 2, IterAnnotation::kVectorize)});
        ok = ok && All({s.Annotate(co, 0, IterAnnotation::kParallel), s.Annotate(co, 3, IterAnnotation::kVectorize)});
        if (ok) out.push_back({StrCat("tile mr=", mr, " nr=", nr, pack ? " packB" : ""), std::move(s)});
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

std::vector<NamedState> ConvNchwcTileTemplates(std::shared_ptr<const te::ComputeDag> dag, int lanes) {
  std::vector<NamedState> out;
  const auto [padded, conv, shape] = ConvStageOf(*dag);
  const int64_t kos = shape[1], ow = shape[3];
  for (int64_t kob : {1, 2, 4})
    for (int64_t owb = 1; owb <= ow; ++owb) {
      if (ow % owb != 0 || kos % kob != 0 || kob * owb > 28 || kob * owb < 12) continue;
      for (bool pad_at_root : {false, true})
        for (bool rewrite : {false, true}) {
          if (pad_at_root && !padded) continue;
          State s(dag);
          bool ok = !padded || (pad_at_root ? true : s.ComputeInline(2).ok());
          const int cl = conv, co = conv + 1;
          ok = ok && All({s.CacheWrite(conv, "local"),                     // conv.local conv
                          s.Split(co, 3, {owb}), s.Split(co, 1, {kob}),     // n ko.0 ko.1 oh ow.0 ow.1 y
                          s.Reorder(co, {0, 1, 3, 4, 2, 5, 6}),             // n ko.0 oh ow.0 ko.1 ow.1 y
                          s.ComputeAt(cl, co, 3),                           // the tile per ow.0
                          // conv.local split like the tile: n ko.0 ko.1 oh ow.0 ow.1 y ci r s xi
                          s.Split(cl, 3, {owb}), s.Split(cl, 1, {kob}),
                          // -> n ko.0 oh ow.0 ci r s xi ko.1 ow.1 y
                          s.Reorder(cl, {0, 1, 3, 4, 7, 8, 9, 10, 2, 5, 6}),
                          s.Annotate(cl, 8, IterAnnotation::kUnroll), s.Annotate(cl, 9, IterAnnotation::kUnroll),
                          s.Annotate(cl, 10, IterAnnotation::kVectorize)});
          // The weights (tensor 1) in the tile's order, [ko.0 ci r s xi ko.1 y]: one contiguous
          // run per tile. The rewritten tensor is a new stage after them, so later stages move up.
          const int shift = rewrite ? 1 : 0;
          if (rewrite) ok = ok && s.LayoutRewrite(1, cl).ok();
          ok = ok && All({s.Fuse(co + shift, {0, 1, 2}), s.Annotate(co + shift, 0, IterAnnotation::kParallel),
                          s.Annotate(co + shift, 4, IterAnnotation::kVectorize)});
          if (pad_at_root) {  // the padded input once per call, in parallel over its rows
            ok = ok && All({s.Fuse(2 + shift, {0, 1, 2}), s.Annotate(2 + shift, 0, IterAnnotation::kParallel),
                            s.Annotate(2 + shift, 2, IterAnnotation::kVectorize)});
          }
          if (ok)
            out.push_back({StrCat("tile kob=", kob, " owb=", owb, pad_at_root ? " pad@root" : "", rewrite ? " LR" : ""),
                           std::move(s)});
        }
    }
  return out;
}

std::vector<NamedState> ConvNchwcBlockTemplates(std::shared_ptr<const te::ComputeDag> dag, int lanes) {
  std::vector<NamedState> out;
  const auto [padded, conv, shape] = ConvStageOf(*dag);
  const int64_t kos = shape[1], ow = shape[3];
  const int64_t cis = dag->tensor(conv).reduce_extents[0];
  const int64_t plane_bytes = shape[2] * ow * shape[4] * 4;
  for (int64_t kob : {2, 3, 4})
    for (int64_t owb = 1; owb <= ow; ++owb) {
      if (ow % owb != 0 || kos % kob != 0 || kob * owb > 28 || kob * owb < 12) continue;
      if (kob * plane_bytes > 48 * 1024) continue;  // the block lives in L1
      for (int64_t cib : {4, 8, 16, 32}) {
        if (cis % cib != 0 || cib >= cis) continue;
        State s(dag);
        bool ok = true;
        const int cl = conv, co = conv + 1;
        ok = ok && All({s.CacheWrite(conv, "local"),  // conv.local conv
                        s.Split(co, 1, {kob}),         // n ko.0 ko.1 oh ow y
                        s.ComputeAt(cl, co, 1),        // the whole kob x oh x ow block per ko.0
                        // conv.local: n ko.0 ko.1 oh ow.0 ow.1 y ci.0 ci.1 r s xi
                        s.Split(cl, 3, {owb}), s.Split(cl, 1, {kob}), s.Split(cl, 7, {cib}),
                        // -> n ko.0 ci.0 oh ow.0 ci.1 r s xi ko.1 ow.1 y
                        s.Reorder(cl, {0, 1, 7, 3, 4, 8, 9, 10, 11, 2, 5, 6}),
                        s.Annotate(cl, 9, IterAnnotation::kUnroll), s.Annotate(cl, 10, IterAnnotation::kUnroll),
                        s.Annotate(cl, 11, IterAnnotation::kVectorize)});
        ok = ok && s.LayoutRewrite(1, cl).ok();
        ok = ok && All({s.Fuse(co + 1, {0, 1}), s.Annotate(co + 1, 0, IterAnnotation::kParallel),
                        s.Annotate(co + 1, 4, IterAnnotation::kVectorize)});
        if (padded)  // the padded input once per call, in parallel over its rows
          ok = ok && All({s.Fuse(3, {0, 1, 2}), s.Annotate(3, 0, IterAnnotation::kParallel),
                          s.Annotate(3, 2, IterAnnotation::kVectorize)});
        if (ok)
          out.push_back({StrCat("block kob=", kob, " owb=", owb, " cib=", cib), std::move(s)});
      }
    }
  return out;
}

}  // namespace tunefarm::bench
