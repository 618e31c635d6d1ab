// Test helper: the hand-written C model artifacts are built by the C compiler, not by
// `tunefarm compile`, so they carry no integrity trailer. Sealed() gives a temporary copy
// with one, removed at exit.
#pragma once

#include <string>

namespace tunefarm::deploy::testing {

std::string Sealed(const std::string& path);

// A temporary file holding `bytes`, removed at exit.
std::string TempArtifact(const std::string& bytes);

}  // namespace tunefarm::deploy::testing
