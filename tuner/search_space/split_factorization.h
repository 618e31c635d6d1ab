// Tile sizes for a sketch's unfilled splits. A split of an extent into an outer loop and n inner
// lengths is drawn uniformly from the ordered n-tuples of positive integers whose product
// divides the extent (the outer loop takes the quotient, so no split leaves a tail) and whose
// innermost length is at most a cap (Ansor's rule; the cap keeps the innermost loop one that
// can be vectorized or unrolled).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace tunefarm::tuner {

// Ansor's max_innermost_split_factor: the cap random annotation and the tile-size mutation use.
inline constexpr int64_t kMaxInnermostSplitLength = 64;

// How many such tuples exist.
uint64_t CountFactorizations(int64_t extent, int n, int64_t max_innermost);

// One tuple, uniformly; all ones when the extent is not positive.
std::vector<int64_t> SampleFactorization(int64_t extent, int n, int64_t max_innermost, std::mt19937_64& rng);

}  // namespace tunefarm::tuner
