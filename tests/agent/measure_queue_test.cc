#include "device_agent/measure_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace tunefarm::agent {
namespace {

using namespace std::chrono_literals;

TEST(MeasureQueue, RunsJobsOneAtATimeInArrivalOrder) {
  MeasureQueue queue;
  std::mutex mu;
  std::vector<int> order;
  std::atomic<int> running{0}, max_running{0}, done{0};
  for (int i = 0; i < 50; ++i) {
    queue.Push([&, i] {
      const int now = ++running;
      int seen = max_running.load();
      while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(100us);
      {
        std::lock_guard lock(mu);
        order.push_back(i);
      }
      --running;
      ++done;
    });
  }
  while (done.load() < 50) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(max_running.load(), 1);
  std::vector<int> expected(50);
  for (int i = 0; i < 50; ++i) expected[i] = i;
  EXPECT_EQ(order, expected);
}

TEST(MeasureQueue, ConcurrentPushersAllGetServedSerially) {
  MeasureQueue queue;
  std::atomic<int> running{0}, overlaps{0}, done{0};
  std::vector<std::thread> pushers;
  for (int t = 0; t < 8; ++t) {
    pushers.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        queue.Push([&] {
          if (++running > 1) ++overlaps;
          std::this_thread::sleep_for(20us);
          --running;
          ++done;
        });
      }
    });
  }
  for (std::thread& p : pushers) p.join();
  while (done.load() < 200) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(overlaps.load(), 0);
}

TEST(MeasureQueue, StopWaitsForTheRunningJobAndDropsTheRest) {
  MeasureQueue queue;
  std::atomic<bool> started{false}, finished{false};
  std::atomic<int> later{0};
  queue.Push([&] {
    started = true;
    std::this_thread::sleep_for(50ms);
    finished = true;
  });
  for (int i = 0; i < 10; ++i) queue.Push([&] { ++later; });
  while (!started) std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(queue.busy());
  EXPECT_EQ(queue.waiting(), 10u);
  queue.Stop();
  EXPECT_TRUE(finished.load());
  EXPECT_EQ(later.load(), 0);
  queue.Push([&] { ++later; });  // ignored after Stop
  EXPECT_EQ(queue.waiting(), 0u);
  EXPECT_FALSE(queue.busy());
}

}  // namespace
}  // namespace tunefarm::agent
