// Edits of a compute DAG that steps adding a stage share (private to compiler/schedule).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "compiler/te/compute_dag.h"

namespace tunefarm::schedule {

// `e` with its reads of tensor `from` reading tensor `to` at the same indices.
te::Expr RetargetReads(const te::Expr& e, int from, int to);

// Axis(0) ... Axis(rank - 1).
std::vector<te::Expr> AxesOf(size_t rank);

// A copy of `dag` with `def` inserted at `at`: reads of later tensors move up by one; `edit` may
// change each later tensor (given its new id) after that.
std::shared_ptr<const te::ComputeDag> InsertTensor(const te::ComputeDag& dag, int at, te::TensorDef def,
                                                   const std::function<void(int, te::TensorDef*)>& edit = nullptr);

}  // namespace tunefarm::schedule
