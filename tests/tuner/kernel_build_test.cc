// A farm call's candidates linked into libraries (tuner/kernel_build.h): one library with an
// entry per program, or one per program when the objects will not link together.
#include "tuner/kernel_build.h"

#include <gtest/gtest.h>

#include <random>
#include <variant>

#include "compiler/codegen/host_target.h"
#include "compiler/ops/matmul.h"
#include "tuner/search_space/initial_population.h"
#include "compiler/schedule/gpu_thread_per_point.h"
#include "deploy/ptx_library.h"
#include "tests/common/ptxas.h"
#include "tests/common/test_dags.h"

namespace tunefarm::tuner {
namespace {

std::vector<KernelObject> Compile(const std::vector<std::string>& entries) {
  std::vector<KernelObject> objects;
  for (const std::string& entry : entries) {
    auto object = CompileKernel(schedule::State(testing::GemmDag(16, 16, 16)), codegen::HostTarget(), nullptr, entry);
    EXPECT_TRUE(object.ok()) << object.status();
    if (object.ok()) objects.push_back(std::move(*object));
  }
  return objects;
}

std::vector<const KernelObject*> Pointers(const std::vector<KernelObject>& objects) {
  std::vector<const KernelObject*> out;
  for (const KernelObject& o : objects) out.push_back(&o);
  return out;
}

TEST(LinkObjects, AFarmCallsProgramsShareOneLibraryWithAnEntryEach) {
  std::vector<KernelObject> objects = Compile({BatchEntry(0), BatchEntry(1), BatchEntry(2)});
  ASSERT_EQ(objects.size(), 3u);
  LinkedObjects linked = LinkObjects(Pointers(objects), codegen::HostTarget());
  ASSERT_EQ(linked.libraries.size(), 1u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(linked.library_of[k], linked.libraries[0].get());
    EXPECT_TRUE(linked.errors[k].empty()) << linked.errors[k];
  }
  const v1::KernelMetadata& m = linked.libraries[0]->metadata;
  ASSERT_EQ(m.entries_size(), 3);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(m.entries(k).name(), BatchEntry(k));
}

// Two objects with the same entry do not link together (duplicate symbol): each is linked
// alone, and both programs are still measured.
TEST(LinkObjects, ObjectsThatDoNotLinkTogetherGetALibraryEach) {
  std::vector<KernelObject> objects = Compile({BatchEntry(0), BatchEntry(0)});
  ASSERT_EQ(objects.size(), 2u);
  LinkedObjects linked = LinkObjects(Pointers(objects), codegen::HostTarget());
  ASSERT_EQ(linked.libraries.size(), 2u);
  EXPECT_NE(linked.library_of[0], nullptr);
  EXPECT_NE(linked.library_of[1], nullptr);
  EXPECT_NE(linked.library_of[0], linked.library_of[1]);
  EXPECT_TRUE(linked.errors[0].empty() && linked.errors[1].empty());
}

TEST(LinkObjects, AnObjectThatDoesNotLinkAloneGetsTheLinkersMessage) {
  std::vector<KernelObject> objects = Compile({BatchEntry(0), BatchEntry(1)});
  ASSERT_EQ(objects.size(), 2u);
  objects[1].object = "not an ELF object";
  LinkedObjects linked = LinkObjects(Pointers(objects), codegen::HostTarget());
  ASSERT_EQ(linked.libraries.size(), 1u);
  EXPECT_EQ(linked.library_of[0], linked.libraries[0].get());
  EXPECT_EQ(linked.library_of[1], nullptr);
  EXPECT_NE(linked.errors[1].find("lld"), std::string::npos) << linked.errors[1];
}

// A GPU farm call: the programs are lowered apart and generated as one PTX module, whose
// metadata lists every program's entry with its launches, and which ptxas assembles.
TEST(LinkObjects, AGpuFarmCallsProgramsBecomeOnePtxModule) {
  absl::StatusOr<codegen::Target> cuda = codegen::Target::Parse("cuda -arch=sm_90");
  ASSERT_TRUE(cuda.ok()) << cuda.status();
  std::vector<KernelObject> objects;
  for (int64_t n : {64, 96}) {
    absl::StatusOr<schedule::State> state =
        schedule::ApplyGpuThreadPerPointSchedule(testing::GemmDag(n, 32, 16), schedule::GpuRuleContext{});
    ASSERT_TRUE(state.ok()) << state.status();
    absl::StatusOr<KernelObject> object = CompileKernel(*state, *cuda, nullptr, BatchEntry(objects.size()));
    ASSERT_TRUE(object.ok()) << object.status();
    EXPECT_TRUE(object->object.empty());
    objects.push_back(std::move(*object));
  }
  LinkedObjects linked = LinkObjects(Pointers(objects), *cuda);
  ASSERT_EQ(linked.libraries.size(), 1u) << (linked.errors.empty() ? "" : linked.errors[0]);
  const BuiltKernel& library = *linked.libraries[0];
  EXPECT_EQ(library.metadata.artifact_kind(), v1::ARTIFACT_KIND_PTX);
  EXPECT_EQ(library.metadata.target(), "cuda -arch=sm_90");
  deploy::Result<deploy::PtxLibrary> ptx = deploy::ReadPtxLibrary(library.bytes);
  ASSERT_TRUE(ptx.ok()) << ptx.status().ToString();
  EXPECT_EQ(ptx->arch, "sm_90");
  for (size_t k = 0; k < 2; ++k) {
    const deploy::EntryInfo* entry = ptx->metadata.FindEntry(BatchEntry(k));
    ASSERT_NE(entry, nullptr) << BatchEntry(k);
    ASSERT_FALSE(entry->launches.empty());
    EXPECT_EQ(entry->launches[0].kernel, BatchEntry(k) + "_k0");
  }
  // 64 x 32 and 96 x 32 outputs, one thread each, in blocks of the whole extent (at most 256)
  // or its largest divisor in [128, 256].
  EXPECT_EQ(ptx->metadata.FindEntry(BatchEntry(0))->launches[0].grid[0] *
                ptx->metadata.FindEntry(BatchEntry(0))->launches[0].block[0],
            64 * 32);
  const std::string ptxas = tunefarm::testing::FindPtxas();
  // Only the assembly is skipped, where the CUDA toolkit is absent: the checks above ran.
  if (ptxas.empty()) GTEST_SKIP() << tunefarm::testing::kNoPtxasReason;
  EXPECT_EQ(tunefarm::testing::AssemblePtx(ptxas, library.bytes, "sm_90"), "");
}

// Layout rewriting makes weights with an entry of its own, which is not built for GPUs: a
// program that asks for it is a build error naming why, not a module missing an entry.
TEST(LinkObjects, AGpuProgramThatRewritesWeightsIsRefused) {
  te::DagBuilder b;
  auto a = b.Placeholder("a", te::DType::kFloat32, {32, 48});
  auto w = b.Placeholder("w", te::DType::kFloat32, {48, 40}, /*is_constant=*/true);
  std::shared_ptr<const te::ComputeDag> dag = b.Build({ops::Matmul(b, a, w)});
  std::mt19937_64 rng(3);
  for (const schedule::State& p :
       SampleInitialPopulation(dag, SearchTarget::FromTarget(codegen::HostTarget()), 40, rng, nullptr)) {
    bool rewrites = false;
    for (const schedule::Step& step : p.steps()) rewrites |= std::holds_alternative<schedule::LayoutRewriteStep>(step);
    if (!rewrites) continue;
    absl::StatusOr<KernelObject> object = CompileKernel(p, *codegen::Target::Parse("cuda -arch=sm_90"), nullptr, "k");
    ASSERT_FALSE(object.ok());
    EXPECT_NE(object.status().message().find("layout rewriting is not built for GPU targets"), std::string::npos)
        << object.status();
    return;
  }
  FAIL() << "no drawn program rewrites its weights";
}

}  // namespace
}  // namespace tunefarm::tuner
