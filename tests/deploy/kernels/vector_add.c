/* Test kernels for the loader: a parallel vector add, a workspace probe, a kernel that fails
 * with code 7 and one whose parallel tasks fail. */
#include "kernel_common.h"

#define VADD_N 1003
#define VADD_TASKS 8
#define WORKSPACE_BYTES 4096
#define TASK_ERRORS_N 10

TF_EXPORT const uint32_t tunefarm_abi_version = TUNEFARM_ABI_VERSION;

TF_EXPORT const char tunefarm_metadata[] =
    "{\"format\":1,\"target\":\"llvm -mtriple=x86_64-linux-gnu\",\"entries\":["
    "{\"name\":\"vadd\",\"workspace_bytes\":0,\"args\":["
    "{\"name\":\"a\",\"dtype\":\"float32\",\"shape\":[1003],\"role\":\"in\"},"
    "{\"name\":\"b\",\"dtype\":\"float32\",\"shape\":[1003],\"role\":\"in\"},"
    "{\"name\":\"c\",\"dtype\":\"float32\",\"shape\":[1003],\"role\":\"out\"}]},"
    "{\"name\":\"workspace_probe\",\"workspace_bytes\":4096,\"args\":["
    "{\"name\":\"address\",\"dtype\":\"uint64\",\"shape\":[1],\"role\":\"out\"}]},"
    "{\"name\":\"fail7\",\"workspace_bytes\":0,\"args\":[]},"
    "{\"name\":\"task_errors\",\"workspace_bytes\":0,\"args\":["
    "{\"name\":\"ran\",\"dtype\":\"int32\",\"shape\":[10],\"role\":\"out\"}]}"
    "]}";

typedef struct {
  const float* a;
  const float* b;
  float* c;
} VaddClosure;

static int32_t vadd_task(int32_t task, int32_t num_tasks, void* closure) {
  const VaddClosure* v = (const VaddClosure*)closure;
  const int32_t chunk = (VADD_N + num_tasks - 1) / num_tasks;
  const int32_t begin = task * chunk;
  const int32_t end = begin + chunk < VADD_N ? begin + chunk : VADD_N;
  for (int32_t i = begin; i < end; ++i) v->c[i] = v->a[i] + v->b[i];
  return 0;
}

TF_EXPORT int32_t vadd(void** args, int32_t num_args, void* workspace) {
  if (num_args != 3) return TUNEFARM_ERR_BAD_ARGS;
  const int32_t host = tf_check_host_api();
  if (host != TUNEFARM_OK) return host;
  VaddClosure closure = {(const float*)args[0], (const float*)args[1], (float*)args[2]};
  return tf_host_api->parallel_for(vadd_task, &closure, VADD_TASKS);
}

/* Writes every workspace byte (so a short workspace shows under a sanitizer) and reports the
 * workspace's address; 3 if there is no workspace, 4 if it does not read back. */
TF_EXPORT int32_t workspace_probe(void** args, int32_t num_args, void* workspace) {
  if (num_args != 1) return TUNEFARM_ERR_BAD_ARGS;
  if (workspace == NULL) return 3;
  volatile uint8_t* bytes = (volatile uint8_t*)workspace;
  for (int32_t i = 0; i < WORKSPACE_BYTES; ++i) bytes[i] = (uint8_t)i;
  for (int32_t i = 0; i < WORKSPACE_BYTES; ++i) {
    if (bytes[i] != (uint8_t)i) return 4;
  }
  *(uint64_t*)args[0] = (uint64_t)(uintptr_t)workspace;
  return 0;
}

TF_EXPORT int32_t fail7(void** args, int32_t num_args, void* workspace) { return 7; }

/* Every task marks itself in `ran`; tasks 3, 6 and 8 fail with 30 + task. */
static int32_t failing_task(int32_t task, int32_t num_tasks, void* closure) {
  ((int32_t*)closure)[task] = 1;
  return (task == 3 || task == 6 || task == 8) ? 30 + task : 0;
}

TF_EXPORT int32_t task_errors(void** args, int32_t num_args, void* workspace) {
  if (num_args != 1) return TUNEFARM_ERR_BAD_ARGS;
  const int32_t host = tf_check_host_api();
  if (host != TUNEFARM_OK) return host;
  return tf_host_api->parallel_for(failing_task, args[0], TASK_ERRORS_N);
}
