// Adds EmbeddedBlobs (codegen.h) to a built module as exported constant globals.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "compiler/codegen/codegen.h"

namespace llvm {
class Module;
}  // namespace llvm

namespace tunefarm::codegen {

// For each blob: `symbol` = [N x i8] over the bytes (one ConstantDataArray, so a 46 MB blob is
// one copy, not 46M constants) with the blob's alignment and section, and `symbol`_size = N as
// an i64. Refuses a symbol that is not a C identifier or is already defined (a kernel, an ABI
// symbol, another blob), and an alignment that is not a power of two.
absl::Status AddEmbeddedBlobs(const std::vector<EmbeddedBlob>& blobs, llvm::Module& module);

}  // namespace tunefarm::codegen
