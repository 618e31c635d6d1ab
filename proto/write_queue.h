// The queued-write pump every callback-API server write reactor needs: gRPC allows one write
// in flight per stream, while messages are produced on other threads (a measurement ends, a
// lease is granted). Messages queue here; Pump() starts the next write when the previous one
// is done, and the Finish once the queue is empty and a finish was asked for.
//
//   void MyReactor::OnWriteDone(bool ok) { queue_.WriteDone(); ...; queue_.Pump(this); }
//
// Pump() calls into gRPC: never call it under a lock that gRPC's callbacks take.
#ifndef TUNEFARM_PROTO_WRITE_QUEUE_H_
#define TUNEFARM_PROTO_WRITE_QUEUE_H_

#include <deque>
#include <mutex>
#include <utility>

#include <grpcpp/support/server_callback.h>
#include <grpcpp/support/status.h>

namespace tunefarm::wire {

template <typename Message>
class WriteQueue {
 public:
  // Queues `message`; false (dropped) once a finish was asked for: nobody reads it then.
  bool Push(Message message) {
    std::lock_guard lock(mu_);
    if (finish_wanted_) return false;
    pending_.push_back(std::move(message));
    return true;
  }

  // Asks to end the stream with `status` after the queued messages, or at once with
  // `drop_pending` (the client is gone). Only the first request counts; true for that one.
  bool RequestFinish(grpc::Status status, bool drop_pending = false) {
    std::lock_guard lock(mu_);
    if (drop_pending) pending_.clear();
    if (finish_wanted_) return false;
    finish_wanted_ = true;
    finish_status_ = std::move(status);
    return true;
  }

  // From OnWriteDone: the write in flight is done.
  void WriteDone() {
    std::lock_guard lock(mu_);
    writing_ = false;
  }

  // Starts the next write, or the Finish, on `reactor` if no write is in flight.
  void Pump(grpc::ServerWriteReactor<Message>* reactor) {
    std::unique_lock lock(mu_);
    if (finished_ || writing_) return;
    if (!pending_.empty()) {
      in_flight_ = std::move(pending_.front());
      pending_.pop_front();
      writing_ = true;
      lock.unlock();
      reactor->StartWrite(&in_flight_);
      return;
    }
    if (finish_wanted_) {
      finished_ = true;
      grpc::Status status = finish_status_;
      lock.unlock();
      reactor->Finish(std::move(status));
    }
  }

 private:
  std::mutex mu_;
  std::deque<Message> pending_;
  Message in_flight_;  // gRPC reads it until OnWriteDone
  bool writing_ = false;
  bool finish_wanted_ = false;
  bool finished_ = false;
  grpc::Status finish_status_;
};

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_WRITE_QUEUE_H_
