#include "deploy/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace tunefarm::deploy {
namespace {

using std::chrono::steady_clock;

// Counts how often each task ran and checks the num_tasks it was given.
struct Counter {
  explicit Counter(int32_t n) : runs(n) {}
  std::vector<std::atomic<int32_t>> runs;
  std::atomic<int32_t> wrong_num_tasks{0};
};

int32_t CountTask(int32_t task, int32_t num_tasks, void* closure) {
  auto* counter = static_cast<Counter*>(closure);
  if (num_tasks != static_cast<int32_t>(counter->runs.size())) counter->wrong_num_tasks++;
  counter->runs[task]++;
  return 0;
}

// Every task waits (up to 10 s) until `expected` tasks are running at once: it returns 0 only
// if they really ran concurrently, and it records which threads ran them.
struct Rendezvous {
  explicit Rendezvous(int32_t n) : expected(n) {}
  int32_t expected;
  std::atomic<int32_t> arrived{0};
  std::mutex mutex;
  std::set<std::thread::id> threads;
};

int32_t RendezvousTask(int32_t task, int32_t num_tasks, void* closure) {
  auto* r = static_cast<Rendezvous*>(closure);
  {
    std::lock_guard<std::mutex> lock(r->mutex);
    r->threads.insert(std::this_thread::get_id());
  }
  r->arrived++;
  const auto deadline = steady_clock::now() + std::chrono::seconds(10);
  while (r->arrived.load() < r->expected) {
    if (steady_clock::now() > deadline) return 1;
    std::this_thread::yield();
  }
  return 0;
}

class ThreadPoolTest : public ::testing::TestWithParam<int32_t> {};

TEST_P(ThreadPoolTest, EveryTaskRunsExactlyOnce) {
  ThreadPool pool(GetParam());
  EXPECT_EQ(pool.num_threads(), GetParam());
  for (int32_t n : {1, 2, 3, 4, 7, 64, 1000}) {
    Counter counter(n);
    ASSERT_EQ(pool.ParallelFor(CountTask, &counter, n), 0);
    EXPECT_EQ(counter.wrong_num_tasks.load(), 0);
    for (int32_t t = 0; t < n; ++t) ASSERT_EQ(counter.runs[t].load(), 1) << "n=" << n << " t=" << t;
  }
}

TEST_P(ThreadPoolTest, ManyCallsInARow) {
  ThreadPool pool(GetParam());
  for (int i = 0; i < 20000; ++i) {
    const int32_t n = 1 + i % 9;
    Counter per_call(n);
    ASSERT_EQ(pool.ParallelFor(CountTask, &per_call, n), 0);
    for (int32_t t = 0; t < n; ++t) ASSERT_EQ(per_call.runs[t].load(), 1) << "call " << i;
  }
}

TEST_P(ThreadPoolTest, NoTaskRunsAfterItsCallReturned) {
  // Tasks of uneven length, so that workers arrive late and see the next job being published;
  // any task run twice, in the wrong job or after its call returned shows in the counts.
  ThreadPool pool(GetParam());
  std::vector<std::unique_ptr<Counter>> calls;
  uint32_t seed = 1;
  for (int i = 0; i < 3000; ++i) {
    seed = seed * 1664525u + 1013904223u;
    const int32_t n = 2 + static_cast<int32_t>(seed >> 28);
    calls.push_back(std::make_unique<Counter>(n));
    auto body = +[](int32_t task, int32_t num_tasks, void* closure) -> int32_t {
      volatile int sink = 0;
      for (int k = 0; k < (task % 3) * 200; ++k) sink = sink + k;
      return CountTask(task, num_tasks, closure);
    };
    ASSERT_EQ(pool.ParallelFor(body, calls.back().get(), n), 0);
    for (int32_t t = 0; t < n; ++t) ASSERT_EQ(calls.back()->runs[t].load(), 1) << "call " << i;
  }
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i]->wrong_num_tasks.load(), 0) << "call " << i;
    for (const auto& runs : calls[i]->runs) ASSERT_EQ(runs.load(), 1) << "call " << i;
  }
}

TEST_P(ThreadPoolTest, FirstErrorIsTheLowestFailingTask) {
  ThreadPool pool(GetParam());
  struct Failures {
    std::atomic<int32_t> ran{0};
  } failures;
  auto body = +[](int32_t task, int32_t, void* closure) -> int32_t {
    static_cast<Failures*>(closure)->ran++;
    // The lowest failing task finishes last, so "first in time" would be a different one.
    if (task == 5) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return (task == 5 || task == 17 || task == 40) ? 100 + task : 0;
  };
  EXPECT_EQ(pool.ParallelFor(body, &failures, 50), 105);
  EXPECT_EQ(failures.ran.load(), 50);  // a failure does not stop the other tasks
}

