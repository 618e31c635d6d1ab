// The `tunefarm_metadata` record a kernel library exports (deploy/tunefarm_abi.h): JSON text
// built deterministically (fixed key order, entries in the order given, no floats), so the
// same functions and target always give the same bytes.
#pragma once

#include <string>
#include <vector>

#include "compiler/codegen/target.h"
#include "compiler/tir/stmt.h"

namespace tunefarm::codegen {

// {"format":1,"target":"<canonical>","entries":[{"name":..,"workspace_bytes":N,"args":[
//   {"name":..,"dtype":"float32","shape":[..],"role":"in","range":[lo,hi]}]}]}
// "range" appears only for arguments with has_range, "prepared_by" only where it is set.
std::string BuildMetadataJson(const std::vector<tir::PrimFunc>& funcs, const Target& target);

}  // namespace tunefarm::codegen
