// Reading a whole file into memory, the one way every component does it. Errors name the
// file's role, the path and the reason.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace tunefarm {

// A user-named file, safely: the path must be a regular file (not a directory, device or pipe:
// `compile /dev/zero` once read 8 GB before failing) and no larger than the caller's limit,
// both checked before a byte is read. `what` names the file's role in messages ("model",
// "input"): "model m.onnx: is a directory".
absl::StatusOr<std::string> ReadRegularFile(const std::string& path, uint64_t max_bytes, const std::string& what);

// A file the program names itself or was configured with (a PEM file, a token file, a kernel it
// just linked, /proc/cpuinfo): read to its end. Its reported size is not trusted, since /proc
// and /sys files report 0.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path, const std::string& what);

}  // namespace tunefarm
