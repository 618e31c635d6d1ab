// A GPU kernel library is PTX text (docs/kernel-abi.md "GPU kernel libraries"). Its ABI globals
// are initialized global-memory arrays, which a loader could read back through the driver once
// the module is loaded; they are read here from the text instead, so that a library for another
// GPU, or one that is not a library at all, is refused before any driver sees it.
#ifndef TUNEFARM_DEPLOY_PTX_LIBRARY_H_
#define TUNEFARM_DEPLOY_PTX_LIBRARY_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "deploy/kernel_metadata.h"
#include "deploy/status.h"

namespace tunefarm::deploy {

struct PtxLibrary {
  std::string arch;        // the module's `.target`, e.g. "sm_90"
  int32_t abi_version = 0;
  KernelMetadata metadata;
};

// kLoadFailed when the text is not PTX (no `.version` or `.target`), kAbiMismatch for another
// ABI version, kBadMetadata when `tunefarm_metadata` is missing, not a byte array, or does not
// parse.
Result<PtxLibrary> ReadPtxLibrary(std::string_view ptx);

// The compute capability an `sm_NN[a]` arch needs as major * 10 + minor (sm_90a -> 90), or -1.
int32_t SmVersion(std::string_view arch);

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_PTX_LIBRARY_H_
