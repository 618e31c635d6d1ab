// A name a person recognises a task by: the main stage's op and the shapes it reads, then the
// stages fused after it, e.g. "Conv(1x4x58x58x16, 4x4x3x3x16x16) +Add +Relu". The
// workload key stays the identity; the name is for progress lines, tables and curves.
#pragma once

#include <string>

#include "compiler/te/compute_dag.h"

namespace tunefarm::tuner {

std::string TaskName(const te::ComputeDag& dag);

}  // namespace tunefarm::tuner
