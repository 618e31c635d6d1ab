#include "tests/deploy/sealed_artifact.h"

#include <fstream>
#include <sstream>

#include "deploy/artifact_checksum.h"
#include "tests/common/temp_file.h"

namespace tunefarm::deploy::testing {

std::string Sealed(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream image;
  image << in.rdbuf();
  return tunefarm::testing::WriteTempFile(AppendArtifactTrailer(image.str()), ".so");
}

}  // namespace tunefarm::deploy::testing
