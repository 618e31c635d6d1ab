// The CUDA toolkit's ptxas, for tests that check generated PTX assembles. CI machines have the
// toolkit (it is on every machine this project builds on, beside the GPU driver only where a
// GPU is lent); a developer's machine may not, and then those tests skip the assembly step
// with that reason, since nothing else can say whether PTX is valid for an arch.
#pragma once

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/file_read.h"
#include "common/strings.h"
#include "common/temp_dir.h"

namespace tunefarm::testing {

// The toolkit's ptxas, or "" where the CUDA toolkit is not installed.
inline std::string FindPtxas() {
  for (const char* path : {"/usr/local/cuda/bin/ptxas", "/usr/bin/ptxas"}) {
    if (std::ifstream(path).good()) return path;
  }
  return "";
}

inline constexpr char kNoPtxasReason[] =
    "ptxas not found: the CUDA toolkit is not installed on this machine, so the PTX (generated and "
    "checked above) cannot be assembled here";

// Assembles `ptx` for `arch` (e.g. "sm_90") with `ptxas` in a fresh temporary directory; "" on
// success, else ptxas's exit status and output.
//
// A test calls it after checking the PTX itself, and skips only this step where FindPtxas()
// finds no toolkit, with kNoPtxasReason:
//   const std::string ptxas = testing::FindPtxas();
//   if (ptxas.empty()) GTEST_SKIP() << testing::kNoPtxasReason;
//   EXPECT_EQ(testing::AssemblePtx(ptxas, *ptx, "sm_90"), "") << *ptx;
inline std::string AssemblePtx(const std::string& ptxas, const std::string& ptx, const std::string& arch) {
  absl::StatusOr<TempDir> temp = TempDir::Create("ptxas");
  if (!temp.ok()) return StrCat("no temporary directory for ptxas: ", std::string(temp.status().message()));
  const std::string dir = temp->path();
  const std::string in = dir + "/k.ptx", out = dir + "/k.cubin", log = dir + "/ptxas.log";
  std::ofstream(in) << ptx;
  const int rc = std::system(StrCat(ptxas, " -arch=", arch, " ", in, " -o ", out, " > ", log, " 2>&1").c_str());
  if (rc == 0) return "";
  return StrCat("ptxas exited with ", rc, ": ", ReadWholeFile(log, "ptxas log").value_or(""));
}

}  // namespace tunefarm::testing
