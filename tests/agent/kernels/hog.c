/* Kernels that want 16 GiB: "hog" declares a 16 GiB workspace and writes every page of it (as
 * generated code would use its scratch); "hog_mmap" maps 16 GiB itself and touches every page,
 * returning 12 (ENOMEM) when the mapping is refused. Only run them under a memory limit. */
#include <sys/mman.h>

#include "agent_kernel.h"

#define HOG_BYTES 17179869184ull
#define PAGE 4096ull

TF_EXPORT const char tunefarm_metadata[] = HOST_METADATA(
    "{\"name\":\"hog\",\"workspace_bytes\":17179869184,\"args\":["
    "{\"name\":\"c\",\"dtype\":\"float32\",\"shape\":[1],\"role\":\"out\"}]},"
    "{\"name\":\"hog_mmap\",\"workspace_bytes\":0,\"args\":["
    "{\"name\":\"c\",\"dtype\":\"float32\",\"shape\":[1],\"role\":\"out\"}]}");

static void touch(volatile char* bytes) {
  for (uint64_t i = 0; i < HOG_BYTES; i += PAGE) bytes[i] = 1;
}

TF_EXPORT int32_t hog(void** args, int32_t num_args, void* workspace) {
  touch((volatile char*)workspace);
  *(float*)args[0] = 0;
  return 0;
}

TF_EXPORT int32_t hog_mmap(void** args, int32_t num_args, void* workspace) {
  void* memory = mmap(NULL, HOG_BYTES, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) return 12;
  touch((volatile char*)memory);
  munmap(memory, HOG_BYTES);
  *(float*)args[0] = 0;
  return 0;
}
