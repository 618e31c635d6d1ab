// Clean shutdown on SIGTERM/SIGINT without doing work in a signal handler: block the signals in
// every thread, then wait for one with sigwait in a thread of our choosing.
#ifndef TUNEFARM_PROTO_TERMINATION_H_
#define TUNEFARM_PROTO_TERMINATION_H_

namespace tunefarm::wire {

// Blocks SIGTERM and SIGINT in the calling thread. Call it first in main, before any thread
// (gRPC's included) exists, so every thread inherits the mask and none runs a default handler.
void BlockTerminationSignals();

// Waits until SIGTERM or SIGINT arrives; returns which. The signals must be blocked.
int WaitForTerminationSignal();

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_TERMINATION_H_
