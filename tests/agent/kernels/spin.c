/* A kernel that never returns. */
#include "agent_kernel.h"

TF_EXPORT const char tunefarm_metadata[] = HOST_METADATA(VADD_ENTRY("vadd"));

TF_EXPORT int32_t vadd(void** args, int32_t num_args, void* workspace) {
  volatile uint64_t spins = 0;
  for (;;) ++spins;
  return 0;
}
