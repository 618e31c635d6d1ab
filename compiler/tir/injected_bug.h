// Deliberate lowering bugs, switched on only by the property test that proves it can catch
// them (tests/property). Off by default; never set in production code.
#pragma once

namespace tunefarm::tir {

enum class InjectedBug {
  kNone,
  kDropSplitTailGuard,
  kShrinkComputeAtRegion,
  kShiftLocalOffset,  // reads of a local buffer are off by one element in the last dimension
};

void SetInjectedBugForTesting(InjectedBug bug);
InjectedBug CurrentInjectedBug();

}  // namespace tunefarm::tir
