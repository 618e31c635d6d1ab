// Model artifacts built for a CUDA GPU (`compile --target cuda`, docs/gpu.md "Models on a GPU"):
// what the artifact holds, that ptxas assembles its kernels, that the CPU runtime refuses it
// and the loader needs a driver, and, over the fake driver of tests/common/fake_cuda_driver.cc,
// that the GPU executor launches every call's kernels in the plan's order. The fake runs no
// kernel, so nothing here checks the model's numbers on a GPU: each kernel's default GPU
// schedule is checked against the naive kernel on the CPU (tests/tuner/gpu_model_tasks_test.cc).
#include <gtest/gtest.h>
#include <dlfcn.h>
#include <stdlib.h>

#include <fstream>
#include <thread>
#include <string>
#include <vector>

#include "compiler/build/model_builder.h"
#include "compiler/frontend/onnx_importer.h"
#include "compiler/schedule/gpu_thread_per_point.h"
#include "deploy/artifact_blobs.h"
#include "deploy/model_executor.h"
#include "deploy/model_loader.h"
#include "deploy/ptx_library.h"
#include "tests/common/ptxas.h"
#include "tests/common/test_temp_dir.h"
#ifdef TUNEFARM_HAVE_SEARCH_SPACE
#include "tuner/search_space/gpu_default_program.h"
#endif

namespace tunefarm::build {
namespace {

const std::string kModel = std::string(TUNEFARM_SHARED_DIR) + "/models/squeezenet1_1.onnx";

// Sets an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

class GpuArtifact : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto graph = frontend::ImportOnnxFile(kModel);
    ASSERT_TRUE(graph.ok()) << graph.status();
    BuildOptions options;
    options.target = *codegen::Target::Parse("cuda -arch=sm_90");
#ifdef TUNEFARM_HAVE_SEARCH_SPACE
    // As `tunefarm compile` builds it: the default GPU program where no record is given.
    options.default_schedule = [target = tuner::SearchTarget::FromTarget(options.target)](
                                   std::shared_ptr<const te::ComputeDag> dag) {
      return tuner::GpuDefaultProgram(std::move(dag), target);
    };
#endif
    auto plan = PlanModel(*graph, options);
    ASSERT_TRUE(plan.ok()) << plan.status();
    auto artifact = BuildArtifact(&*plan, options);
    ASSERT_TRUE(artifact.ok()) << artifact.status();
    dir_ = new tunefarm::testing::TempDir();
    path_ = dir_->File("squeezenet_gpu.so");
    std::ofstream(path_, std::ios::binary) << *artifact;
    calls_ = plan->exec.calls.size();
  }
  static void TearDownTestSuite() { delete dir_; }

  static tunefarm::testing::TempDir* dir_;
  static std::string path_;
  static size_t calls_;
};
tunefarm::testing::TempDir* GpuArtifact::dir_ = nullptr;
std::string GpuArtifact::path_;
size_t GpuArtifact::calls_ = 0;

TEST_F(GpuArtifact, EmbedsThePlanTheParametersAndPtxThatPtxasAssembles) {
  auto library = deploy::LoadArtifactLibrary(path_);
  ASSERT_TRUE(library.ok()) << library.status().ToString();
  auto plan = deploy::ReadPlan(**library, path_);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->target, "cuda -arch=sm_90");
  EXPECT_EQ(plan->calls.size(), calls_);
  EXPECT_GT(plan->params_bytes, 4u << 20);
  auto params = deploy::ReadParams(**library, *plan, path_);
  ASSERT_TRUE(params.ok() && *params != nullptr) << params.status().ToString();
  std::optional<std::string_view> ptx = deploy::FindBlob(**library, deploy::kModelPtxSymbol);
  ASSERT_TRUE(ptx.has_value());
  auto kernels = deploy::ReadPtxLibrary(std::string(*ptx));
  ASSERT_TRUE(kernels.ok()) << kernels.status().ToString();
  EXPECT_EQ(kernels->arch, "sm_90");
  // Every call's kernel is an entry of the PTX, with its launches, and fits the plan's values.
  EXPECT_TRUE(deploy::CheckPlanAgainstKernels(*plan, kernels->metadata).ok());
  for (const deploy::PlanCall& call : plan->calls) {
    const deploy::EntryInfo* entry = kernels->metadata.FindEntry(call.kernel);
    ASSERT_NE(entry, nullptr) << call.kernel;
    EXPECT_FALSE(entry->launches.empty()) << call.kernel;
  }
