// TfIdfVectorizer's kernel: per row of integer tokens, how often each n-gram of a fixed pool
// occurs (consecutive tokens, or tokens `skip` apart for every skip up to max_skip), then scaled
// by mode. The pool is a constant table, one row per output column: its tokens, padded, and its
// length (0: the column counts nothing). Unigrams are counted once, not once per skip.
#pragma once

#include <string>

#include "compiler/ops/op_common.h"

namespace tunefarm::ops {

enum class TfIdfMode { kTf, kIdf, kTfIdf };

struct TfIdfParams {
  int64_t max_skip = 0;
  TfIdfMode mode = TfIdfMode::kTf;
};

// x [C] or [N, C] (int32/int64); tokens [J, G] of x's dtype, lengths [J] (int64), weights [J]
// (float32) -> float32 [J] or [N, J]: count, (count > 0) * weight, or count * weight.
absl::StatusOr<Tensor> TfIdf(DagBuilder& b, const Tensor& x, const Tensor& tokens, const Tensor& lengths,
                             const Tensor& weights, const TfIdfParams& p, std::string name = "tfidf");

}  // namespace tunefarm::ops
