// Test helper: the hand-written C model artifacts are built by the C compiler, not by
// `tunefarm compile`, so they carry no integrity trailer. Sealed() gives a temporary copy
// with one, removed at exit.
#pragma once

#include <string>

#include "tests/common/temp_file.h"

namespace tunefarm::deploy::testing {

std::string Sealed(const std::string& path);

// A temporary .so holding `bytes`, removed at exit.
inline std::string TempArtifact(const std::string& bytes) { return tunefarm::testing::WriteTempFile(bytes, ".so"); }

}  // namespace tunefarm::deploy::testing
