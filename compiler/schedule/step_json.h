// Canonical JSON of step lists (format in transform_step.h). The text is what gets hashed, so
// it is produced by one printer with a fixed layout: no whitespace, keys never reordered.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/schedule/transform_step.h"

namespace tunefarm::schedule {

std::string StepsToJson(const std::vector<Step>& steps);
// Malformed JSON or an unknown/ill-formed step is an error naming the step index.
absl::StatusOr<std::vector<Step>> StepsFromJson(std::string_view json);

}  // namespace tunefarm::schedule
