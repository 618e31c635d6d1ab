// A LeaseListener that writes down what it hears, for the tracker's unit tests.
#ifndef TUNEFARM_TESTS_FARM_RECORDING_LISTENER_H_
#define TUNEFARM_TESTS_FARM_RECORDING_LISTENER_H_

#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tracker/lease_table.h"

namespace tunefarm::testing {

class RecordingListener final : public tracker::LeaseListener {
 public:
  void OnQueued(int position, int devices_in_pool) override {
    Add(absl::StrCat("queued ", position, " of pool ", devices_in_pool));
  }
  void OnGranted(const tracker::Grant& grant) override {
    Add(absl::StrCat("granted ", grant.address));
  }
  void OnRevoked(const std::string& reason) override { Add(absl::StrCat("revoked ", reason)); }
  void Flush() override {
    std::lock_guard lock(mu_);
    ++flushes_;
  }

  std::vector<std::string> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  std::string last() const {
    std::lock_guard lock(mu_);
    return events_.empty() ? "" : events_.back();
  }
  int flushes() const {
    std::lock_guard lock(mu_);
    return flushes_;
  }

 private:
  void Add(std::string event) {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(event));
  }
  mutable std::mutex mu_;
  std::vector<std::string> events_;
  int flushes_ = 0;
};

}  // namespace tunefarm::testing

#endif  // TUNEFARM_TESTS_FARM_RECORDING_LISTENER_H_
