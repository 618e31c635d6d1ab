// The `tunefarm_metadata` record a kernel library exports (deploy/tunefarm_abi.h): JSON text
// built deterministically (fixed key order, entries in the order given, no floats), so the
// same functions and target always give the same bytes.
#pragma once

#include <string>
#include <vector>

#include "compiler/codegen/target.h"
#include "compiler/tir/gpu_launch.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::codegen {

// {"format":1,"target":"<canonical>","entries":[{"name":..,"workspace_bytes":N,"args":[
//   {"name":..,"dtype":"float32","shape":[..],"role":"in","range":[lo,hi]}]}]}
// "range" appears only for arguments with has_range, "prepared_by" only where it is set.
// With `launches` (a GPU library: one list per function), each entry also has
//   "launches":[{"kernel":"<name>_k0","grid":[x,y,z],"block":[x,y,z],"shared_bytes":N},...]
// which the caller runs in order.
std::string BuildMetadataJson(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                              const std::vector<std::vector<tir::GpuLaunch>>* launches = nullptr);

// The PTX kernel of launch `i` of entry `entry`: "<entry>_k<i>".
std::string GpuKernelName(const std::string& entry, size_t i);

}  // namespace tunefarm::codegen
