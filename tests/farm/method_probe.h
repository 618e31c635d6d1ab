// Calls every method of a service by reflection over its descriptor, so a test over "every
// method" keeps covering methods added later. Each call sends one empty request message and
// half-closes, which unary, client-, server- and bidi-streaming handlers all accept on the wire.
#ifndef TUNEFARM_TESTS_FARM_METHOD_PROBE_H_
#define TUNEFARM_TESTS_FARM_METHOD_PROBE_H_

#include <map>
#include <memory>
#include <optional>
#include <string>

#include <grpcpp/channel.h>
#include <grpcpp/support/status.h>

namespace tunefarm::testing {

// Method name -> final status of one call carrying `token` (std::nullopt: no token metadata).
// `service` is the full name, e.g. "tunefarm.v1.Tracker"; an unknown service gives no entries.
std::map<std::string, grpc::Status> CallEveryMethod(const std::shared_ptr<grpc::Channel>& channel,
                                                    const std::string& service,
                                                    const std::optional<std::string>& token);

}  // namespace tunefarm::testing

#endif  // TUNEFARM_TESTS_FARM_METHOD_PROBE_H_
