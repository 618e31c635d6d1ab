// The integrity trailer of model artifacts (deploy/artifact_checksum.h): every truncation and
// every flipped byte is refused before dlopen, with "corrupt or truncated artifact".
#include "deploy/artifact_checksum.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "deploy/model_executor.h"
#include "tests/deploy/sealed_artifact.h"

namespace tunefarm::deploy {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

Status Verify(const std::string& bytes) {
  return VerifyArtifactBytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "m.so");
}

TEST(ArtifactChecksum, ASealedImageVerifies) {
  for (const std::string& image : {std::string(), std::string("x"), std::string(1000, 'a'), std::string(4097, '\7')}) {
    EXPECT_TRUE(Verify(AppendArtifactTrailer(image)).ok()) << image.size();
  }
}

TEST(ArtifactChecksum, EveryTruncationAndEveryFlippedByteIsRefused) {
  std::string image(3000, '\0');
  for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<char>(i * 131 + 7);
  const std::string sealed = AppendArtifactTrailer(image);
  for (size_t keep : {size_t{0}, size_t{10}, sealed.size() / 2, sealed.size() * 9 / 10, sealed.size() * 99 / 100,
                      sealed.size() - 1}) {
    Status s = Verify(sealed.substr(0, keep));
    EXPECT_EQ(s.code(), StatusCode::kCorruptArtifact) << keep;
    EXPECT_NE(s.message().find("m.so: corrupt or truncated artifact"), std::string::npos) << s.message();
  }
  for (size_t i = 0; i < sealed.size(); ++i) {
    for (const int bit : {0, 7}) {
      std::string flipped = sealed;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      EXPECT_EQ(Verify(flipped).code(), StatusCode::kCorruptArtifact) << "byte " << i << " bit " << bit;
    }
  }
  EXPECT_NE(Verify(image).message().find("no integrity trailer"), std::string::npos);
}

// The whole path: a damaged copy of a working artifact is refused by the executor with the
// file's name, before dlopen could crash on it.
TEST(ArtifactChecksum, TheExecutorRefusesADamagedArtifact) {
  const std::string sealed = ReadAll(testing::Sealed(DEPLOY_KERNEL_C_MODEL));
  ASSERT_TRUE(ModelExecutor::Load(testing::TempArtifact(sealed), 1).ok());
  std::string flipped = sealed;
  flipped[flipped.size() / 3] ^= 0x40;
  for (const std::string& damaged : {sealed.substr(0, sealed.size() / 2), sealed.substr(0, sealed.size() * 99 / 100),
                                     flipped}) {
    const std::string path = testing::TempArtifact(damaged);
    auto model = ModelExecutor::Load(path, 1);
    ASSERT_FALSE(model.ok());
    EXPECT_EQ(model.status().code(), StatusCode::kCorruptArtifact);
    EXPECT_NE(model.status().message().find(path + ": corrupt or truncated artifact"), std::string::npos)
        << model.status().message();
  }
  // An unsealed shared object (an older tunefarm's, or a plain library) is refused too.
  auto plain = ModelExecutor::Load(DEPLOY_KERNEL_C_MODEL, 1);
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("no integrity trailer"), std::string::npos) << plain.status().message();
}

}  // namespace
}  // namespace tunefarm::deploy