#ifdef TUNEFARM_HAVE_SEARCH_SPACE
  // The default GPU programs tile the convs in shared memory.
  EXPECT_NE(ptx->find(".shared .align"), std::string_view::npos);
#endif
  // No kernel in the host object: its metadata lists no entry.
  EXPECT_TRUE((*library)->metadata().entries.empty());
  const std::string ptxas = tunefarm::testing::FindPtxas();
  // Only the assembly is skipped, where the CUDA toolkit is absent: the checks above ran.
  if (ptxas.empty()) GTEST_SKIP() << tunefarm::testing::kNoPtxasReason;
  EXPECT_EQ(tunefarm::testing::AssemblePtx(ptxas, std::string(*ptx), "sm_90"), "");
}

// A default schedule that fails (GpuDefaultProgram refuses, e.g., extents no block of a warp
// divides, or shared tiles that overflow even at one reduce point a step) leaves its kernel to the built-in rule: one thread per output point, no
// shared memory; the build goes on.
TEST(GpuArtifactDefaults, AFailingDefaultScheduleFallsBackToOneThreadPerPoint) {
  auto graph = frontend::ImportOnnxFile(kModel);
  ASSERT_TRUE(graph.ok()) << graph.status();
  BuildOptions options;
  options.target = *codegen::Target::Parse("cuda -arch=sm_90");
  int asked = 0;
  options.default_schedule = [&](std::shared_ptr<const te::ComputeDag>) -> absl::StatusOr<schedule::State> {
    ++asked;
    return absl::FailedPreconditionError("refused");
  };
  auto plan = PlanModel(*graph, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ::testing::internal::CaptureStderr();
  auto artifact = BuildArtifact(&*plan, options);
  const std::string warned = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  EXPECT_GT(asked, 0);
  // Each fallback is named, with why.
  EXPECT_NE(warned.find("falling back to the built-in rules, as its default schedule does not build (refused)"),
            std::string::npos) << warned;
  EXPECT_EQ(artifact->find(".shared .align"), std::string::npos);
  EXPECT_NE(artifact->find(".entry"), std::string::npos);
  // One that lowers but whose launches the device refuses (blocks of 2,048 threads): the same.
  options.default_schedule = [](std::shared_ptr<const te::ComputeDag> dag) {
    return schedule::ApplyGpuThreadPerPointSchedule(std::move(dag), schedule::GpuRuleContext{2048});
  };
  ::testing::internal::CaptureStderr();
  auto oversized = BuildArtifact(&*plan, options);
  const std::string refused = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(oversized.ok()) << oversized.status();
  EXPECT_NE(refused.find("exceeds the limit 1024"), std::string::npos) << refused;  // the launch plan's reason
}

TEST_F(GpuArtifact, TheCpuExecutorRefusesItAndWithoutADriverTheLoaderSaysSo) {
  auto cpu = deploy::ModelExecutor::Load(path_, 1);
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.status().message().find("a model artifact for a CUDA GPU"), std::string::npos) << cpu.status().ToString();
  ScopedEnv driver("TUNEFARM_CUDA_DRIVER", dir_->File("none/libcuda.so.1"));
  auto gpu = deploy::LoadModel(path_, 0);
  ASSERT_FALSE(gpu.ok());
  EXPECT_EQ(gpu.status().code(), deploy::StatusCode::kLoadFailed);
  EXPECT_NE(gpu.status().message().find("no CUDA driver"), std::string::npos) << gpu.status().ToString();
  ScopedEnv device("TUNEFARM_CUDA_DEVICE", "one");
  EXPECT_NE(deploy::LoadModel(path_, 0).status().message().find("TUNEFARM_CUDA_DEVICE=one"), std::string::npos);
}

TEST_F(GpuArtifact, AGpuOlderThanItsKernelsIsRefusedByName) {
  ScopedEnv driver("TUNEFARM_CUDA_DRIVER", TUNEFARM_FAKE_CUDA_DRIVER);
  ScopedEnv older("TUNEFARM_FAKE_CUDA_CC", "80");
  auto model = deploy::LoadModel(path_, 0);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), deploy::StatusCode::kLoadFailed);
  EXPECT_NE(model.status().message().find("its kernels are for sm_90, CUDA device 0 has compute capability 8.0"),
            std::string::npos)
      << model.status().ToString();
}

