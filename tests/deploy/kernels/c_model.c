/* A model artifact written by hand, standing in for compiler/build: one kernel y = x * w + 1 on
 * four floats with w in the parameter blob, and (with FAIL_CALL) a second call to a kernel that
 * returns 7. Without PLAN the library has no tunefarm_model_plan. */
#include "kernel_common.h"

TF_EXPORT const uint32_t tunefarm_abi_version = TUNEFARM_ABI_VERSION;

TF_EXPORT const char tunefarm_metadata[] =
    "{\"format\":1,\"target\":\"llvm -mtriple=x86_64-linux-gnu\",\"entries\":["
    "{\"name\":\"scale_add\",\"workspace_bytes\":256,\"args\":["
    "{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[4],\"role\":\"in\"},"
    "{\"name\":\"w\",\"dtype\":\"float32\",\"shape\":[4],\"role\":\"param\"},"
    "{\"name\":\"y\",\"dtype\":\"float32\",\"shape\":[4],\"role\":\"out\"}]},"
    "{\"name\":\"fail7\",\"workspace_bytes\":0,\"args\":[]}"
    "]}";

#ifdef FAIL_CALL
#define EXTRA_CALL ",{\"kernel\":\"fail7\",\"args\":[],\"num_inputs\":0}"
#else
#define EXTRA_CALL ""
#endif

#ifdef PLAN
/* Not NUL-terminated in a real artifact; the _size symbol excludes the NUL here too. */
#define PLAN_TEXT                                                                             \
  "{\"format\":1,\"target\":\"llvm -mtriple=x86_64-linux-gnu\",\"threads\":2,"              \
  "\"arena_bytes\":128,\"params_bytes\":64,\"values\":["                                     \
  "{\"name\":\"x\",\"dtype\":\"float32\",\"shape\":[4],\"space\":\"arena\",\"offset\":0},"   \
  "{\"name\":\"w\",\"dtype\":\"float32\",\"shape\":[4],\"space\":\"param\",\"offset\":0},"   \
  "{\"name\":\"y\",\"dtype\":\"float32\",\"shape\":[4],\"space\":\"arena\",\"offset\":64}]," \
  "\"inputs\":[0],\"outputs\":[2],\"calls\":["                                               \
  "{\"kernel\":\"scale_add\",\"args\":[0,1,2],\"num_inputs\":2,\"group\":\"g\"}" EXTRA_CALL "]}"
TF_EXPORT const char tunefarm_model_plan[] = PLAN_TEXT;
TF_EXPORT const uint64_t tunefarm_model_plan_size = sizeof(PLAN_TEXT) - 1;
#endif

TF_EXPORT const float tunefarm_model_params[16] __attribute__((aligned(64), section(".tunefarm.params"))) = {
    2.0f, -1.0f, 0.5f, 10.0f};
TF_EXPORT const uint64_t tunefarm_model_params_size = 64;

/* 3 without a workspace: the runtime must hand the largest one to every call that needs one. */
TF_EXPORT int32_t scale_add(void** args, int32_t num_args, void* workspace) {
  if (num_args != 3) return TUNEFARM_ERR_BAD_ARGS;
  if (workspace == NULL) return 3;
  const float* x = (const float*)args[0];
  const float* w = (const float*)args[1];
  float* y = (float*)args[2];
  for (int i = 0; i < 4; ++i) y[i] = x[i] * w[i] + 1.0f;
  return 0;
}

TF_EXPORT int32_t fail7(void** args, int32_t num_args, void* workspace) { return 7; }
