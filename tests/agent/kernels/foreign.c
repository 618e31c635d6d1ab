/* A correct kernel whose metadata says it was built for an aarch64 Cortex-A72. Its constructor
 * leaves MARKER_PATH behind if anything ever loads it. */
#include <stdio.h>

#include "agent_kernel.h"

TF_EXPORT const char tunefarm_metadata[] =
    "{\"format\":1,\"target\":\"llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72\","
    "\"entries\":[" VADD_ENTRY("vadd") "]}";

__attribute__((constructor)) static void loaded(void) {
  FILE* marker = fopen(MARKER_PATH, "w");
  if (marker != NULL) fclose(marker);
}

TF_EXPORT int32_t vadd(void** args, int32_t num_args, void* workspace) {
  return vadd_serial(args, num_args);
}
