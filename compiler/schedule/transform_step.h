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

using Step = std::variant<SplitStep, ReorderStep, FuseStep, AnnotationStep, PragmaStep>;

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

// A Status for a rejected step: "<TAG> stage S iter I: <reason>".
absl::Status StepError(std::string_view tag, int stage, int iter, std::string_view reason);

}  // namespace tunefarm::schedule
