/* One source, built once per defect (see tests/deploy/CMakeLists.txt), for the loader's error
 * paths. Without any define it is a valid library with one entry, "noop". */
#include "kernel_common.h"

#ifndef NO_ABI_VERSION
#ifdef WRONG_ABI_VERSION
TF_EXPORT const uint32_t tunefarm_abi_version = TUNEFARM_ABI_VERSION + 1;
#else
TF_EXPORT const uint32_t tunefarm_abi_version = TUNEFARM_ABI_VERSION;
#endif
#endif

#ifndef NO_METADATA
TF_EXPORT const char tunefarm_metadata[] =
#if defined(MALFORMED_METADATA)
    /* cut short */
    "{\"format\":1,\"target\":\"llvm\",\"entries\":[{\"name\":\"noop\",";
#elif defined(MISSING_ENTRY)
    "{\"format\":1,\"target\":\"llvm\",\"entries\":["
    "{\"name\":\"noop\",\"workspace_bytes\":0,\"args\":[]},"
    "{\"name\":\"ghost\",\"workspace_bytes\":0,\"args\":[]}]}";
#else
    "{\"format\":1,\"target\":\"llvm\",\"entries\":["
    "{\"name\":\"noop\",\"workspace_bytes\":0,\"args\":[]}]}";
#endif
#endif

TF_EXPORT int32_t noop(void** args, int32_t num_args, void* workspace) { return 0; }
