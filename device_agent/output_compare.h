// The correctness check: a candidate's outputs against the reference kernel's, element by
// element, passing where |out - ref| <= atol + rtol * |ref|. A NaN on one side only is a
// mismatch (the outputs start as NaN, so an element the candidate never wrote fails); NaN on
// both sides counts as equal, since references legitimately produce NaN (sqrt of a negative).
#ifndef TUNEFARM_DEVICE_AGENT_OUTPUT_COMPARE_H_
#define TUNEFARM_DEVICE_AGENT_OUTPUT_COMPARE_H_

#include <cstdint>
#include <string>

#include "deploy/kernel_metadata.h"

namespace tunefarm::agent {

// Accumulates over every output of a run.
struct Comparison {
  bool correct = true;
  double max_abs_error = 0;  // infinity when a NaN mismatch was seen
  double max_rel_error = 0;  // over elements whose reference is non-zero
  int64_t elements = 0;
  int64_t mismatches = 0;
  // The first mismatching element, e.g. "c[17]: got nan, expected 0.25".
  std::string first_mismatch;
};

void CompareOutput(const deploy::ArgInfo& arg, const void* out, const void* ref, double atol,
                   double rtol, Comparison* total);

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_OUTPUT_COMPARE_H_
