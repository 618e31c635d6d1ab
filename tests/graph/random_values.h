// Seeded random values in [-1, 1), rounded to float32, for import tests that fold float32
// models and compare with a double-precision reference.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace tunefarm::testing {

inline std::vector<double> RandomFloat32Values(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = static_cast<float>(u(rng));
  return v;
}

}  // namespace tunefarm::testing
