// A running Tracker gRPC server: the service, gRPC's health service, and the reaper.
#ifndef TUNEFARM_TRACKER_TRACKER_SERVER_H_
#define TUNEFARM_TRACKER_TRACKER_SERVER_H_

#include <memory>
#include <string>

#include <grpcpp/server.h>

#include "absl/status/statusor.h"
#include "proto/credentials.h"
#include "tracker/tracker_service.h"
#include "tracker/tracker_state.h"

namespace tunefarm::tracker {

struct TrackerServerOptions {
  std::string host = "0.0.0.0";
  int port = 0;       // 0: any free port; port() tells which
  std::string token;  // required
  wire::TlsFiles tls; // empty: plaintext
  TrackerOptions tracker;
};

class TrackerServer {
 public:
  // Listens and serves at once. Unavailable when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<TrackerServer>> Start(TrackerServerOptions options);
  ~TrackerServer();  // Stop()

  int port() const { return port_; }
  // HOST:PORT as bound (the port filled in when 0 was asked).
  std::string address() const;
  TrackerState& state() { return *state_; }

  // Revokes every lease (clients hear REVOKED), stops accepting calls and waits up to a
  // second for open ones to end. Idempotent.
  void Stop();

 private:
  TrackerServer() = default;

  std::string host_;
  int port_ = 0;
  std::unique_ptr<TrackerState> state_;
  std::unique_ptr<TrackerService> service_;
  std::unique_ptr<grpc::Server> server_;  // last: stopped before what it serves
  bool stopped_ = false;
};

}  // namespace tunefarm::tracker

#endif  // TUNEFARM_TRACKER_TRACKER_SERVER_H_
