// Acceptance of the graph compiler on the shared models (issue 5): each compiles with
// `tunefarm compile`, runs with `tunefarm run` on the manifest's input, and matches the
// reference output within 1e-3; `tunefarm inspect --json` shows what the passes must achieve.
#include <sys/resource.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gtest/gtest.h"
#include "tests/cli/cli_process.h"

namespace tunefarm {
namespace {

using cli::testing::CliProcess;
using cli::testing::TempDir;

const std::string kModels = std::string(TUNEFARM_SHARED_DIR) + "/models/";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<float> Floats(const std::string& bytes) {
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

struct Ran {
  int exit_code = -1;
  std::string out, err;
};

Ran Tunefarm(const std::vector<std::string>& args, int timeout_s = 300) {
  auto p = CliProcess::Start(args);
  if (!p.ok()) return {-1, "", std::string(p.status().message())};
  auto code = (*p)->Finish(std::chrono::seconds(timeout_s));
  return {code.ok() ? *code : -1, (*p)->out(), (*p)->err()};
}

class ModelTest : public ::testing::TestWithParam<std::string> {
 protected:
  nlohmann::json Manifest() {
    return nlohmann::json::parse(ReadFile(kModels + "MANIFEST.json")).at("models").at(GetParam());
  }
  nlohmann::json Inspect() {
    Ran r = Tunefarm({"inspect", kModels + GetParam() + ".onnx", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  TempDir dir_;
};

TEST_P(ModelTest, CompilesRunsAndMatchesTheReference) {
  const nlohmann::json m = Manifest();
  const std::string so = dir_.File(GetParam() + ".so");
  auto start = std::chrono::steady_clock::now();
  Ran compile = Tunefarm({"compile", kModels + m.at("file").get<std::string>(), "-o", so, "--threads", "2"});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(compile.exit_code, 0) << compile.err;
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);  // the largest child so far: the compiler
  std::printf("[%s] compile %.1f s, peak RSS of children %.0f MB\n%s", GetParam().c_str(), seconds,
              usage.ru_maxrss / 1024.0, compile.out.c_str());
  EXPECT_LT(usage.ru_maxrss, 1536L * 1024) << "compile peak memory over 1.5 GB";

  const std::string out = dir_.File("out.bin");
  Ran run = Tunefarm({"run", so, "--input", m.at("input_name").get<std::string>() + "=" + kModels + m.at("input_file").get<std::string>(),
                      "--output", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::vector<float> got = Floats(ReadFile(out));
  std::vector<float> want = Floats(ReadFile(kModels + m.at("output_file").get<std::string>()));
  ASSERT_EQ(got.size(), want.size());
  double max_err = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double e = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (std::isnan(e)) e = INFINITY;
    max_err = std::max(max_err, e);
  }
  std::printf("[%s] max abs error against the reference: %.3g\n", GetParam().c_str(), max_err);
  EXPECT_LE(max_err, 1e-3);
}

TEST_P(ModelTest, InspectShowsThePassesWork) {
  nlohmann::json doc = Inspect();
  const nlohmann::json& ops = doc.at("graph").at("optimized_ops");
  std::printf("[%s] %d kernel calls, %d distinct kernels, arena %lld / peak live %lld / no reuse %lld bytes\n",
              GetParam().c_str(), doc.at("kernel_calls").get<int>(), doc.at("distinct_kernels").get<int>(),
              static_cast<long long>(doc.at("memory").at("arena_bytes").get<int64_t>()),
              static_cast<long long>(doc.at("memory").at("peak_live_bytes").get<int64_t>()),
              static_cast<long long>(doc.at("memory").at("naive_bytes").get<int64_t>()));
  EXPECT_LE(doc.at("memory").at("arena_bytes").get<double>(), 1.3 * doc.at("memory").at("peak_live_bytes").get<double>());
  if (GetParam() == "resnet18") {
    EXPECT_FALSE(ops.contains("BatchNormalization")) << ops.dump();
    // 25 kernels with direct convs; a Winograd conv is three (transform, batched GEMM, inverse).
    const int winograd = ops.contains("WinogradInverse") ? ops.at("WinogradInverse").get<int>() : 0;
    EXPECT_LE(doc.at("kernel_calls").get<int>(), 25 + 2 * winograd);
  }
  if (GetParam() == "mobilenet_v2") {
    for (const auto& call : doc.at("calls")) {
      EXPECT_NE(call.at("ops"), nlohmann::json::array({"Clip"})) << "standalone Clip kernel " << call.dump();
    }
  }
  if (GetParam() == "transformer_encoder") {
    for (const char* op : {"Shape", "Gather", "Concat", "Unsqueeze", "Constant", "ConstantOfShape"}) {
      EXPECT_FALSE(ops.contains(op)) << op << " left: " << ops.dump();
    }
  }
  // Layout conversions only where the graph begins or ends: at most one in, one per output.
  EXPECT_LE(doc.at("layout_conversions").size(), 2u) << doc.at("layout_conversions").dump();
  // The CNNs run their conv region in NCHW[x]c (the layout pass is on by default): every Conv
  // became ConvNCHWc, the stem reads the RGB image as NCHW1c (a view, no conversion kernel), and
  // only squeezenet's padded classes (at 16 lanes) leave through one; the transformer has no conv.
  if (GetParam() == "transformer_encoder") {
    EXPECT_FALSE(ops.contains("ConvNCHWc")) << ops.dump();
    EXPECT_EQ(doc.at("layout_conversions").size(), 0u);
  } else {
    EXPECT_TRUE(ops.contains("ConvNCHWc")) << ops.dump();
    EXPECT_FALSE(ops.contains("Conv")) << ops.dump();
    const size_t most = GetParam() == "squeezenet1_1" ? 1 : 0;
    EXPECT_LE(doc.at("layout_conversions").size(), most) << doc.at("layout_conversions").dump();
  }
}

INSTANTIATE_TEST_SUITE_P(SharedModels, ModelTest,
                         ::testing::Values("resnet18", "mobilenet_v2", "squeezenet1_1", "transformer_encoder"));

}  // namespace
}  // namespace tunefarm
