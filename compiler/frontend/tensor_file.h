// Tensors in files, for `tunefarm run` and `--bind`: raw little-endian .bin (no header: the model says the
// dtype and shape), NumPy .npy (format 1.0-3.0, C order, little-endian), and an ONNX
// TensorProto .pb as in the conformance cases. The extension picks the format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tunefarm::frontend {

struct TensorFile {
  std::string dtype;            // "float32", "int64", ...; empty for .bin (the model decides)
  std::vector<int64_t> shape;   // empty with has_shape false for .bin
  bool has_shape = false;
  std::string bytes;            // little-endian, row-major
};

// A file holds at most max_data_bytes of tensor data (the size the model expects) plus
// kMaxTensorHeaderBytes of .npy or .pb framing; a larger or non-regular file is refused unread.
inline constexpr uint64_t kMaxTensorHeaderBytes = uint64_t{1} << 20;
absl::StatusOr<TensorFile> ReadTensorFile(const std::string& path, uint64_t max_data_bytes);
// Writes `t` in the format the extension of `path` names (.npy, .pb, anything else raw).
absl::Status WriteTensorFile(const std::string& path, const TensorFile& t);

}  // namespace tunefarm::frontend
