// A farm call's candidates linked into libraries (tuner/kernel_build.h): one library with an
// entry per program, or one per program when the objects will not link together.
#include "tuner/kernel_build.h"

#include <gtest/gtest.h>

#include "compiler/codegen/host_target.h"
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

}  // namespace
}  // namespace tunefarm::tuner
