#include "cli/db_open.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "cli/command.h"
#include "compiler/codegen/target.h"
#include "common/strings.h"

namespace tunefarm::cli {

FlagSpec DbFlag() { return {"db", 0, "FILE", "the tuning database, an SQLite file", true}; }

FlagSpec JsonFlag() { return {"json", 0, "", "print one JSON document instead of a table"}; }

absl::StatusOr<std::unique_ptr<db::TuningDatabase>> OpenExistingDatabase(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) {
    const int error = errno;
    if (error == ENOENT) return absl::NotFoundError(StrCat(path, ": no such database file"));
    return absl::UnavailableError(StrCat("cannot open ", path, ": ", std::strerror(error)));
  }
  if (S_ISDIR(info.st_mode)) {
    return absl::FailedPreconditionError(StrCat(path, ": is a directory, not a database file"));
  }
  db::OpenOptions options;
  options.create_if_missing = false;
  options.read_only = true;  // a read never creates, migrates or changes the file
  return db::TuningDatabase::Open(path, options);
}

absl::StatusOr<std::unique_ptr<db::TuningDatabase>> OpenOrCreateDatabase(const std::string& path) {
  return db::TuningDatabase::Open(path);
}

absl::StatusOr<std::string> CanonicalTarget(std::string_view text) {
  absl::StatusOr<codegen::Target> target = codegen::Target::Parse(text);
  if (!target.ok()) {
    return absl::InvalidArgumentError(StrCat("--target '", text, "': ", MessageOf(target.status())));
  }
  return target->ToString();
}

}  // namespace tunefarm::cli
