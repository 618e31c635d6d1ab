// Damaged cost model files: every one is an error Status naming the file, never a crash.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/farm/child_process.h"
#include "tests/tuner/cost_model/synthetic_programs.h"
#include "tuner/cost_model/model_file.h"
#include "tuner/cost_model/xgb_cost_model.h"

namespace tunefarm::tuner {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class DamagedModelFile : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new tunefarm::testing::TempDir;
    TrainingSet set = testing::SyntheticTrainingSet({.programs = 200, .seed = 5});
    std::vector<float> labels = TaskNormalizedLabels(set);
    XgbParams params;
    params.max_rounds = 20;
    XgbCostModel model(params);
    ASSERT_TRUE(model.Train({set.features, labels}).ok());
    std::string path = dir_->path() + "/good.tfcm";
    ASSERT_TRUE(model.Save(path).ok());
    good_ = new std::string(ReadAll(path));
  }
  static void TearDownTestSuite() {
    delete good_;
    good_ = nullptr;
    delete dir_;  // removes the folder
    dir_ = nullptr;
  }

  // Load of a file holding `bytes` must fail with the path in the message.
  static void ExpectLoadFails(const std::string& bytes, const std::string& what) {
    std::string path = dir_->WriteFile("damaged.tfcm", bytes);
    absl::StatusOr<XgbCostModel> loaded = XgbCostModel::Load(path, 8);
    ASSERT_FALSE(loaded.ok()) << what;
    EXPECT_NE(loaded.status().message().find(path), std::string::npos) << what << ": " << loaded.status();
  }

  static inline tunefarm::testing::TempDir* dir_ = nullptr;
  static inline std::string* good_ = nullptr;
};

TEST_F(DamagedModelFile, GoodFileLoads) {
  std::string path = dir_->WriteFile("good-again.tfcm", *good_);
  EXPECT_TRUE(XgbCostModel::Load(path, 8).ok());
  EXPECT_EQ(good_->rfind("tunefarm-cost-model xgboost-ubj v1 cols=8 ", 0), 0u) << good_->substr(0, 80);
}

TEST_F(DamagedModelFile, MissingFileIsNotFound) {
  std::string path = dir_->path() + "/never-written.tfcm";
  absl::StatusOr<XgbCostModel> loaded = XgbCostModel::Load(path, 8);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(loaded.status().message().find(path), std::string::npos);
}

TEST_F(DamagedModelFile, EmptyFileIsDataLoss) {
  std::string path = dir_->WriteFile("empty.tfcm", "");
  absl::StatusOr<XgbCostModel> loaded = XgbCostModel::Load(path, 8);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(loaded.status().message().find("empty"), std::string::npos) << loaded.status();
}

TEST_F(DamagedModelFile, EveryTruncationFails) {
  size_t header = good_->find('\n') + 1;
  for (size_t length = 1; length < good_->size(); length += (length < header + 64 ? 1 : 97)) {
    ExpectLoadFails(good_->substr(0, length), "truncated to " + std::to_string(length));
  }
  absl::StatusOr<XgbCostModel> loaded =
      XgbCostModel::Load(dir_->WriteFile("short.tfcm", good_->substr(0, good_->size() - 1)), 8);
  EXPECT_NE(loaded.status().message().find("truncated"), std::string::npos) << loaded.status();
}

TEST_F(DamagedModelFile, TrailingBytesFail) { ExpectLoadFails(*good_ + "x", "one byte appended"); }

TEST_F(DamagedModelFile, EveryByteFlipFails) {
  for (size_t at = 0; at < good_->size(); at += (at < 128 ? 1 : 53)) {
    std::string flipped = *good_;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
    ExpectLoadFails(flipped, "byte " + std::to_string(at) + " flipped");
  }
}

TEST_F(DamagedModelFile, ForeignFileFails) {
  ExpectLoadFails("hello\n", "a text file");
  ExpectLoadFails(std::string(1000, '\0'), "zeros");
  ExpectLoadFails(good_->substr(good_->find('\n') + 1), "the booster without our header");
}

// A header that is right about garbage bytes: XGBoost itself must reject them, and its error
// still comes back as a Status naming the file.
TEST_F(DamagedModelFile, ConsistentHeaderOverGarbageBoosterFails) {
  for (std::string booster : {std::string("{not ubjson"), std::string(64, '\x7b'), std::string("{}")}) {
    std::string path = dir_->path() + "/garbage.tfcm";
    ASSERT_TRUE(WriteModelFile(path, {8, booster}).ok());
    absl::StatusOr<XgbCostModel> loaded = XgbCostModel::Load(path, 8);
    ASSERT_FALSE(loaded.ok()) << booster;
    EXPECT_NE(loaded.status().message().find(path), std::string::npos) << loaded.status();
  }
}

TEST(ModelFile, WriteIsAtomicAndLeavesNoTemporary) {
  tunefarm::testing::TempDir dir;
  std::string path = dir.path() + "/m.tfcm";
  ASSERT_TRUE(WriteModelFile(path, {3, "abc"}).ok());
  ASSERT_TRUE(WriteModelFile(path, {4, "defg"}).ok());  // replaces
  absl::StatusOr<ModelFileContents> read = ReadModelFile(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->feature_cols, 4);
  EXPECT_EQ(read->booster, "defg");
  int files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1);
  EXPECT_EQ(WriteModelFile(dir.path() + "/no-such-dir/m.tfcm", {3, "abc"}).code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace tunefarm::tuner
