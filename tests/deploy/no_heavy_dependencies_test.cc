// The deploy runtime must run on a small board: nothing of LLVM, gRPC, protobuf or Abseil may
// end up in a binary that links it. This binary links only tf_deploy and GoogleTest.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <climits>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

const char* const kForbidden[] = {"libLLVM", "libgrpc", "libprotobuf", "libabsl"};

std::string ForbiddenIn(const std::string& text) {
  for (const char* name : kForbidden) {
    if (text.find(name) != std::string::npos) return name;
  }
  return "";
}

TEST(NoHeavyDependencies, NothingForbiddenIsMapped) {
  std::ifstream maps("/proc/self/maps");
  ASSERT_TRUE(maps.good());
  std::string line;
  bool saw_libc = false;
  while (std::getline(maps, line)) {
    if (line.find("libc.so") != std::string::npos) saw_libc = true;
    EXPECT_EQ(ForbiddenIn(line), "") << line;
  }
  EXPECT_TRUE(saw_libc) << "could not read the mappings";  // the scan saw real libraries
}

TEST(NoHeavyDependencies, LddListsNothingForbidden) {
  char exe[PATH_MAX] = {};
  ASSERT_GT(readlink("/proc/self/exe", exe, sizeof(exe) - 1), 0);
  FILE* pipe = popen(("ldd '" + std::string(exe) + "' 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  std::array<char, 512> chunk;
  while (fgets(chunk.data(), chunk.size(), pipe) != nullptr) output += chunk.data();
  ASSERT_EQ(pclose(pipe), 0) << output;
  EXPECT_NE(output.find("libstdc++"), std::string::npos) << output;
  EXPECT_EQ(ForbiddenIn(output), "") << output;
}

}  // namespace