TEST_F(GpuArtifact, OnTheFakeDriverEveryCallLaunchesItsKernelsInPlanOrder) {
  const std::string log = dir_->File("launches.log");
  ScopedEnv driver("TUNEFARM_CUDA_DRIVER", TUNEFARM_FAKE_CUDA_DRIVER);
  ScopedEnv logged("TUNEFARM_FAKE_CUDA_LOG", log);
  auto model = deploy::LoadModel(path_, 0);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const deploy::PlanValue& in = (*model)->input(0);
  std::vector<char> image(in.bytes, 1);
  ASSERT_TRUE((*model)->SetInput(0, image.data(), image.size()).ok());
  EXPECT_EQ((*model)->SetInput(0, image.data(), image.size() - 4).code(), deploy::StatusCode::kInvalidArgument);
  std::vector<double> seconds;
  ASSERT_TRUE((*model)->RunTimed(&seconds).ok());
  EXPECT_EQ(seconds.size(), calls_);
  std::vector<char> out((*model)->output(0).bytes);
  EXPECT_TRUE((*model)->GetOutput(0, out.data(), out.size()).ok());

  std::ifstream in_log(log);
  std::vector<std::string> launched;
  int loads = 0;
  for (std::string line; std::getline(in_log, line);) {
    if (line == "load") ++loads;
    else launched.push_back(line.substr(0, line.find(' ')));
  }
  EXPECT_EQ(loads, 1);
  // The plan's calls in order, each its entry's launches <kernel>_k0, <kernel>_k1, ...
  auto library = deploy::LoadArtifactLibrary(path_);
  auto kernels = deploy::ReadPtxLibrary(std::string(*deploy::FindBlob(**library, deploy::kModelPtxSymbol)));
  std::vector<std::string> expected;
  for (const deploy::PlanCall& call : (*model)->plan().calls) {
    for (const deploy::LaunchInfo& l : kernels->metadata.FindEntry(call.kernel)->launches) expected.push_back(l.kernel);
  }
  EXPECT_EQ(launched, expected);
}

// The runtime's calls may come from several threads in turn (deploy/tunefarm_runtime.h). The
// driver acts on each thread's current context, and the fake, like the real one, refuses a call
// on a thread that made none current: loaded on this thread, the model is fed, run, read and
// freed on others. And a runtime inside a host program leaves each thread's current context as
// it found it (the host's own CUDA work may be on it): none here, before and after every call.
TEST_F(GpuArtifact, AModelLoadedOnOneThreadRunsAndIsFreedOnOthers) {
  ScopedEnv driver("TUNEFARM_CUDA_DRIVER", TUNEFARM_FAKE_CUDA_DRIVER);
  void* fake = dlopen(TUNEFARM_FAKE_CUDA_DRIVER, RTLD_NOW);
  ASSERT_NE(fake, nullptr) << dlerror();
  using GetCurrent = int (*)(void**);
  auto get_current = reinterpret_cast<GetCurrent>(dlsym(fake, "cuCtxGetCurrent"));
  ASSERT_NE(get_current, nullptr);
  std::string failures;
  auto expect_none_current = [&](const char* after) {
    void* current = reinterpret_cast<void*>(1);
    get_current(&current);
    if (current != nullptr) failures += std::string("a context is left current after ") + after + "\n";
  };
  auto model = deploy::LoadModel(path_, 0);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  expect_none_current("loading");
  std::vector<char> image((*model)->input(0).bytes, 1), out((*model)->output(0).bytes);
  std::thread([&] {
    if (auto s = (*model)->SetInput(0, image.data(), image.size()); !s.ok()) failures += s.ToString() + "\n";
    expect_none_current("SetInput");
    if (auto s = (*model)->RunTimed(nullptr); !s.ok()) failures += s.ToString() + "\n";
    expect_none_current("Run");
  }).join();
  std::thread([&] {
    if (auto s = (*model)->GetOutput(0, out.data(), out.size()); !s.ok()) failures += s.ToString() + "\n";
    expect_none_current("GetOutput");
    model->reset();  // frees its device memory and module here
    expect_none_current("freeing");
  }).join();
  EXPECT_EQ(failures, "");
  dlclose(fake);
}

}  // namespace
}  // namespace tunefarm::build
