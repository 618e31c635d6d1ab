/* Shared by the hand-written C test kernels: each kernel is one .c file, built as a MODULE
 * library against deploy/tunefarm_abi.h, that plays the part of codegen's output. */
#ifndef TUNEFARM_TESTS_DEPLOY_KERNEL_COMMON_H_
#define TUNEFARM_TESTS_DEPLOY_KERNEL_COMMON_H_

#include <stddef.h>
#include <stdint.h>

#include "deploy/tunefarm_abi.h"

#define TF_EXPORT __attribute__((visibility("default")))

/* The ABI names this pointer like its struct's typedef, and in C a variable cannot share a
 * typedef's name in one scope; so the variable has a C name of its own and the ABI name as its
 * symbol. (LLVM codegen names the global directly and does not meet the problem.) Each kernel
 * module has a single .c file, so defining it here gives one definition per module. */
#ifndef NO_HOST_API /* broken.c leaves it out on purpose */
TF_EXPORT const tunefarm_host_api* tf_host_api __asm__(TUNEFARM_SYM_HOST_API) = NULL;

/* 0 if the loader set a usable host API, else the ABI's error code. */
static inline int32_t tf_check_host_api(void) {
  if (tf_host_api == NULL || tf_host_api->struct_size < sizeof(tunefarm_host_api) ||
      tf_host_api->parallel_for == NULL) {
    return TUNEFARM_ERR_NO_HOST_API;
  }
  return TUNEFARM_OK;
}
#endif

#endif /* TUNEFARM_TESTS_DEPLOY_KERNEL_COMMON_H_ */
