/* Kernels that look at the process they run in. "vadd" is correct and, as a side effect,
 * writes getenv("TUNEFARM_TOKEN") (nothing if unset) to MARKER_PATH ".token", its whole
 * environment to ".env" and its open descriptors to ".fds". "limits" returns the address-space
 * limit in MiB if core dumps are off (RLIMIT_CORE 0), else -1; "cpu_limit" returns RLIMIT_CPU. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "agent_kernel.h"

extern char** environ;

TF_EXPORT const char tunefarm_metadata[] = HOST_METADATA(
    VADD_ENTRY("vadd") "," VADD_ENTRY("limits") "," VADD_ENTRY("cpu_limit"));

TF_EXPORT int32_t vadd(void** args, int32_t num_args, void* workspace) {
  FILE* token = fopen(MARKER_PATH ".token", "w");
  if (token != NULL) {
    const char* value = getenv("TUNEFARM_TOKEN");
    if (value != NULL) fputs(value, token);
    fclose(token);
  }
  FILE* env = fopen(MARKER_PATH ".env", "w");
  if (env != NULL) {
    for (char** entry = environ; *entry != NULL; ++entry) fprintf(env, "%s\n", *entry);
    fclose(env);
  }
  /* Listed before opening the output file, so that only inherited descriptors show (and the
   * directory stream's own). */
  char fds[4096] = "";
  size_t used = 0;
  DIR* dir = opendir("/proc/self/fd");
  if (dir != NULL) {
    for (struct dirent* entry = readdir(dir); entry != NULL; entry = readdir(dir)) {
      if (entry->d_name[0] == '.') continue;
      used += (size_t)snprintf(fds + used, used < sizeof fds ? sizeof fds - used : 0, "%s\n",
                               entry->d_name);
    }
    closedir(dir);
  }
  FILE* out = fopen(MARKER_PATH ".fds", "w");
  if (out != NULL) {
    fputs(fds, out);
    fclose(out);
  }
  return vadd_serial(args, num_args);
}

TF_EXPORT int32_t limits(void** args, int32_t num_args, void* workspace) {
  struct rlimit as, core;
  if (getrlimit(RLIMIT_AS, &as) != 0 || getrlimit(RLIMIT_CORE, &core) != 0) return -2;
  if (core.rlim_cur != 0) return -1;
  if (as.rlim_cur == RLIM_INFINITY) return -3;
  return (int32_t)(as.rlim_cur >> 20);
}

TF_EXPORT int32_t cpu_limit(void** args, int32_t num_args, void* workspace) {
  struct rlimit cpu;
  if (getrlimit(RLIMIT_CPU, &cpu) != 0) return -2;
  if (cpu.rlim_cur == RLIM_INFINITY) return -3;
  return (int32_t)cpu.rlim_cur;
}
