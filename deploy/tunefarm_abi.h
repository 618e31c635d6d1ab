/* tunefarm kernel ABI: the contract between generated kernels (codegen), the deploy runtime and
 * the device agent. Plain C, header-only, no dependencies: it must compile for any target.
 *
 * A kernel shared object:
 *  - imports nothing from its host but memcpy/memset/memmove;
 *  - exports `tunefarm_abi_version` (== TUNEFARM_ABI_VERSION it was built against);
 *  - exports `tunefarm_metadata`, a NUL-terminated JSON record (see docs/kernel-abi.md):
 *      {"format":1,"target":"llvm -mtriple=...","entries":[{"name":..,"workspace_bytes":N,
 *        "args":[{"name":..,"dtype":"float32","shape":[..],"role":"in|out|param",
 *                 "range":[lo,hi]  (integer args only)}]}]}
 *  - exports a writable pointer `tunefarm_host_api`, which the loader sets right after dlopen
 *    and before the first call; generated code reaches the host (thread pool) only through it;
 *  - exports one function per entry with the signature `tunefarm_kernel_fn`.
 *
 * Calling convention of an entry:
 *  - `args` holds the inputs then the outputs, in the order of the metadata's "args"; every
 *    buffer is dense (row-major), 64-byte aligned and does not alias any other argument;
 *  - `workspace` is at least "workspace_bytes" bytes, 64-byte aligned (NULL if that is 0);
 *    all scratch lives there, never on a thread's stack;
 *  - returns 0 on success, or a non-zero error code.
 */
#ifndef TUNEFARM_ABI_H_
#define TUNEFARM_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TUNEFARM_ABI_VERSION 1u
#define TUNEFARM_BUFFER_ALIGNMENT 64

/* A kernel entry point. */
typedef int32_t (*tunefarm_kernel_fn)(void** args, int32_t num_args, void* workspace);

/* One task of a parallel loop: runs iterations for `task` out of `num_tasks`. Returns 0 or an
 * error code; parallel_for returns the first non-zero code of any task. */
typedef int32_t (*tunefarm_parallel_body)(int32_t task, int32_t num_tasks, void* closure);

/* Host functions offered to kernels. New members are only ever appended; a kernel checks
 * `struct_size` before using a member added after version 1. */
typedef struct tunefarm_host_api {
  uint32_t struct_size;
  /* Runs body(t, num_tasks, closure) for t in [0, num_tasks) on the host's thread pool and
   * waits for all of them. A call made from inside a task runs its tasks inline, in order. */
  int32_t (*parallel_for)(tunefarm_parallel_body body, void* closure, int32_t num_tasks);
} tunefarm_host_api;

/* Symbol names a loader looks up. */
#define TUNEFARM_SYM_ABI_VERSION "tunefarm_abi_version"
#define TUNEFARM_SYM_METADATA "tunefarm_metadata"
#define TUNEFARM_SYM_HOST_API "tunefarm_host_api"

/* Error codes a kernel may return (others are kernel-specific). */
#define TUNEFARM_OK 0
#define TUNEFARM_ERR_BAD_ARGS 1      /* num_args does not match the metadata */
#define TUNEFARM_ERR_NO_HOST_API 2   /* parallel loop but tunefarm_host_api was never set */

#ifdef __cplusplus
}
#endif

#endif /* TUNEFARM_ABI_H_ */
