// How the `tunefarm db` actions open the database, and the flags they share.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/command_flags.h"
#include "db/tuning_database.h"

namespace tunefarm::cli {

// --db FILE, required by every action.
FlagSpec DbFlag();
// --json: one JSON document on stdout instead of a table.
FlagSpec JsonFlag();

// For actions that only read: a missing file is NotFound naming it, and no empty database is
// created. A file that is not a tunefarm database is refused with the database's message.
absl::StatusOr<std::unique_ptr<db::TuningDatabase>> OpenExistingDatabase(const std::string& path);
// For actions that write (import): creates the database when the file does not exist.
absl::StatusOr<std::unique_ptr<db::TuningDatabase>> OpenOrCreateDatabase(const std::string& path);

// The canonical form of a --target value (codegen::Target), the form records are keyed by;
// InvalidArgument naming the value when it does not parse.
absl::StatusOr<std::string> CanonicalTarget(std::string_view text);

}  // namespace tunefarm::cli
