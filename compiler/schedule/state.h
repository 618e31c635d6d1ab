// A schedule State: the loop structure of every stage of a compute DAG, plus the list of
// transform steps that produced it (the single source of truth: a State is replayable from
// its steps, and that list is what the database stores and the wire carries).
//
// Each stage keeps an iterator graph: its original axes (space axes then reduce axes) are the
// first nodes; split and fuse add nodes and record a relation. The stage's current loop order
// (`iters`) lists leaf nodes outermost first. Lowering turns leaves into loops and derives each
// original axis from them through the relations.
//
// Adding a step kind: add its struct to transform_step.h, its Apply + JSON in its own .cc,
// one line in each table in transform_step.cc, and property-test it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/schedule/transform_step.h"
#include "compiler/te/compute_dag.h"

namespace tunefarm::schedule {

enum class IterKind : uint8_t { kSpace, kReduce };
// kBlockX..kThreadZ bind the iterator to a GPU launch dimension (a cuda target only): its
// iterations run at once, one per block or thread. kVThread makes it a virtual thread: each
// thread runs all its iterations, interleaved statement by statement, each with its own copy of
// the local buffers inside (tir/virtual_thread.h); its index counts above the thread's, so a
// thread's points are spread over the tile instead of packed together.
enum class IterAnnotation : uint8_t {
  kNone, kParallel, kVectorize, kUnroll, kBlockX, kBlockY, kBlockZ, kThreadX, kThreadY, kThreadZ, kVThread };
// "none", "parallel", "vectorize", "unroll", "blockIdx.x", ..., "threadIdx.z", "vthread"
std::string_view IterAnnotationName(IterAnnotation a);
// The annotation named `name` (as IterAnnotationName prints it), or kNone.
IterAnnotation IterAnnotationFromName(std::string_view name);
// A GPU binding: a block or thread axis, or a virtual thread.
inline bool IsThreadBinding(IterAnnotation a) { return a >= IterAnnotation::kBlockX; }

inline constexpr int64_t kUnknownExtent = -1;  // an unfilled split length (a sketch)
// The scope of a stage made by a layout rewrite: the kernel gets it as a parameter.
inline constexpr char kLayoutScope[] = "layout";

struct IterNode {
  std::string name;
  int64_t extent = kUnknownExtent;
  IterKind kind = IterKind::kSpace;
};

// split: from = {parent}, to = {outer, inner_0, ...}; fuse: from = {outer, ..., inner}, to = {fused}
struct IterRelation {
  enum Kind : uint8_t { kSplit, kFuse } kind;
  std::vector<int> from, to;
};

struct Iterator {
  int node = -1;
  IterAnnotation annotation = IterAnnotation::kNone;
};

// Where a stage's loop nest is emitted.
enum class ComputeLocation : uint8_t {
  kRoot,     // its own nest at the top level of the kernel
  kInlined,  // no nest: consumers recompute its body where they read it
  kAt,       // inside a consumer's loop: only the region that loop's iterations need
};

struct Stage {
  int tensor_id = -1;
  bool is_placeholder = false;
  std::vector<IterNode> nodes;
  std::vector<IterRelation> relations;
  std::vector<Iterator> iters;  // current loop order, outermost first
  int auto_unroll_max_step = 0;
  // StorageAlignStep: dimension storage_align_axis + 1 of the stage's buffer (the rows of
  // dimension storage_align_axis) is padded to a length that is storage_align_offset modulo
  // storage_align_factor (factor 0: a dense buffer).
  int storage_align_axis = -1, storage_align_factor = 0, storage_align_offset = 0;
  ComputeLocation location = ComputeLocation::kRoot;
  std::string scope;  // cache stages: the scope they were created for ("local", "global")
  int attach_stage = -1;  // kAt: the consumer stage
  int attach_node = -1;   // kAt: the consumer's iterator node (stable across reorder)

