// Reading a whole user-named file, safely: the path must be a regular file (not a directory,
// device or pipe: `compile /dev/zero` once read 8 GB before failing) and no larger than the
// caller's limit, both checked before a byte is read. Errors name the path and the reason.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace tunefarm {

// `what` names the file's role in messages ("model", "input"): "model m.onnx: is a directory".
absl::StatusOr<std::string> ReadRegularFile(const std::string& path, uint64_t max_bytes, const std::string& what);

}  // namespace tunefarm
