#include "proto/health_client.h"

#include <future>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/support/byte_buffer.h>

#include "proto/grpc_status.h"

namespace tunefarm::wire {
namespace {

// The health messages are two one-field protos; Debian ships no C++ stubs for them, so they
// are encoded by hand: HealthCheckRequest{string service = 1},
// HealthCheckResponse{ServingStatus status = 1} with SERVING = 1.
std::string EncodeRequest(const std::string& service) {
  std::string out = "\x0a";
  for (size_t n = service.size(); ; n >>= 7) {
    const unsigned char low = n & 0x7f;
    if (n < 0x80) {
      out.push_back(static_cast<char>(low));
      break;
    }
    out.push_back(static_cast<char>(low | 0x80));
  }
  return out + service;
}

}  // namespace

absl::StatusOr<bool> CheckHealth(const std::shared_ptr<grpc::Channel>& channel,
                                 const std::string& service, std::chrono::milliseconds timeout) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  grpc::Slice slice(EncodeRequest(service));
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request,
                 &response, [&done](grpc::Status status) { done.set_value(std::move(status)); });
  grpc::Status status = done.get_future().get();
  if (!status.ok()) return ToAbsl(status);
  std::string bytes;
  if (response.Valid()) {
    std::vector<grpc::Slice> slices;
    (void)response.Dump(&slices);
    for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  // SERVING encodes as 08 01; NOT_SERVING (2) as 08 02; UNKNOWN (0) as nothing.
  return bytes == std::string("\x08\x01", 2);
}

}  // namespace tunefarm::wire
