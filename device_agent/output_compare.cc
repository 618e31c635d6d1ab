#include "device_agent/output_compare.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "device_agent/element_types.h"

namespace tunefarm::agent {
namespace {

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

}  // namespace

void CompareOutput(const deploy::ArgInfo& arg, const void* out, const void* ref, double atol,
                   double rtol, Comparison* total) {
  const std::optional<ElementType> type = ElementTypeOf(arg.dtype);
  if (!type) return;
  const int64_t n = arg.NumElements();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    const double o = LoadElement(*type, out, i);
    const double r = LoadElement(*type, ref, i);
    bool match;
    double abs_error;
    if (std::isnan(o) || std::isnan(r)) {
      match = std::isnan(o) && std::isnan(r);
      abs_error = match ? 0 : kInf;
    } else if (o == r) {  // also equal infinities, whose difference would be NaN
      match = true;
      abs_error = 0;
    } else {
      abs_error = std::fabs(o - r);
      match = abs_error <= atol + rtol * std::fabs(r);
    }
    if (abs_error > total->max_abs_error) total->max_abs_error = abs_error;
    if (r != 0 && !std::isnan(r)) {
      const double rel_error = abs_error / std::fabs(r);
      if (rel_error > total->max_rel_error) total->max_rel_error = rel_error;
    }
    if (!match) {
      if (total->mismatches == 0) {
        total->first_mismatch = arg.name + "[" + std::to_string(i) + "]: got " + Number(o) +
                                ", expected " + Number(r);
      }
      ++total->mismatches;
      total->correct = false;
    }
  }
  total->elements += n;
}

}  // namespace tunefarm::agent
