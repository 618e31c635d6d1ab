#include "tests/farm/method_probe.h"

#include <chrono>
#include <condition_variable>
#include <mutex>

#include <google/protobuf/descriptor.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/client_callback.h>

#include "proto/auth.h"
#include "proto/tunefarm.pb.h"  // links the descriptors into the generated pool

namespace tunefarm::testing {
namespace {

class OneCall final : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  OneCall(grpc::GenericStub& stub, const std::string& method,
          const std::optional<std::string>& token) {
    if (token) wire::AddToken(context_, *token);
    context_.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::Slice empty("");
    request_ = grpc::ByteBuffer(&empty, 1);
    stub.PrepareBidiStreamingCall(&context_, method, grpc::StubOptions(), this);
    StartWriteLast(&request_, grpc::WriteOptions());
    StartRead(&response_);
    StartCall();
  }

  void OnReadDone(bool ok) override {
    if (ok) StartRead(&response_);
  }

  void OnDone(const grpc::Status& status) override {
    std::lock_guard lock(mu_);
    status_ = status;
    done_ = true;
    cv_.notify_all();
  }

  grpc::Status Wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return done_; });
    return status_;
  }

 private:
  grpc::ClientContext context_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  grpc::Status status_;
};

}  // namespace

std::map<std::string, grpc::Status> CallEveryMethod(const std::shared_ptr<grpc::Channel>& channel,
                                                    const std::string& service,
                                                    const std::optional<std::string>& token) {
  // Touch a generated type so its file's descriptors are registered before the lookup.
  (void)v1::AcquireEvent::descriptor();
  std::map<std::string, grpc::Status> results;
  const google::protobuf::ServiceDescriptor* descriptor =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(service);
  if (descriptor == nullptr) return results;
  grpc::GenericStub stub(channel);
  for (int i = 0; i < descriptor->method_count(); ++i) {
    const std::string name = descriptor->method(i)->name();
    OneCall call(stub, "/" + service + "/" + name, token);
    results[name] = call.Wait();
  }
  return results;
}

}  // namespace tunefarm::testing
