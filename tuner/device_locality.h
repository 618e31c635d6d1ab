// Whether a device runs on the tuner's own machine. Then its agent times kernels on the cores
// the tuner builds on, and a build beside a measurement would disturb the timing; a device
// elsewhere can measure while the tuner builds the next programs (tuner/measurer.h).
#pragma once

#include <string>

namespace tunefarm::tuner {

// True when `address` (the agent's HOST:PORT, as the tracker granted it) names this machine:
// a loopback host, this host's name, or an address of one of its network interfaces. A name
// that does not resolve counts as this machine: measuring serially is never wrong, only slower.
bool DeviceIsOnThisHost(const std::string& address);

}  // namespace tunefarm::tuner
