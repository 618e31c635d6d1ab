// What GPU tests expect of a lowered function's launches (tir/gpu_launch.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compiler/tir/gpu_launch.h"

namespace tunefarm::testing {

struct LaunchShape {
  std::array<int64_t, 3> grid, block;
  int64_t shared_bytes = 0;
  int64_t local_bytes = 0;
};

// Plans `f`'s launches within the default limits, expects `count` of them, and the first of
// the shape `first`.
inline void ExpectLaunches(const tir::PrimFunc& f, size_t count, const LaunchShape& first) {
  absl::StatusOr<std::vector<tir::GpuLaunch>> launches = tir::PlanGpuLaunches(f, tir::GpuLimits{});
  ASSERT_TRUE(launches.ok()) << launches.status() << "\n" << tir::PrimFuncToString(f);
  ASSERT_EQ(launches->size(), count) << tir::PrimFuncToString(f);
  const tir::GpuLaunch& l = (*launches)[0];
  EXPECT_EQ(l.grid, first.grid);
  EXPECT_EQ(l.block, first.block);
  EXPECT_EQ(l.shared_bytes, first.shared_bytes);
  EXPECT_EQ(l.local_bytes, first.local_bytes);
}

}  // namespace tunefarm::testing
