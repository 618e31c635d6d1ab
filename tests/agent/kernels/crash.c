/* Kernels that take their process down: a null write (SIGSEGV), abort (SIGABRT), exit(3). */
#include <stdlib.h>

#include "agent_kernel.h"

TF_EXPORT const char tunefarm_metadata[] =
    HOST_METADATA(VADD_ENTRY("vadd") "," VADD_ENTRY("vadd_abort") "," VADD_ENTRY("vadd_exit"));

TF_EXPORT int32_t vadd(void** args, int32_t num_args, void* workspace) {
  *(volatile int32_t*)NULL = 1;
  return vadd_serial(args, num_args);
}

TF_EXPORT int32_t vadd_abort(void** args, int32_t num_args, void* workspace) {
  abort();
}

TF_EXPORT int32_t vadd_exit(void** args, int32_t num_args, void* workspace) {
  exit(3);
}
