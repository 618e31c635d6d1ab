// A candidate kernel's first calls, made in a child process: a random program can take a
// thousand times longer than a good one, and the child can be stopped at a time limit (and a
// crash there only loses the candidate). The second call is the one reported: the first, in a
// fresh process, also pays for page faults on the output and cold caches. The child's output
// is lost.
#pragma once

#include "bench/compiler/bench_kernels.h"

namespace tunefarm::bench {

struct Probe {
  enum Outcome { kOk, kTimedOut, kCrashed, kFailed } outcome = kFailed;
  double seconds = 0;  // the second call alone, when kOk
};

Probe ProbeInChild(Compiled& kernel, Arrays& args, int threads, double limit_s);

}  // namespace tunefarm::bench
