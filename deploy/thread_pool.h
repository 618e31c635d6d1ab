// The thread pool behind tunefarm_host_api::parallel_for.
//
// A pool of N threads is the calling thread plus N-1 workers; N=1 runs everything on the
// caller. ParallelFor hands tasks out through one atomic claim word, the caller takes tasks too,
// and it returns when every task has finished. It runs once per parallel loop of every kernel
// call, so the hot path allocates nothing: workers spin briefly on the job's claim word, then
// sleep on a condition variable.
//
// Nesting: a ParallelFor issued from inside a task (on any pool) runs its tasks inline, in
// order, on that thread: the outer loop already keeps every thread busy, and an inner loop
// that waited for the pool's threads could deadlock on them.
#ifndef TUNEFARM_DEPLOY_THREAD_POOL_H_
#define TUNEFARM_DEPLOY_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "deploy/tunefarm_abi.h"

namespace tunefarm::deploy {

class ThreadPool {
 public:
  // num_threads < 1 counts as 1. If the system refuses to start a thread, the pool keeps the
  // ones it got (num_threads() reports the real count) instead of throwing.
  explicit ThreadPool(int32_t num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that run tasks, the caller included.
  int32_t num_threads() const { return static_cast<int32_t>(workers_.size()) + 1; }

  // Runs body(t, num_tasks, closure) for every t in [0, num_tasks), each exactly once, and
  // waits for all. Every task runs even when one fails; the result is the code of the failing
  // task with the lowest index (0 if none failed), so it does not depend on timing.
  // num_tasks <= 0 returns 0 at once; a null body returns TUNEFARM_ERR_BAD_ARGS.
  // Concurrent callers from outside the pool take turns.
  int32_t ParallelFor(tunefarm_parallel_body body, void* closure, int32_t num_tasks);

  // Runs the tasks on the calling thread, in order, with the same result rule.
  static int32_t RunInline(tunefarm_parallel_body body, void* closure, int32_t num_tasks);

  // std::thread::hardware_concurrency(), at least 1.
  static int32_t DefaultThreadCount();

 private:
  void WorkerLoop();
  // Blocks until claim_ differs from `last` (or the pool stops); returns the new value.
  uint64_t WaitForClaimChange(uint64_t last);
  // Claims and runs tasks starting from the observed claim value `claim` until the job has
  // none left for this thread; returns the last claim value seen.
  uint64_t RunClaimedTasks(uint64_t claim);
  // How many consecutive tasks one claim takes.
  uint32_t ChunkSize(int32_t num_tasks) const;
  void WaitForTasks(int32_t num_tasks);
  void RecordError(int32_t task, int32_t code);

  std::vector<std::thread> workers_;

  // The job. claim_ packs (job generation << 32 | next task index); a worker takes task i by
  // a compare-exchange from (g, i) to (g, i+1), which succeeds only while job g is still the
  // published one. To publish job g the dispatcher first stores (g, kClosed), then writes the
  // job fields (relaxed atomics, after a release fence), then stores (g, 0) with release: a
  // worker that read fields of a newer job than the claim value it holds fails its exchange
  // (a seqlock), so a slow worker never runs a task of the wrong job. The dispatcher waits for
  // the tasks, not for the workers: a worker that never got scheduled does not delay it.
  std::atomic<uint64_t> claim_;
  std::atomic<tunefarm_parallel_body> body_{nullptr};
  std::atomic<void*> closure_{nullptr};
  std::atomic<int32_t> num_tasks_{0};
  std::atomic<int32_t> done_tasks_{0};
  // (task << 32 | uint32 code) of the lowest failing task; all ones when none failed.
  std::atomic<uint64_t> first_error_;
  uint32_t generation_ = 0;  // of the last published job; guarded by dispatch_mutex_
  std::atomic<bool> stop_{false};
  std::mutex dispatch_mutex_;  // one job at a time

  // Idle workers wait on job_cv_; the dispatcher takes job_mutex_ before notifying only if
  // sleeping_workers_ says someone may be asleep (seq_cst on both sides: no lost wake-up).
  std::mutex job_mutex_;
  std::condition_variable job_cv_;
  std::atomic<int32_t> sleeping_workers_{0};

  // The same handshake in the other direction: the worker finishing the last task wakes a
  // dispatcher that went to sleep waiting for it.
  std::mutex done_mutex_;
  std::condition_variable done_cv_;
  std::atomic<bool> dispatcher_sleeping_{false};
};

// Binding the C host API to a pool. A kernel's parallel_for is a plain C function pointer with
// no context argument, so the pool it runs on is a thread_local "current pool" of the calling
// thread, set for the duration of a kernel call (KernelLibrary::Call does it). thread_local
// rather than one process-wide pointer, so that two sessions on two threads (e.g. the agent's
// reference kernel on 1 thread and a candidate on 8) can use different pools at the same time.
// With no current pool, parallel_for runs its tasks inline on the caller.

// The table the loader writes into every kernel's `tunefarm_host_api` symbol. Process-wide,
// immutable, never freed.
const tunefarm_host_api* HostApi();

// The calling thread's current pool, or null.
ThreadPool* CurrentPool();

// Makes `pool` (may be null: inline) the calling thread's current pool until destruction,
// then restores the previous one.
class ScopedCurrentPool {
 public:
  explicit ScopedCurrentPool(ThreadPool* pool);
  ~ScopedCurrentPool();
  ScopedCurrentPool(const ScopedCurrentPool&) = delete;
  ScopedCurrentPool& operator=(const ScopedCurrentPool&) = delete;

 private:
  ThreadPool* previous_;
};

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_THREAD_POOL_H_
