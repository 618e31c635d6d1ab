/* A correct kernel of about 10 MB: a large constant table (as a model's weights would be)
 * makes the .so bigger than gRPC's 4 MiB default message limit. */
#include "agent_kernel.h"

#define TABLE_BYTES (10u << 20)

TF_EXPORT const char tunefarm_metadata[] = HOST_METADATA(VADD_ENTRY("vadd"));

/* Non-zero so that it lands in .rodata with its bytes in the file, not in .bss. */
TF_EXPORT const uint8_t big_table[TABLE_BYTES] = {1, 2, 3};

TF_EXPORT int32_t vadd(void** args, int32_t num_args, void* workspace) {
  const int32_t code = vadd_serial(args, num_args);
  return code != 0 ? code : (big_table[TABLE_BYTES - 1] == 0 ? 0 : 99);
}
