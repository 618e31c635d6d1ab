/* A correct kernel that creates MARKER_PATH whenever it runs: proof of whether a call ran it. */
#include <stdio.h>

#include "agent_kernel.h"

TF_EXPORT const char tunefarm_metadata[] = HOST_METADATA(VADD_ENTRY("vadd"));

TF_EXPORT int32_t vadd(void** args, int32_t num_args, void* workspace) {
  FILE* marker = fopen(MARKER_PATH, "w");
  if (marker != NULL) fclose(marker);
  return vadd_serial(args, num_args);
}
