// tuner/parallel_work.h: every item runs exactly once whatever the worker count, and
// ReleaseOnWorkers drops every value it holds (shared values live on in their other owners).
#include "tuner/parallel_work.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace tunefarm::tuner {
namespace {

TEST(RunOnWorkers, RunsEveryItemOnceOnAnyNumberOfWorkers) {
  for (size_t workers : {0, 1, 2, 7}) {
    for (size_t items : {0, 1, 5, 1000}) {
      std::vector<std::atomic<int>> runs(items);
      RunOnWorkers(items, workers, [&](size_t i) { ++runs[i]; });
      for (size_t i = 0; i < items; ++i) EXPECT_EQ(runs[i].load(), 1) << workers << " workers, item " << i;
    }
  }
}

// Counts live instances.
struct Counted {
  explicit Counted(std::atomic<int>* live) : live(live) { ++*live; }
  ~Counted() { --*live; }
  std::atomic<int>* live;
};

TEST(ReleaseOnWorkers, DropsEveryValueOfAVectorAndKeepsSharedOnes) {
  std::atomic<int> live{0};
  std::vector<std::shared_ptr<const Counted>> items;
  for (int i = 0; i < 500; ++i) items.push_back(std::make_shared<const Counted>(&live));
  std::shared_ptr<const Counted> kept = items[42];
  ReleaseOnWorkers(&items);
  EXPECT_TRUE(items.empty());
  EXPECT_EQ(live.load(), 1);
  kept.reset();
  EXPECT_EQ(live.load(), 0);
}

TEST(ReleaseOnWorkers, DropsEveryValueOfAMap) {
  std::atomic<int> live{0};
  std::unordered_map<std::string, std::shared_ptr<const Counted>> items;
  for (int i = 0; i < 300; ++i) items.emplace(std::to_string(i), std::make_shared<const Counted>(&live));
  items.emplace("null", nullptr);
  ReleaseOnWorkers(&items);
  EXPECT_TRUE(items.empty());
  EXPECT_EQ(live.load(), 0);
}

}  // namespace
}  // namespace tunefarm::tuner
