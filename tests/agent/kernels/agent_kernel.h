/* Shared by the agent's C test kernels. Each kernel module is one .c file built against
 * deploy/tunefarm_abi.h (tests/agent/CMakeLists.txt), standing in for codegen's output. Most
 * export an entry "vadd": c[i] = a[i] + b[i] over VADD_N floats, faulty in its own way. */
#ifndef TUNEFARM_TESTS_AGENT_KERNELS_AGENT_KERNEL_H_
#define TUNEFARM_TESTS_AGENT_KERNELS_AGENT_KERNEL_H_

#include <stddef.h>
#include <stdint.h>

#include "deploy/tunefarm_abi.h"

#define TF_EXPORT __attribute__((visibility("default")))

#define VADD_N 4096
#define VADD_N_TEXT "4096"

#if defined(__x86_64__)
#define HOST_TARGET "llvm -mtriple=x86_64-linux-gnu"
#elif defined(__aarch64__)
#define HOST_TARGET "llvm -mtriple=aarch64-linux-gnu"
#else
#define HOST_TARGET "llvm"
#endif

/* The metadata entry of a vadd-shaped function called `name`. */
#define VADD_ENTRY(name)                                                   \
  "{\"name\":\"" name "\",\"workspace_bytes\":0,\"args\":["                \
  "{\"name\":\"a\",\"dtype\":\"float32\",\"shape\":[" VADD_N_TEXT "],\"role\":\"in\"},"  \
  "{\"name\":\"b\",\"dtype\":\"float32\",\"shape\":[" VADD_N_TEXT "],\"role\":\"in\"},"  \
  "{\"name\":\"c\",\"dtype\":\"float32\",\"shape\":[" VADD_N_TEXT "],\"role\":\"out\"}]}"

/* A whole metadata record for the host with the given entries (comma-separated). */
#define HOST_METADATA(entries) \
  "{\"format\":1,\"target\":\"" HOST_TARGET "\",\"entries\":[" entries "]}"

TF_EXPORT const uint32_t tunefarm_abi_version = TUNEFARM_ABI_VERSION;
/* See tests/deploy/kernels/kernel_common.h for why the variable has a C name of its own. */
TF_EXPORT const tunefarm_host_api* tf_host_api __asm__(TUNEFARM_SYM_HOST_API) = NULL;

/* The serial vector add every variant starts from. */
static inline int32_t vadd_serial(void** args, int32_t num_args) {
  if (num_args != 3) return TUNEFARM_ERR_BAD_ARGS;
  const float* a = (const float*)args[0];
  const float* b = (const float*)args[1];
  float* c = (float*)args[2];
  for (int32_t i = 0; i < VADD_N; ++i) c[i] = a[i] + b[i];
  return 0;
}

#endif /* TUNEFARM_TESTS_AGENT_KERNELS_AGENT_KERNEL_H_ */