  const IterNode& node_of(int iter) const { return nodes[iters[iter].node]; }
  // The allocated shape of a buffer whose region has `shape`: the region's, with the dimension
  // the storage-align step pads padded to the least length >= its extent that is offset modulo
  // factor.
  std::vector<int64_t> AlignedShape(std::vector<int64_t> shape) const {
    const size_t padded = static_cast<size_t>(storage_align_axis + 1);
    if (storage_align_factor <= 0 || storage_align_axis < 0 || padded >= shape.size()) return shape;
    const int64_t factor = storage_align_factor, row = shape[padded];
    shape[padded] = row + ((storage_align_offset - row) % factor + factor) % factor;
    return shape;
  }
  int num_space_axes = 0;   // nodes [0, num_space_axes) are the original space axes
  int num_reduce_axes = 0;  // the next num_reduce_axes nodes are the original reduce axes
};

class State {
 public:
  // The initial state: every stage at root, loops in axis order, no annotations.
  explicit State(std::shared_ptr<const te::ComputeDag> dag);

  // The DAG as scheduled so far: cache_read, cache_write and rfactor add stages to it.
  const te::ComputeDag& dag() const { return *dag_; }
  const std::shared_ptr<const te::ComputeDag>& dag_ptr() const { return dag_; }
  // The DAG the schedule was written for (its workload key identifies the schedule's task).
  const std::shared_ptr<const te::ComputeDag>& original_dag() const { return original_dag_; }
  const std::vector<Stage>& stages() const { return stages_; }
  const Stage& stage(int id) const { return stages_[id]; }
  const std::vector<Step>& steps() const { return steps_; }

  // Validates `step` against this state, applies it and records it. On error the state is
  // unchanged and the Status names the step and the reason.
  absl::Status Apply(const Step& step);

  // Convenience wrappers that fill in what the step records (e.g. the extent of a split).
  absl::Status Split(int stage, int iter, std::vector<std::optional<int64_t>> lengths);
  absl::Status Reorder(int stage, std::vector<int> order);
  absl::Status Fuse(int stage, std::vector<int> iters);
  absl::Status Annotate(int stage, int iter, IterAnnotation annotation);
  absl::Status PragmaAutoUnroll(int stage, int iter, int max_step);
  absl::Status ComputeAt(int stage, int target_stage, int target_iter);
  absl::Status ComputeInline(int stage);
  absl::Status ComputeRoot(int stage);
  absl::Status FollowSplit(int stage, int iter, int src_step, int n_split);
  absl::Status FollowFusedSplit(int stage, int iter, std::vector<int> src_steps, int level, bool factor_or_nparts);
  absl::Status CacheWrite(int stage, std::string scope);
  absl::Status CacheRead(int stage, std::string scope, std::vector<int> readers);
  absl::Status Rfactor(int stage, int iter, int factor_axis = 0);
  absl::Status LayoutRewrite(int placeholder, int reader);
  absl::Status StorageAlign(int stage, int axis, int factor, int offset);

  // The stages that read `stage`, looking through inlined readers (their reads move into their
  // own readers once their bodies are substituted).
  std::vector<int> EffectiveConsumers(int stage) const;

  // Stages attached at `stage`'s iterator node `node`, producers first (topological order).
  std::vector<int> AttachedAt(int stage, int node) const;

  // True when every split length is filled (a complete schedule, ready to lower).
  bool IsConcrete() const;

  // Canonical JSON of the step list, and the SHA-256 of that text (the schedule hash).
  std::string ToJson() const;
  std::string Hash() const;
  // Replays a step list written by ToJson() on a fresh state of `dag`.
  static absl::StatusOr<State> FromJson(std::shared_ptr<const te::ComputeDag> dag, std::string_view json);

  // Readable loop structure, e.g. "C: i.0@parallel(8) j.0(64) k(512) j.1@vectorize(8)".
  std::string ToString() const;

  // Used by steps to edit the state; not for other callers.
  Stage& mutable_stage(int id) { return stages_[id]; }
  // Switches to `dag`, which has one more tensor at index `inserted` than the current one:
  // a fresh stage goes there and every stage reference at or after it shifts by one.
  void InsertStage(std::shared_ptr<const te::ComputeDag> dag, int inserted);
  // Gives stage `id` the initial iterators of its (new) definition.
  void ResetStage(int id);
  // True when stage `id` has its initial loops: no split, fuse, reorder or annotation yet.
  bool IsUntouched(int id) const;

 private:
  std::shared_ptr<const te::ComputeDag> original_dag_;
  std::shared_ptr<const te::ComputeDag> dag_;
  std::vector<Stage> stages_;
  std::vector<Step> steps_;
};

}  // namespace tunefarm::schedule
