// The search ahead of pipelined rounds (tuner/batch_prefetch.h): a batch is taken by its own
// task only, once, and not when it is older than kMaxAgeRounds.
#include "tuner/batch_prefetch.h"

#include <gtest/gtest.h>

#include <atomic>

namespace tunefarm::tuner {
namespace {

// Returns no programs and counts the searches (a Candidate needs a whole task to make).
class CountingPolicy final : public SearchPolicy {
 public:
  std::vector<Candidate> NextBatch(int, const std::set<std::string>&) override {
    ++searches;
    return {};
  }
  void Observe(const std::vector<MeasuredCandidate>&) override {}
  const Candidate& default_candidate() const override { std::abort(); }
  std::atomic<int> searches{0};
};

TEST(BatchPrefetch, ABatchGoesToItsOwnTaskOnce) {
  BatchPrefetch prefetch;
  CountingPolicy policy;
  const std::set<std::string> measured;
  EXPECT_FALSE(prefetch.Take(2, 0).has_value());
  prefetch.Start(2, /*round=*/5, &policy, 8, &measured);
  EXPECT_TRUE(prefetch.Holds(2));
  prefetch.Start(2, 5, &policy, 8, &measured);  // held or running already: no second search
  EXPECT_FALSE(prefetch.Take(1, 6).has_value());
  EXPECT_TRUE(prefetch.Take(2, 6).has_value());
  EXPECT_FALSE(prefetch.Take(2, 6).has_value());
  EXPECT_EQ(policy.searches, 1);
  EXPECT_EQ(prefetch.started(), 1);
}

TEST(BatchPrefetch, ABatchOlderThanTheLimitIsDropped) {
  BatchPrefetch prefetch;
  CountingPolicy policy;
  const std::set<std::string> measured;
  prefetch.Start(0, 10, &policy, 8, &measured);
  prefetch.Wait();
  EXPECT_FALSE(prefetch.Take(0, 10 + BatchPrefetch::kMaxAgeRounds + 1).has_value());
  EXPECT_FALSE(prefetch.Holds(0));
  prefetch.Start(0, 20, &policy, 8, &measured);
  EXPECT_TRUE(prefetch.Take(0, 20 + BatchPrefetch::kMaxAgeRounds).has_value());
}

}  // namespace
}  // namespace tunefarm::tuner
