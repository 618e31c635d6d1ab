// ONNX importer: .onnx (protobuf schema from Debian's libonnx-dev) → graph::Graph.
// Default-domain opsets 7..17 (1..6 only when every op is unchanged since; docs/graph.md).
// Initializers become parameters; Constant nodes and shape arithmetic on known values are
// evaluated at import, so shape-like operands (reshape targets, slice bounds, axes, pads)
// become attributes. Every failure is a Status naming the file, or the
// node and its op, and the reason; no input makes the importer crash.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::frontend {

inline constexpr int kMinOpset = 7;
inline constexpr int kMaxOpset = 17;

struct ImportOptions {
  // Shapes for graph inputs with symbolic or missing dims, by input name.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Graph inputs whose values are known at compile time, by input name: treated like
  // initializers (so shape operands fed as inputs, as conformance cases do, import).
  std::map<std::string, graph::HostTensor> constant_inputs;
  // input_shapes and constant_inputs came from a user (--input-shape, --bind): each must name a
  // graph input and agree with the dtype, rank and fixed dimensions the model declares. Off for
  // callers that override declared shapes on purpose (the conformance runner fixes models that
  // declare them wrongly).
  bool strict_input_shapes = false;
};

absl::StatusOr<graph::Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options = {});
// `bytes` is a serialized ModelProto; `label` names it in error messages.
absl::StatusOr<graph::Graph> ImportOnnxBytes(const std::string& bytes, const ImportOptions& options = {},
                                             const std::string& label = "<bytes>");

}  // namespace tunefarm::frontend
