// The target describing the machine this process runs on.
#pragma once

#include "compiler/codegen/target.h"

namespace tunefarm::codegen {

// Triple and cpu as LLVM detects them; -mattr lists only the features the cpu normally has
// but this machine lacks (e.g. AVX-512 disabled by a hypervisor), so the string stays short
// and the code never uses an instruction the machine cannot run.
Target HostTarget();

}  // namespace tunefarm::codegen
