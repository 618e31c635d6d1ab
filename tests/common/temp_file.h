// A temporary file for a test: written once, removed when the test process exits (so a test
// that fails half-way leaves nothing behind either).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace tunefarm::testing {

// "" when the file cannot be made ($TMPDIR, else /tmp).
inline std::string WriteTempFile(const std::string& bytes, const std::string& suffix) {
  static std::vector<std::string>* files = [] {
    auto* v = new std::vector<std::string>();
    std::atexit([] {
      for (const std::string& f : *files) unlink(f.c_str());
    });
    return v;
  }();
  const char* tmp = std::getenv("TMPDIR");
  const std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tunefarm-test-XXXXXX" + suffix;
  std::vector<char> path(pattern.begin(), pattern.end());
  path.push_back('\0');
  const int fd = mkstemps(path.data(), static_cast<int>(suffix.size()));
  if (fd < 0) return "";
  close(fd);
  std::ofstream(path.data(), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  files->push_back(path.data());
  return path.data();
}

}  // namespace tunefarm::testing
