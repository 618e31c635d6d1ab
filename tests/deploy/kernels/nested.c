/* Test kernels whose parallel tasks start parallel loops of their own: the inner loop must run
 * inline, in order, on the thread that runs the outer task. */
#include "kernel_common.h"

#define OUTER 4
#define INNER 5

TF_EXPORT const uint32_t tunefarm_abi_version = TUNEFARM_ABI_VERSION;

TF_EXPORT const char tunefarm_metadata[] =
    "{\"format\":1,\"target\":\"llvm -mtriple=x86_64-linux-gnu\",\"entries\":["
    "{\"name\":\"nested_order\",\"workspace_bytes\":0,\"args\":["
    "{\"name\":\"order\",\"dtype\":\"int32\",\"shape\":[4,5],\"role\":\"out\"}]},"
    "{\"name\":\"nested_error\",\"workspace_bytes\":0,\"args\":[]}"
    "]}";

typedef struct {
  int32_t* row;
  int32_t counter; /* plain, unsynchronised: only correct if the inner tasks run in order */
} InnerClosure;

static int32_t inner_task(int32_t task, int32_t num_tasks, void* closure) {
  InnerClosure* inner = (InnerClosure*)closure;
  inner->row[task] = inner->counter++;
  return 0;
}

static int32_t outer_task(int32_t task, int32_t num_tasks, void* closure) {
  InnerClosure inner = {(int32_t*)closure + task * INNER, 0};
  return tf_host_api->parallel_for(inner_task, &inner, INNER);
}

/* order[o][i] = the position at which inner task i of outer task o ran: 0..4 when inline. */
TF_EXPORT int32_t nested_order(void** args, int32_t num_args, void* workspace) {
  if (num_args != 1) return TUNEFARM_ERR_BAD_ARGS;
  const int32_t host = tf_check_host_api();
  if (host != TUNEFARM_OK) return host;
  return tf_host_api->parallel_for(outer_task, args[0], OUTER);
}

/* Inner tasks 2 and 3 of outer task 1 fail with 50 + inner task: the result must be 52. */
static int32_t failing_inner(int32_t task, int32_t num_tasks, void* closure) {
  const int32_t outer = *(const int32_t*)closure;
  return (outer == 1 && task >= 2) ? 50 + task : 0;
}

static int32_t failing_outer(int32_t task, int32_t num_tasks, void* closure) {
  return tf_host_api->parallel_for(failing_inner, &task, 4);
}

TF_EXPORT int32_t nested_error(void** args, int32_t num_args, void* workspace) {
  const int32_t host = tf_check_host_api();
  if (host != TUNEFARM_OK) return host;
  return tf_host_api->parallel_for(failing_outer, NULL, 3);
}
