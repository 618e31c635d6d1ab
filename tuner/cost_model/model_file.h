// The cost model's file: one text line of header, then XGBoost's model bytes (UBJSON).
//
//   tunefarm-cost-model xgboost-ubj v1 cols=164 bytes=123456 sha256=<64 hex>\n
//   <bytes of booster>
//
// The header carries what XGBoost's own format cannot check for us: the feature width the
// model was trained on (a model from an older feature extractor must not score new features)
// and a checksum, so that a truncated or damaged file is an error naming the file and the
// damage, never a crash or a silently wrong model. Writing is atomic: a temporary file in the
// same folder, renamed over the target, so a reader never sees half a file.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tunefarm::tuner {

struct ModelFileContents {
  int feature_cols = 0;
  std::string booster;  // XGBoost's serialized model
};

absl::Status WriteModelFile(const std::string& path, const ModelFileContents& contents);

// NotFound for a missing file; DataLoss for an empty, truncated, damaged or foreign one. Every
// message starts with the path.
absl::StatusOr<ModelFileContents> ReadModelFile(const std::string& path);

}  // namespace tunefarm::tuner
