// EvictFromCaches writes dirty lines back before evicting them: the flushed range, and the
// bytes that share its first and last lines, read back unchanged (an invalidate without
// write-back, or a flush of the wrong lines, would lose the stores made just before).
#include "device_agent/cache_eviction.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace tunefarm::agent {
namespace {

TEST(CacheEviction, KeepsTheDataOfAnUnalignedRangeAndItsNeighbours) {
  std::vector<uint8_t> bytes(1 << 20);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 131 + 7);
  // Dirty every line, then flush a range that starts and ends inside a line.
  for (size_t i = 0; i < bytes.size(); i += 3) bytes[i] ^= 0x5a;
  const std::vector<uint8_t> expected = bytes;
  EvictFromCaches(bytes.data() + 13, bytes.size() - 13 - 29);
  EvictFromCaches(bytes.data() + 1, 0);  // an empty range is a no-op
  EXPECT_EQ(bytes, expected);
}

}  // namespace
}  // namespace tunefarm::agent
