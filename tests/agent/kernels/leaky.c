/* Correct vector adds that leave something behind in the process that ran them: a thread
 * still running, a signal handler, inputs overwritten after use, or half a line on the
 * helper's result pipe (fd 3). A helper that measures several candidates must not let any of
 * it reach the next one. */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "agent_kernel.h"

TF_EXPORT const char tunefarm_metadata[] = HOST_METADATA(
    VADD_ENTRY("vadd_thread") "," VADD_ENTRY("vadd_handler") "," VADD_ENTRY("vadd_scribble") ","
    VADD_ENTRY("vadd_chatter"));

static void* sleep_forever(void* unused) {
  for (;;) pause();
  return unused;
}

TF_EXPORT int32_t vadd_thread(void** args, int32_t num_args, void* workspace) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, sleep_forever, NULL) != 0) return 1;
  pthread_detach(thread);
  return vadd_serial(args, num_args);
}

static void on_usr1(int signal) { (void)signal; }

TF_EXPORT int32_t vadd_handler(void** args, int32_t num_args, void* workspace) {
  signal(SIGUSR1, on_usr1);
  return vadd_serial(args, num_args);
}

/* Right outputs, then zeroed inputs: the next candidate would compute 0 + 0 from them. */
TF_EXPORT int32_t vadd_scribble(void** args, int32_t num_args, void* workspace) {
  const int32_t code = vadd_serial(args, num_args);
  memset(args[0], 0, VADD_N * sizeof(float));
  memset(args[1], 0, VADD_N * sizeof(float));
  return code;
}

TF_EXPORT int32_t vadd_chatter(void** args, int32_t num_args, void* workspace) {
  static const char unterminated[] = "{\"stage\":";
  if (write(3, unterminated, sizeof unterminated - 1) < 0) return 1;
  return vadd_serial(args, num_args);
}
