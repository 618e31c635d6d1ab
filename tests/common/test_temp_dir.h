// A test's scratch directory: common/temp_dir.h's TempDir (mkdtemp, mode 0700, removed with
// everything in it at the end of its scope), made without a status to check, with the writes
// tests need. A directory that cannot be made fails the test.
#pragma once

#include <sys/stat.h>

#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "common/temp_dir.h"

namespace tunefarm::testing {

class TempDir {
 public:
  TempDir() {
    auto made = ::tunefarm::TempDir::Create("tunefarm-test");
    if (made.ok()) {
      dir_.emplace(std::move(*made));
    } else {
      ADD_FAILURE() << made.status();
    }
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const {
    static const std::string none;
    return dir_ ? dir_->path() : none;
  }
  std::string File(const std::string& name) const { return path() + "/" + name; }
  // Writes `text` to File(name) with `mode`; returns that path.
  std::string WriteFile(const std::string& name, const std::string& text, int mode = 0600) const {
    const std::string file = File(name);
    {
      std::ofstream out(file, std::ios::binary | std::ios::trunc);
      out << text;
      if (!out) ADD_FAILURE() << "cannot write " << file;
    }
    chmod(file.c_str(), static_cast<mode_t>(mode));
    return file;
  }

 private:
  std::optional<::tunefarm::TempDir> dir_;
};

}  // namespace tunefarm::testing
