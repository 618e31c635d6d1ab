#include "common/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/status/status.h"
#include "common/strings.h"

namespace tunefarm {

absl::StatusOr<TempDir> TempDir::Create(std::string_view prefix, const std::string& parent) {
  std::string base = parent;
  if (base.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  std::string pattern = StrCat(base, "/", prefix, "-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::FailedPreconditionError(
        StrCat("cannot create a temporary directory in ", base, ": ", std::strerror(errno)));
  }
  return TempDir(std::move(pattern));
}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    Remove();
    path_ = std::move(other.path_);
    other.path_.clear();
  }
  return *this;
}

TempDir::~TempDir() { Remove(); }

void TempDir::Remove() {
  if (path_.empty()) return;
  std::error_code ignored;  // a destructor cannot report; what is left is in $TMPDIR
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::File(std::string_view name) const { return StrCat(path_, "/", name); }

}  // namespace tunefarm
