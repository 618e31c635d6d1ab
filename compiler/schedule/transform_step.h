// Transform steps: the records a schedule is made of. Each step is a plain struct; the same
// three operations exist for every kind (validate+apply to a State, write to JSON, read from
// JSON), dispatched through one std::variant so the plumbing is written once.
//
// JSON form of each step (an array, first element the kind tag, as in Ansor's records):
//   ["SP", stage, iter, extent, [len, len|null, ...]]     split into outer + one iterator per length
//   ["RE", stage, [iter, ...]]                            reorder (a permutation of all iterators)
//   ["FU", stage, [iter, ...]]                            fuse consecutive iterators
//   ["AN", stage, iter, "parallel"|"vectorize"|"unroll"]  annotate
//   ["PR", stage, iter, "auto_unroll_max_step$N"]         pragma
//   ["CA", stage, target_stage, target_iter]              compute_at
//   ["CI", stage]                                         compute_inline
//   ["CR", stage]                                         compute_root
//   ["FSP", stage, iter, src_step, n_split]               follow_split
//   ["FFSP", stage, iter, [src_step, ...], level, 0|1]    follow_fused_split (1: factor, 0: nparts)
//   ["CHW", stage, scope]                                 cache_write
//   ["CHR", stage, scope, [reader, ...]]                  cache_read
//   ["RF", stage, iter(, factor_axis)]                    rfactor (factor_axis written when not 0)
//   ["LR", placeholder, reader]                           layout rewrite of a constant
//   ["SA", stage, axis, factor, offset]                   storage_align (pads a local/shared row)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tunefarm::schedule {

class State;
enum class IterAnnotation : uint8_t;

struct SplitStep {
  int stage = 0, iter = 0;
  int64_t extent = 0;  // the split iterator's extent when recorded; checked on replay
  std::vector<std::optional<int64_t>> lengths;  // inner factors, outer to inner; nullopt = unfilled
};
struct ReorderStep {
  int stage = 0;
  std::vector<int> order;
};
struct FuseStep {
  int stage = 0;
  std::vector<int> iters;
};
struct AnnotationStep {
  int stage = 0, iter = 0;
  IterAnnotation annotation;
};
struct PragmaStep {
  int stage = 0, iter = 0;
  int auto_unroll_max_step = 0;
};
// Split `iter` like an earlier split step: its first n_split-1 lengths, then the product of the
// rest (so the tuner changes one split and the follower changes with it).
struct FollowSplitStep {
  int stage = 0, iter = 0;
  int src_step = 0, n_split = 1;
};
// Split `iter` by the product of lengths[level] of several earlier split steps; as the inner
// factor, or (factor_or_nparts false) as the number of outer parts.
struct FollowFusedSplitStep {
  int stage = 0, iter = 0;
  std::vector<int> src_steps;
  int level = 0;
  bool factor_or_nparts = true;
};
// A new stage computes `stage`'s body into a scratch buffer; `stage` becomes a copy of it.
// The new stage takes index `stage` (later stages shift by one).
struct CacheWriteStep {
  int stage = 0;
  std::string scope;
};
// A new stage copies `stage` (a placeholder or stage) and `readers` read the copy instead.
// The new stage takes index stage + 1 (later stages shift by one).
struct CacheReadStep {
  int stage = 0;
  std::string scope;
  std::vector<int> readers;
};
// Splits a reduction in two: a new stage (index `stage`, later ones shift) reduces everything
// but reduce iterator `iter`, which becomes its space axis number `factor_axis` (0: before the
// original space axes, num_space: after them); `stage` then reduces over it. `iter` is an
// original reduce axis or a fusion of several, or one half of a two-way split of either.
struct RfactorStep {
  int stage = 0, iter = 0;
  int factor_axis = 0;
};
// The constant placeholder `stage` (weights), read only by `reader`, is given the layout in
// which the reader's loops, as they are now, walk it: one dimension per loop of the reader that
// derives from the placeholder's axes, outermost first. A new stage (index stage + 1, scope
// "layout") holds the rewritten tensor and the reader reads it; lowering makes it the kernel
// parameter in the placeholder's place, and the compiler computes it from the weights at build
// time (docs/compiler-pipeline.md, "Layout rewrite").
struct LayoutRewriteStep {
  int stage = 0, reader = 0;
};
// The buffer of local or shared stage `stage` gets its dimension `axis` + 1 (the rows of
// dimension `axis`, any but the innermost) padded to the least length >= its extent that is
// `offset` modulo `factor`; where the dimensions after it are of length 1 that is the stride of
// `axis`. E.g. rows of an odd number of words, so that a warp reading down a column of a shared
// tile hits 32 banks (TVM's storage_align). Changes the layout, never the values.
struct StorageAlignStep {
  int stage = 0, axis = 0;
  int factor = 1, offset = 0;
};
struct ComputeAtStep {
  int stage = 0, target_stage = 0, target_iter = 0;
};
struct ComputeInlineStep {
  int stage = 0;
};
struct ComputeRootStep {
  int stage = 0;
};

using Step = std::variant<SplitStep, ReorderStep, FuseStep, AnnotationStep, PragmaStep, ComputeAtStep,
                          ComputeInlineStep, ComputeRootStep, FollowSplitStep, FollowFusedSplitStep, CacheWriteStep,
                          CacheReadStep, RfactorStep, LayoutRewriteStep, StorageAlignStep>;

// The short tag of a step kind ("SP", "RE", ...).
std::string_view StepTag(const Step& step);

// Validates and applies; on error leaves `state` unchanged. Used by State::Apply.
absl::Status ApplyStep(const Step& step, State* state);

// Per-kind implementations (one .cc per kind).
absl::Status ApplySplit(const SplitStep& s, State* state);
absl::Status ApplyReorder(const ReorderStep& s, State* state);
absl::Status ApplyFuse(const FuseStep& s, State* state);
absl::Status ApplyAnnotation(const AnnotationStep& s, State* state);
absl::Status ApplyPragma(const PragmaStep& s, State* state);
absl::Status ApplyComputeAt(const ComputeAtStep& s, State* state);
absl::Status ApplyComputeInline(const ComputeInlineStep& s, State* state);
absl::Status ApplyComputeRoot(const ComputeRootStep& s, State* state);
absl::Status ApplyFollowSplit(const FollowSplitStep& s, State* state);
absl::Status ApplyFollowFusedSplit(const FollowFusedSplitStep& s, State* state);
absl::Status ApplyCacheWrite(const CacheWriteStep& s, State* state);
absl::Status ApplyCacheRead(const CacheReadStep& s, State* state);
absl::Status ApplyRfactor(const RfactorStep& s, State* state);
absl::Status ApplyLayoutRewrite(const LayoutRewriteStep& s, State* state);
absl::Status ApplyStorageAlign(const StorageAlignStep& s, State* state);

// A Status for a rejected step: "<TAG> stage S iter I: <reason>".
absl::Status StepError(std::string_view tag, int stage, int iter, std::string_view reason);

}  // namespace tunefarm::schedule
