/* A correct kernel: "vadd" adds in parallel through the host API, "vadd_ref" is the serial
 * reference it is checked against. */
#include "agent_kernel.h"

#define TASKS 4

TF_EXPORT const char tunefarm_metadata[] =
    HOST_METADATA(VADD_ENTRY("vadd") "," VADD_ENTRY("vadd_ref"));

typedef struct {
  const float* a;
  const float* b;
  float* c;
} Closure;

static int32_t task(int32_t t, int32_t num_tasks, void* closure) {
  const Closure* v = (const Closure*)closure;
  const int32_t chunk = (VADD_N + num_tasks - 1) / num_tasks;
  const int32_t end = (t + 1) * chunk < VADD_N ? (t + 1) * chunk : VADD_N;
  for (int32_t i = t * chunk; i < end; ++i) v->c[i] = v->a[i] + v->b[i];
  return 0;
}

TF_EXPORT int32_t vadd(void** args, int32_t num_args, void* workspace) {
  if (num_args != 3) return TUNEFARM_ERR_BAD_ARGS;
  if (tf_host_api == NULL) return TUNEFARM_ERR_NO_HOST_API;
  Closure closure = {(const float*)args[0], (const float*)args[1], (float*)args[2]};
  return tf_host_api->parallel_for(task, &closure, TASKS);
}

TF_EXPORT int32_t vadd_ref(void** args, int32_t num_args, void* workspace) {
  return vadd_serial(args, num_args);
}
