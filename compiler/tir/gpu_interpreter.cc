#include "compiler/tir/gpu_interpreter.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/strings.h"
#include "compiler/tir/gpu_barriers.h"
#include "compiler/tir/interpreter.h"

namespace tunefarm::tir {
namespace {

// Runs a block's threads one at a time, in rank order, phase by phase (a phase ends at a
// barrier that every thread has reached).
class BlockBaton {
 public:
  explicit BlockBaton(int threads) : n_(threads), done_(threads, false), cv_(threads) {}

  void WaitTurn(int rank) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_[rank].wait(lock, [&] { return turn_ == rank || aborted_; });
  }

  // At a barrier: the turn passes on, and comes back in the next phase. False when the block
  // can never pass this barrier (a thread ended without reaching it).
  bool Arrive(int rank) {
    std::unique_lock<std::mutex> lock(mu_);
    PassOn(rank);
    cv_[rank].wait(lock, [&] { return turn_ == rank || aborted_; });
    return !aborted_;
  }

  void Finish(int rank) {
    std::unique_lock<std::mutex> lock(mu_);
    done_[rank] = true;
    ++finished_;
    PassOn(rank);
  }

 private:
  void PassOn(int rank) {  // with mu_ held
    int next = rank + 1;
    while (next < n_ && done_[next]) ++next;
    if (next == n_) {
      if (finished_ > 0 && finished_ < n_) {
        aborted_ = true;  // the others wait at a barrier that the finished ones never reach
      } else if (finished_ == 0) {
        next = 0;  // everyone arrived: the next phase
      }
    }
    turn_ = next;
    // Only the thread whose turn it is wakes (all of them when the block gives up).
    if (aborted_) {
      for (std::condition_variable& cv : cv_) cv.notify_one();
    } else if (turn_ < n_) {
      cv_[turn_].notify_one();
    }
  }

  const int n_;
  std::mutex mu_;
  std::vector<bool> done_;
  std::vector<std::condition_variable> cv_;  // one per thread
  int finished_ = 0;
  int turn_ = 0;
  bool aborted_ = false;
};

absl::Status RunBlock(const PrimFunc& f, const GpuLaunch& launch, const Stmt& body, const std::vector<void*>& args,
                      char* workspace, const std::array<int64_t, 3>& block_index) {
  std::vector<std::vector<char>> storage(f.buffers.size());
  std::vector<char*> shared(f.buffers.size(), nullptr);
  for (size_t b = 0; b < f.buffers.size(); ++b) {
    if (f.buffers[b].scope != BufferScope::kShared) continue;
    storage[b].assign(f.buffers[b].NumBytes() + 1, static_cast<char>(0xff));
    shared[b] = storage[b].data();
  }
  const int64_t n = launch.block[0] * launch.block[1] * launch.block[2];
  BlockBaton baton(static_cast<int>(n));
  std::vector<absl::Status> status(n);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < n; ++rank) {
    threads.emplace_back([&, rank] {
      GpuThreadContext thread;
      thread.block_index = block_index;
      thread.thread_index = {rank % launch.block[0], rank / launch.block[0] % launch.block[1],
                             rank / (launch.block[0] * launch.block[1])};
      thread.shared = shared;
      thread.barrier = [&baton, rank] { return baton.Arrive(rank); };
      baton.WaitTurn(rank);
      status[rank] = InterpretGpuThread(f, body, args, workspace, thread);
      baton.Finish(rank);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int rank = 0; rank < n; ++rank) {
    if (!status[rank].ok()) {
      return absl::Status(status[rank].code(), StrCat("block (", StrJoin(block_index, ","), ") thread ", rank, ": ",
                                                      std::string(status[rank].message())));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status InterpretAsGpu(const PrimFunc& f, const std::vector<void*>& args, const GpuLimits& limits,
                            bool insert_barriers) {
  if (static_cast<int>(args.size()) != f.num_args)
    return absl::InvalidArgumentError(StrCat(f.name, ": expected ", f.num_args, " arguments, got ", args.size()));
  absl::StatusOr<std::vector<GpuLaunch>> launches = PlanGpuLaunches(f, limits);
  if (!launches.ok()) return launches.status();
  std::unique_ptr<char[]> workspace(new char[f.workspace_bytes + 64]);
  char* aligned = workspace.get() + (64 - reinterpret_cast<uintptr_t>(workspace.get()) % 64) % 64;
  for (const GpuLaunch& launch : *launches) {
    absl::StatusOr<Stmt> body = insert_barriers ? InsertSharedMemoryBarriers(f, launch.body) : launch.body;
    if (!body.ok()) return body.status();
    for (int64_t z = 0; z < launch.grid[2]; ++z)
      for (int64_t y = 0; y < launch.grid[1]; ++y)
        for (int64_t x = 0; x < launch.grid[0]; ++x)
          if (absl::Status s = RunBlock(f, launch, *body, args, aligned, {x, y, z}); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::tir
