// A private scratch directory: created by mkdtemp (mode 0700, so other users can neither list
// nor replace what is put in it) and removed with everything in it when its owner is destroyed.
// The one way the linker, the agent's kernel cache and the benches make one.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace tunefarm {

class TempDir {
 public:
  // A new directory `parent`/`prefix`-XXXXXX; `parent` empty means $TMPDIR, else /tmp.
  static absl::StatusOr<TempDir> Create(std::string_view prefix, const std::string& parent = "");

  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }
  std::string File(std::string_view name) const;
  // Leaves the directory in place when this is destroyed (a bench asked to keep its files).
  void Keep() { path_.clear(); }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  void Remove();

  std::string path_;  // empty once moved from
};

}  // namespace tunefarm
