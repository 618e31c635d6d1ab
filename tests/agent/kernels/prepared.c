/* A kernel that reads one argument in another layout, as a tuned kernel reads weights whose
 * layout its schedule rewrote: "vadd_reversed" takes b reversed, and its metadata names
 * "reverse_b" as the entry that prepares it ("prepared_by"). "vadd_unprepared" is the same
 * kernel without that field, so it gets b as generated and adds the wrong elements;
 * "vadd_badly_prepared" names a preparing entry that fails; "vadd_wrong_source" one whose source
 * (half of b) is not what the reference takes. */
#include "agent_kernel.h"

#define ARG(name, role, extra) \
  "{\"name\":\"" name "\",\"dtype\":\"float32\",\"shape\":[" VADD_N_TEXT "],\"role\":\"" role "\"" extra "}"
#define REVERSED_ENTRY(name, b_extra)                                                       \
  "{\"name\":\"" name "\",\"workspace_bytes\":0,\"args\":[" ARG("a", "in", "") "," ARG( \
      "b_reversed", "in", b_extra) "," ARG("c", "out", "") "]}"
#define HALF_PREPARE_ENTRY(name)                                                             \
  "{\"name\":\"" name "\",\"workspace_bytes\":0,\"args\":[{\"name\":\"b\",\"dtype\":\"float32\"," \
  "\"shape\":[2048],\"role\":\"in\"}," ARG("b_reversed", "out", "") "]}"
#define PREPARE_ENTRY(name)                                                                 \
  "{\"name\":\"" name "\",\"workspace_bytes\":0,\"args\":[" ARG("b", "in", "") "," ARG( \
      "b_reversed", "out", "") "]}"

TF_EXPORT const char tunefarm_metadata[] = HOST_METADATA(
    VADD_ENTRY("vadd_ref") "," REVERSED_ENTRY("vadd_reversed", ",\"prepared_by\":\"reverse_b\"") "," REVERSED_ENTRY(
        "vadd_unprepared", "") "," REVERSED_ENTRY("vadd_badly_prepared",
                                                   ",\"prepared_by\":\"reverse_b_fails\"") "," PREPARE_ENTRY("reverse_b") "," PREPARE_ENTRY("reverse_b_fails") "," REVERSED_ENTRY("vadd_wrong_source", ",\"prepared_by\":\"reverse_half\"") "," HALF_PREPARE_ENTRY("reverse_half"));

TF_EXPORT int32_t vadd_ref(void** args, int32_t num_args, void* workspace) { return vadd_serial(args, num_args); }

static int32_t add_reversed(void** args, int32_t num_args) {
  if (num_args != 3) return TUNEFARM_ERR_BAD_ARGS;
  const float* a = (const float*)args[0];
  const float* b_reversed = (const float*)args[1];
  float* c = (float*)args[2];
  for (int32_t i = 0; i < VADD_N; ++i) c[i] = a[i] + b_reversed[VADD_N - 1 - i];
  return 0;
}

TF_EXPORT int32_t vadd_reversed(void** args, int32_t num_args, void* workspace) { return add_reversed(args, num_args); }
TF_EXPORT int32_t vadd_unprepared(void** args, int32_t num_args, void* workspace) { return add_reversed(args, num_args); }
TF_EXPORT int32_t vadd_badly_prepared(void** args, int32_t num_args, void* workspace) {
  return add_reversed(args, num_args);
}

TF_EXPORT int32_t reverse_b(void** args, int32_t num_args, void* workspace) {
  if (num_args != 2) return TUNEFARM_ERR_BAD_ARGS;
  const float* b = (const float*)args[0];
  float* b_reversed = (float*)args[1];
  for (int32_t i = 0; i < VADD_N; ++i) b_reversed[i] = b[VADD_N - 1 - i];
  return 0;
}

TF_EXPORT int32_t reverse_b_fails(void** args, int32_t num_args, void* workspace) { return 7; }

TF_EXPORT int32_t vadd_wrong_source(void** args, int32_t num_args, void* workspace) { return add_reversed(args, num_args); }
TF_EXPORT int32_t reverse_half(void** args, int32_t num_args, void* workspace) { return 7; }
