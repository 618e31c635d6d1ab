// Canonical text of a compute DAG (the input of the workload key) and its parser.
//
//   tunefarm-dag 1
//   t0 placeholder float32 [64,32] input
//   t1 placeholder float32 [32,16] constant
//   t2 compute float32 [64,16] sum [32] (add float32 ...)
//   outputs t2
//
// Names are left out: two DAGs that differ only in names are the same workload.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/te/compute_dag.h"

namespace tunefarm::te {

std::string DagToText(const ComputeDag& dag);
absl::StatusOr<std::shared_ptr<const ComputeDag>> ParseDagText(std::string_view text);

}  // namespace tunefarm::te
