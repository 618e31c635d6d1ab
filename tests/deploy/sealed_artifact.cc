#include "tests/deploy/sealed_artifact.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "deploy/artifact_checksum.h"

namespace tunefarm::deploy::testing {

std::string TempArtifact(const std::string& bytes) {
  static std::vector<std::string>* files = [] {
    auto* v = new std::vector<std::string>();
    std::atexit([] {
      for (const std::string& f : *files) unlink(f.c_str());
    });
    return v;
  }();
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tunefarm-sealed-XXXXXX.so";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = mkstemps(name.data(), 3);
  if (fd < 0) std::abort();
  close(fd);
  std::ofstream(name.data(), std::ios::binary) << bytes;
  files->push_back(name.data());
  return name.data();
}

std::string Sealed(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream image;
  image << in.rdbuf();
  return TempArtifact(AppendArtifactTrailer(image.str()));
}

}  // namespace tunefarm::deploy::testing
