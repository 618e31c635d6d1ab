// Random identifiers for records and jobs.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace tunefarm::db {

// A random (version 4) UUID in lower-case 8-4-4-4-12 text, from the kernel's
// CSPRNG (getrandom), so ids made in different processes never collide.
absl::StatusOr<std::string> NewUuidV4();

// True for 8-4-4-4-12 hex text (any version, either case).
bool IsUuidText(std::string_view text);

}  // namespace tunefarm::db
