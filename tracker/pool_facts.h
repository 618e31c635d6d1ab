// The devices of one key are one pool: the tuner compiles a job's kernels once, for the target
// string it derives from a device's hardware facts (tuner/device_target.h), and measures them
// on any device of the pool. So every device of a key must report the facts that string is
// made from; a device that differs would be measured with code built for another machine.
#ifndef TUNEFARM_TRACKER_POOL_FACTS_H_
#define TUNEFARM_TRACKER_POOL_FACTS_H_

#include <string>

#include "proto/tunefarm.pb.h"

namespace tunefarm::tracker {

// Empty when `device` may join a pool whose devices report `pool`; otherwise what differs,
// for people, e.g. "cpu_model 'X' (the pool's: 'Y')". Compares what the target string and
// the default thread count come from: architecture, CPU vendor, model and part, the ISA flags
// (as a set), core counts, cache sizes and GPUs. The OS release is free to differ.
std::string PoolFactsMismatch(const v1::HardwareFacts& pool, const v1::HardwareFacts& device);

}  // namespace tunefarm::tracker

#endif  // TUNEFARM_TRACKER_POOL_FACTS_H_
