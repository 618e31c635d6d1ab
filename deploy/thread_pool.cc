#include "deploy/thread_pool.h"

#include <algorithm>
#include <exception>

namespace tunefarm::deploy {
namespace {

constexpr uint64_t kNoError = ~uint64_t{0};
// The task index of a claim value while its job's fields are being written.
constexpr uint32_t kClosed = ~uint32_t{0};

constexpr uint64_t Pack(uint32_t generation, uint32_t task) {
  return (static_cast<uint64_t>(generation) << 32) | task;
}
constexpr uint32_t TaskOf(uint64_t claim) { return static_cast<uint32_t>(claim); }
// Back-to-back parallel loops of one kernel call (the common case) should find the workers
// awake, while an idle pool should soon stop burning cores: spin with pause for a few
// microseconds, then keep spinning with sched_yield (so that, on an oversubscribed machine,
// the thread being waited for gets the core), then block.
constexpr int kPauseIterations = 256;
constexpr int kSpinIterations = 4096;
// Claims per thread in one parallel loop (see RunClaimedTasks).
constexpr int32_t kChunksPerThread = 4;

// True while this thread runs a task (workers: always), so nested parallel loops run inline.
thread_local bool t_inside_task = false;
thread_local ThreadPool* t_current_pool = nullptr;

inline void SpinWait(int iteration) {
  if (iteration >= kPauseIterations) {
    std::this_thread::yield();
    return;
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield");
#endif
}

// Sets t_inside_task for a scope and restores the old value.
class InsideTaskScope {
 public:
  InsideTaskScope() : previous_(t_inside_task) { t_inside_task = true; }
  ~InsideTaskScope() { t_inside_task = previous_; }

 private:
  bool previous_;
};

int32_t HostParallelFor(tunefarm_parallel_body body, void* closure, int32_t num_tasks) {
  ThreadPool* pool = t_current_pool;
  if (pool == nullptr) return ThreadPool::RunInline(body, closure, num_tasks);
  return pool->ParallelFor(body, closure, num_tasks);
}

const tunefarm_host_api kHostApi = {
    .struct_size = sizeof(tunefarm_host_api),
    .parallel_for = &HostParallelFor,
};

}  // namespace

ThreadPool::ThreadPool(int32_t num_threads)
    : claim_(Pack(0, kClosed)), first_error_(kNoError) {
  const int32_t num_workers = num_threads > 1 ? num_threads - 1 : 0;
  try {
    workers_.reserve(num_workers);
    for (int32_t i = 0; i < num_workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  } catch (const std::exception&) {
    // system_error (no more threads) or bad_alloc: keep the threads we have;
    // num_threads() tells the caller.
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> dispatch(dispatch_mutex_);  // let a running job finish
    std::lock_guard<std::mutex> lock(job_mutex_);
    stop_.store(true, std::memory_order_relaxed);
    claim_.store(Pack(generation_ + 1, kClosed), std::memory_order_seq_cst);  // a change
  }
  job_cv_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

int32_t ThreadPool::DefaultThreadCount() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int32_t>(n);
}

int32_t ThreadPool::RunInline(tunefarm_parallel_body body, void* closure, int32_t num_tasks) {
  if (body == nullptr) return TUNEFARM_ERR_BAD_ARGS;
  InsideTaskScope inside;
  int32_t first_error = 0;
  for (int32_t task = 0; task < num_tasks; ++task) {
    const int32_t code = body(task, num_tasks, closure);
    if (code != 0 && first_error == 0) first_error = code;
  }
  return first_error;
}

int32_t ThreadPool::ParallelFor(tunefarm_parallel_body body, void* closure, int32_t num_tasks) {
  if (body == nullptr) return TUNEFARM_ERR_BAD_ARGS;
  if (num_tasks <= 0) return 0;
  if (t_inside_task || workers_.empty() || num_tasks == 1) {
    return RunInline(body, closure, num_tasks);
  }

  std::lock_guard<std::mutex> dispatch(dispatch_mutex_);
  const uint32_t generation = ++generation_;
  claim_.store(Pack(generation, kClosed), std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);  // the closing store before the fields
  body_.store(body, std::memory_order_relaxed);
  closure_.store(closure, std::memory_order_relaxed);
  num_tasks_.store(num_tasks, std::memory_order_relaxed);
  done_tasks_.store(0, std::memory_order_relaxed);
  first_error_.store(kNoError, std::memory_order_relaxed);
  claim_.store(Pack(generation, 0), std::memory_order_seq_cst);  // publishes the job

  if (sleeping_workers_.load(std::memory_order_seq_cst) > 0) {
    // A worker that counted itself asleep holds job_mutex_ until it is inside wait(), so
    // taking the mutex here guarantees the notification reaches it.
    { std::lock_guard<std::mutex> lock(job_mutex_); }
    if (num_tasks - 1 >= static_cast<int32_t>(workers_.size())) {
      job_cv_.notify_all();
    } else {
      for (int32_t i = 0; i < num_tasks - 1; ++i) job_cv_.notify_one();
    }
  }

  {
    InsideTaskScope inside;
    RunClaimedTasks(Pack(generation, 0));
  }
  WaitForTasks(num_tasks);

  const uint64_t error = first_error_.load(std::memory_order_relaxed);
  return error == kNoError ? 0 : static_cast<int32_t>(static_cast<uint32_t>(error));
}

uint64_t ThreadPool::RunClaimedTasks(uint64_t claim) {
  for (;;) {
    const uint32_t task = TaskOf(claim);
    if (task == kClosed) return claim;  // the next job is being written
    const tunefarm_parallel_body body = body_.load(std::memory_order_relaxed);
    void* const closure = closure_.load(std::memory_order_relaxed);
    const int32_t num_tasks = num_tasks_.load(std::memory_order_relaxed);
    // Pairs with the dispatcher's release fence: if these fields came from a newer job, the
    // exchange below sees that job's closing store and fails.
    std::atomic_thread_fence(std::memory_order_acquire);
    if (task >= static_cast<uint32_t>(num_tasks)) return claim;  // nothing left
    // Claim a run of tasks, not one: the claim and the done count are cache lines every thread
    // writes, and a kernel loop of a thousand small tasks spent as long bouncing them between
    // cores as computing. kChunksPerThread runs per thread still balance uneven tasks.
    const uint32_t chunk = ChunkSize(num_tasks);
    if (!claim_.compare_exchange_weak(claim, claim + chunk, std::memory_order_acquire,
                                      std::memory_order_acquire)) {
      continue;  // `claim` now holds the current value
    }
    const uint32_t end = std::min<uint32_t>(task + chunk, static_cast<uint32_t>(num_tasks));
    for (uint32_t t = task; t < end; ++t) {
      const int32_t code = body(static_cast<int32_t>(t), num_tasks, closure);
      if (code != 0) RecordError(static_cast<int32_t>(t), code);
    }
    const int32_t ran = static_cast<int32_t>(end - task);
    const int32_t done = done_tasks_.fetch_add(ran, std::memory_order_seq_cst) + ran;
    if (done == num_tasks && dispatcher_sleeping_.load(std::memory_order_seq_cst)) {
      { std::lock_guard<std::mutex> lock(done_mutex_); }
      done_cv_.notify_one();
    }
    claim += chunk;
  }
}

uint32_t ThreadPool::ChunkSize(int32_t num_tasks) const {
  const int32_t runs = kChunksPerThread * (static_cast<int32_t>(workers_.size()) + 1);
  return static_cast<uint32_t>(std::max<int32_t>(1, num_tasks / runs));
}

void ThreadPool::RecordError(int32_t task, int32_t code) {
  const uint64_t packed =
      (static_cast<uint64_t>(task) << 32) | static_cast<uint64_t>(static_cast<uint32_t>(code));
  uint64_t current = first_error_.load(std::memory_order_relaxed);
  while (packed < current &&
         !first_error_.compare_exchange_weak(current, packed, std::memory_order_relaxed)) {
  }
}

void ThreadPool::WorkerLoop() {
  t_inside_task = true;  // whatever a worker runs is a task
  // The constructor's value, not the current one: a job may have been published before this
  // thread started, and it should still help with it.
  uint64_t last = Pack(0, kClosed);
  for (;;) {
    const uint64_t claim = WaitForClaimChange(last);
    if (stop_.load(std::memory_order_relaxed)) return;
    last = RunClaimedTasks(claim);
  }
}

uint64_t ThreadPool::WaitForClaimChange(uint64_t last) {
  for (int i = 0; i < kSpinIterations; ++i) {
    const uint64_t claim = claim_.load(std::memory_order_acquire);
    // stop_ too: the destructor's final claim value may be the one this worker saw last.
    if (claim != last || stop_.load(std::memory_order_relaxed)) return claim;
    SpinWait(i);
  }
  std::unique_lock<std::mutex> lock(job_mutex_);
  sleeping_workers_.fetch_add(1, std::memory_order_seq_cst);
  uint64_t claim;
  job_cv_.wait(lock, [&] {
    claim = claim_.load(std::memory_order_seq_cst);
    return claim != last || stop_.load(std::memory_order_relaxed);
  });
  sleeping_workers_.fetch_sub(1, std::memory_order_relaxed);
  return claim;
}

void ThreadPool::WaitForTasks(int32_t num_tasks) {
  for (int i = 0; i < kSpinIterations; ++i) {
    if (done_tasks_.load(std::memory_order_acquire) == num_tasks) return;
    SpinWait(i);
  }
  std::unique_lock<std::mutex> lock(done_mutex_);
  dispatcher_sleeping_.store(true, std::memory_order_seq_cst);
  done_cv_.wait(lock, [&] {
    return done_tasks_.load(std::memory_order_seq_cst) == num_tasks;
  });
  dispatcher_sleeping_.store(false, std::memory_order_relaxed);
}

const tunefarm_host_api* HostApi() { return &kHostApi; }

ThreadPool* CurrentPool() { return t_current_pool; }

ScopedCurrentPool::ScopedCurrentPool(ThreadPool* pool) : previous_(t_current_pool) {
  t_current_pool = pool;
}

ScopedCurrentPool::~ScopedCurrentPool() { t_current_pool = previous_; }

}  // namespace tunefarm::deploy