TEST_P(ThreadPoolTest, NestedCallRunsInlineInOrderOnTheSameThread) {
  ThreadPool pool(GetParam());
  constexpr int32_t kOuter = 6, kInner = 5;
  struct Record {
    std::thread::id outer_thread;
    std::vector<std::thread::id> inner_threads;
    std::vector<int32_t> inner_order;
  };
  std::vector<Record> records(kOuter);
  struct Context {
    ThreadPool* pool;
    std::vector<Record>* records;
  } context{&pool, &records};

  auto outer = +[](int32_t task, int32_t, void* closure) -> int32_t {
    auto* ctx = static_cast<Context*>(closure);
    Record& record = (*ctx->records)[task];
    record.outer_thread = std::this_thread::get_id();
    auto inner = +[](int32_t inner_task, int32_t, void* c) -> int32_t {
      auto* r = static_cast<Record*>(c);
      r->inner_threads.push_back(std::this_thread::get_id());
      r->inner_order.push_back(inner_task);
      return 0;
    };
    return ctx->pool->ParallelFor(inner, &record, kInner);
  };
  ASSERT_EQ(pool.ParallelFor(outer, &context, kOuter), 0);
  for (const Record& record : records) {
    ASSERT_EQ(record.inner_order, (std::vector<int32_t>{0, 1, 2, 3, 4}));
    for (std::thread::id id : record.inner_threads) EXPECT_EQ(id, record.outer_thread);
  }
}

TEST_P(ThreadPoolTest, NestedErrorPropagates) {
  ThreadPool pool(GetParam());
  auto outer = +[](int32_t task, int32_t, void* closure) -> int32_t {
    auto inner = +[](int32_t t, int32_t, void* c) -> int32_t {
      return (*static_cast<int32_t*>(c) == 2 && t == 1) ? 77 : 0;
    };
    return static_cast<ThreadPool*>(closure)->ParallelFor(inner, &task, 3);
  };
  EXPECT_EQ(pool.ParallelFor(outer, &pool, 4), 77);
}

