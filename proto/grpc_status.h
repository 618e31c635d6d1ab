// absl::Status <-> grpc::Status. The two code enums share their numbering (both follow
// google.rpc.Code), so the conversion is a cast.
#ifndef TUNEFARM_PROTO_GRPC_STATUS_H_
#define TUNEFARM_PROTO_GRPC_STATUS_H_

#include <string>

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace tunefarm::wire {

inline absl::Status ToAbsl(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

inline grpc::Status ToGrpc(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_GRPC_STATUS_H_
