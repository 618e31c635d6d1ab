// The measurement inputs (DESIGN.md "Measurement"), specified so that every agent, and the
// tuner's own checks, produce the same bits for the same seed:
//
//   bits(seed, arg, i) = splitmix64(splitmix64(splitmix64(seed) ^ arg) ^ i)
//   float args:   ((bits >> 40) * 2^-23) - 1, a multiple of 2^-23 in [-1, 1), then rounded to
//                 the dtype (float16/bfloat16: nearest even)
//   integer args: lo + bits mod (hi - lo + 1) over the metadata's inclusive range [lo, hi];
//                 0 without a range (bool without a range: bits & 1)
//
// `arg` is the argument's position in the entry's metadata and `i` the element's row-major
// index. Outputs get a poison before each run: NaN for floats, all bits set for integers, so
// an element the kernel never writes cannot pass the comparison.
#ifndef TUNEFARM_DEVICE_AGENT_INPUT_GENERATOR_H_
#define TUNEFARM_DEVICE_AGENT_INPUT_GENERATOR_H_

#include <cstdint>

#include "deploy/kernel_metadata.h"

namespace tunefarm::agent {

// splitmix64's output function for the state `x` (the generator's step adds the golden gamma
// first): SplitMix64(0) == 0xe220a8397b1dcdaf.
uint64_t SplitMix64(uint64_t x);

uint64_t InputBits(uint64_t seed, uint64_t arg, uint64_t index);
// The float value of `bits`, in [-1, 1).
double InputFloat(uint64_t bits);
// The integer value of `bits` in [lo, hi].
int64_t InputInteger(uint64_t bits, int64_t lo, int64_t hi);

// Fills `data` (arg.NumBytes() bytes) with the inputs of argument `arg_index`.
void FillInput(const deploy::ArgInfo& arg, int32_t arg_index, uint64_t seed, void* data);
// Fills `data` with the output poison.
void FillPoison(const deploy::ArgInfo& arg, void* data);

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_INPUT_GENERATOR_H_