TEST_P(ThreadPoolTest, WorkersWakeUpAfterSleeping) {
  ThreadPool pool(GetParam());
  for (int round = 0; round < 3; ++round) {
    // Long enough for the workers to stop spinning and block.
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    Counter counter(10);
    ASSERT_EQ(pool.ParallelFor(CountTask, &counter, 10), 0);
    for (int32_t t = 0; t < 10; ++t) ASSERT_EQ(counter.runs[t].load(), 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolTest, ::testing::Values(1, 2, 3, 5));

TEST(ThreadPool, ThreeThreadsRunConcurrentlyWithTheCaller) {
  ThreadPool pool(3);
  Rendezvous rendezvous(3);
  ASSERT_EQ(pool.ParallelFor(RendezvousTask, &rendezvous, 3), 0) << "tasks never ran together";
  EXPECT_EQ(rendezvous.threads.size(), 3u);
  EXPECT_EQ(rendezvous.threads.count(std::this_thread::get_id()), 1u);
}

// Many small tasks are claimed in runs (so two cores do not bounce the claim counter once per
// task), but the runs stay small enough that every thread gets some.
TEST(ThreadPool, ManySmallTasksAreSharedByEveryThread) {
  ThreadPool pool(2);
  struct Shared {
    std::vector<std::thread::id> thread_of = std::vector<std::thread::id>(1024);
    std::atomic<int> off_caller{0};
    std::thread::id caller = std::this_thread::get_id();
  } shared;
  auto body = +[](int32_t task, int32_t, void* closure) -> int32_t {
    auto* sh = static_cast<Shared*>(closure);
    sh->thread_of[task] = std::this_thread::get_id();
    if (std::this_thread::get_id() != sh->caller) sh->off_caller++;
    // The caller's first task waits (at most 5 s) for the worker to take a run of its own.
    if (task == 0) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (sh->off_caller.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    }
    return 0;
  };
  ASSERT_EQ(pool.ParallelFor(body, &shared, 1024), 0);
  std::set<std::thread::id> threads(shared.thread_of.begin(), shared.thread_of.end());
  EXPECT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads.count(std::thread::id()), 0u) << "a task did not run";
}

TEST(ThreadPool, FirstErrorIsTheLowestFailingTaskAcrossRuns) {
  ThreadPool pool(3);
  auto body = +[](int32_t task, int32_t, void*) -> int32_t { return task == 300 || task == 999 || task == 700 ? task : 0; };
  EXPECT_EQ(pool.ParallelFor(body, nullptr, 1000), 300);
}

TEST(ThreadPool, OneThreadRunsEverythingOnTheCaller) {
  ThreadPool pool(1);
  EXPECT_EQ(pool.num_threads(), 1);
  Rendezvous rendezvous(1);
  ASSERT_EQ(pool.ParallelFor(RendezvousTask, &rendezvous, 20), 0);
  EXPECT_EQ(rendezvous.threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(ThreadPool, NonPositiveThreadCountMeansOne) {
  EXPECT_EQ(ThreadPool(0).num_threads(), 1);
  EXPECT_EQ(ThreadPool(-4).num_threads(), 1);
  EXPECT_GE(ThreadPool::DefaultThreadCount(), 1);
}

TEST(ThreadPool, NullBodyAndEmptyLoops) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.ParallelFor(nullptr, nullptr, 4), TUNEFARM_ERR_BAD_ARGS);
  EXPECT_EQ(ThreadPool::RunInline(nullptr, nullptr, 4), TUNEFARM_ERR_BAD_ARGS);
  Counter counter(1);
  EXPECT_EQ(pool.ParallelFor(CountTask, &counter, 0), 0);
  EXPECT_EQ(pool.ParallelFor(CountTask, &counter, -3), 0);
  EXPECT_EQ(counter.runs[0].load(), 0);
}

TEST(ThreadPool, RunInlineKeepsOrderAndFirstError) {
  std::vector<int32_t> order;
  auto body = +[](int32_t task, int32_t, void* closure) -> int32_t {
    static_cast<std::vector<int32_t>*>(closure)->push_back(task);
    return task >= 2 ? task * 10 : 0;
  };
  EXPECT_EQ(ThreadPool::RunInline(body, &order, 4), 20);
  EXPECT_EQ(order, (std::vector<int32_t>{0, 1, 2, 3}));
}

TEST(ThreadPool, ConcurrentCallersTakeTurns) {
  ThreadPool pool(3);
  std::atomic<int32_t> bad{0};
  auto caller = [&] {
    for (int i = 0; i < 2000; ++i) {
      Counter counter(7);
      if (pool.ParallelFor(CountTask, &counter, 7) != 0) bad++;
      for (int32_t t = 0; t < 7; ++t) {
        if (counter.runs[t].load() != 1) bad++;
      }
    }
  };
  std::thread a(caller), b(caller);
  a.join();
  b.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(ThreadPool, CreateUseAndDestroyRepeatedly) {
  for (int i = 0; i < 50; ++i) {
    ThreadPool idle(3);  // destroyed without ever running a job
    ThreadPool pool(3);
    Counter counter(5);
    ASSERT_EQ(pool.ParallelFor(CountTask, &counter, 5), 0);
    for (int32_t t = 0; t < 5; ++t) ASSERT_EQ(counter.runs[t].load(), 1);
  }
}

TEST(HostApi, TableDescribesItself) {
  const tunefarm_host_api* api = HostApi();
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api->struct_size, sizeof(tunefarm_host_api));
  EXPECT_NE(api->parallel_for, nullptr);
  EXPECT_EQ(api, HostApi());  // one process-wide table
}

TEST(HostApi, WithoutACurrentPoolTasksRunInlineOnTheCaller) {
  ASSERT_EQ(CurrentPool(), nullptr);
  Rendezvous rendezvous(1);
  EXPECT_EQ(HostApi()->parallel_for(RendezvousTask, &rendezvous, 8), 0);
  EXPECT_EQ(rendezvous.threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(HostApi, ScopedCurrentPoolRoutesToThePool) {
  ThreadPool pool(3);
  {
    ScopedCurrentPool bind(&pool);
    EXPECT_EQ(CurrentPool(), &pool);
    Rendezvous rendezvous(3);
    ASSERT_EQ(HostApi()->parallel_for(RendezvousTask, &rendezvous, 3), 0);
    EXPECT_EQ(rendezvous.threads.size(), 3u);
    {
      ScopedCurrentPool unbind(nullptr);
      EXPECT_EQ(CurrentPool(), nullptr);
    }
    EXPECT_EQ(CurrentPool(), &pool);
  }
  EXPECT_EQ(CurrentPool(), nullptr);
}

TEST(HostApi, CurrentPoolIsPerThread) {
  ThreadPool pool(2);
  ScopedCurrentPool bind(&pool);
  ThreadPool* seen_elsewhere = &pool;
  std::thread([&] { seen_elsewhere = CurrentPool(); }).join();
  EXPECT_EQ(seen_elsewhere, nullptr);
}

}  // namespace
}  // namespace tunefarm::deploy
