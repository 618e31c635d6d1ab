/* tunefarm deploy runtime, C API: load a model artifact (docs/model-artifact.md), set its
 * inputs, run it, read its outputs.
 *
 *   tunefarm_model* model;
 *   if (tunefarm_model_load("model.so", 0, &model) != TUNEFARM_RT_OK) {
 *     fprintf(stderr, "%s\n", tunefarm_last_error());
 *   }
 *   tunefarm_model_set_input(model, 0, image, image_bytes);
 *   tunefarm_model_run(model);
 *   tunefarm_model_get_output(model, 0, logits, logits_bytes);
 *   tunefarm_model_free(model);
 *
 * Every function that can fail returns TUNEFARM_RT_OK (0) or a TUNEFARM_RT_ERR_* code, and then
 * tunefarm_last_error() says why. One model runs one call at a time (calls on it from several
 * threads take turns); separate models are independent.
 */
#ifndef TUNEFARM_RUNTIME_H_
#define TUNEFARM_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TUNEFARM_RT_API __attribute__((visibility("default")))
#else
#define TUNEFARM_RT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TUNEFARM_RT_OK 0
#define TUNEFARM_RT_ERR_INVALID_ARGUMENT 1 /* a null pointer, an index out of range, a wrong byte count */
#define TUNEFARM_RT_ERR_LOAD 2             /* the file cannot be loaded: dlopen, ABI version, metadata, symbols */
#define TUNEFARM_RT_ERR_PLAN 3             /* the plan is malformed or does not fit the kernels */
#define TUNEFARM_RT_ERR_RUN 4              /* a kernel returned an error */
#define TUNEFARM_RT_ERR_OUT_OF_MEMORY 5
#define TUNEFARM_RT_ERR_INTERNAL 6

typedef struct tunefarm_model tunefarm_model;

typedef struct tunefarm_tensor_info {
  const char* name;     /* the ONNX name */
  const char* dtype;    /* "float32", "int64", ... */
  int32_t ndim;
  const int64_t* shape; /* ndim extents */
  size_t bytes;         /* what set_input / get_output take */
} tunefarm_tensor_info; /* its pointers stay valid while the model lives */

/* Loads the artifact at `path` (a path without '/' is relative to the working directory).
 * num_threads > 0: that many threads run the kernels; 0: the thread count the model was
 * compiled for, or the machine's core count. On success *out owns the model. */
TUNEFARM_RT_API int tunefarm_model_load(const char* path, int num_threads, tunefarm_model** out);
/* Null is ignored. */
TUNEFARM_RT_API void tunefarm_model_free(tunefarm_model* model);

/* -1 (and an error message) when model is null. */
TUNEFARM_RT_API int tunefarm_model_num_inputs(const tunefarm_model* model);
TUNEFARM_RT_API int tunefarm_model_num_outputs(const tunefarm_model* model);
TUNEFARM_RT_API int tunefarm_model_input_info(const tunefarm_model* model, int index, tunefarm_tensor_info* info);
TUNEFARM_RT_API int tunefarm_model_output_info(const tunefarm_model* model, int index, tunefarm_tensor_info* info);
/* The index of the input named `name`, or -1. */
TUNEFARM_RT_API int tunefarm_model_find_input(const tunefarm_model* model, const char* name);

/* `bytes` must be the input's size. An input keeps its value across runs. */
TUNEFARM_RT_API int tunefarm_model_set_input(tunefarm_model* model, int index, const void* data, size_t bytes);
TUNEFARM_RT_API int tunefarm_model_run(tunefarm_model* model);
/* Copies the output as the last run left it; `bytes` must be its size. */
TUNEFARM_RT_API int tunefarm_model_get_output(const tunefarm_model* model, int index, void* data, size_t bytes);

/* Profiling: the plan's kernel calls, in run order, and a run that times each of them. */
typedef struct tunefarm_call_info {
  const char* kernel; /* the kernel entry it calls */
  const char* group;  /* the fused group it computes ("" when the plan does not say) */
  const char* ops;    /* the graph ops in the group, comma-separated ("" when not given) */
} tunefarm_call_info;   /* its pointers stay valid while the model lives */

/* -1 (and an error message) when model is null. */
TUNEFARM_RT_API int tunefarm_model_num_calls(const tunefarm_model* model);
TUNEFARM_RT_API int tunefarm_model_call_info(const tunefarm_model* model, int index, tunefarm_call_info* info);
/* Runs like tunefarm_model_run and writes call i's wall time in seconds to seconds[i]; `count`
 * must be tunefarm_model_num_calls(model). Costs two clock reads per call. */
TUNEFARM_RT_API int tunefarm_model_run_profiled(tunefarm_model* model, double* seconds, int count);

/* The message of the last failure on this thread ("" if none); valid until the next failing
 * call on this thread. */
TUNEFARM_RT_API const char* tunefarm_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TUNEFARM_RUNTIME_H_ */
