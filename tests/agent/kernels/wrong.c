/* Kernels that run fine and compute the wrong thing: "vadd_ret7" fails with code 7,
 * "vadd_off" is off by 0.25 at element 100, "vadd_skip" never writes the last element (which
 * keeps the NaN the helper put there). */
#include "agent_kernel.h"

TF_EXPORT const char tunefarm_metadata[] = HOST_METADATA(
    VADD_ENTRY("vadd_ret7") "," VADD_ENTRY("vadd_off") "," VADD_ENTRY("vadd_skip"));

TF_EXPORT int32_t vadd_ret7(void** args, int32_t num_args, void* workspace) { return 7; }

TF_EXPORT int32_t vadd_off(void** args, int32_t num_args, void* workspace) {
  const int32_t code = vadd_serial(args, num_args);
  ((float*)args[2])[100] += 0.25f;
  return code;
}

TF_EXPORT int32_t vadd_skip(void** args, int32_t num_args, void* workspace) {
  const float* a = (const float*)args[0];
  const float* b = (const float*)args[1];
  float* c = (float*)args[2];
  for (int32_t i = 0; i < VADD_N - 1; ++i) c[i] = a[i] + b[i];
  return 0;
}
