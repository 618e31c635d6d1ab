// What a candidate can leave behind in its helper, seen by comparing snapshots.
#include "device_agent/process_state.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace tunefarm::agent {
namespace {

void Ignore(int) {}

TEST(ProcessState, NothingChangedIsNothing) {
  const ProcessState before = SnapshotProcessState();
  EXPECT_GE(before.threads, 1);
  EXPECT_EQ(WhatChanged(before, SnapshotProcessState()), "");
}

TEST(ProcessState, AThreadStillRunningIsFound) {
  const ProcessState before = SnapshotProcessState();
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  std::thread left([&] {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return stop; });
  });
  const std::string changed = WhatChanged(before, SnapshotProcessState());
  {
    std::lock_guard lock(mu);
    stop = true;
  }
  cv.notify_all();
  left.join();
  EXPECT_NE(changed.find("threads"), std::string::npos) << changed;
}

TEST(ProcessState, ASignalHandlerOrMaskIsFound) {
  const ProcessState before = SnapshotProcessState();
  auto* old = signal(SIGUSR2, Ignore);
  EXPECT_EQ(WhatChanged(before, SnapshotProcessState()),
            "the candidate changed a signal's handling");
  signal(SIGUSR2, SIG_IGN);
  EXPECT_EQ(WhatChanged(before, SnapshotProcessState()),
            "the candidate changed a signal's handling");
  signal(SIGUSR2, old);
  sigset_t usr2, saved;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &usr2, &saved);
  EXPECT_EQ(WhatChanged(before, SnapshotProcessState()), "the candidate changed the signal mask");
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  EXPECT_EQ(WhatChanged(before, SnapshotProcessState()), "");
}

TEST(ProcessState, AChildProcessIsFound) {
  const ProcessState before = SnapshotProcessState();
  ASSERT_FALSE(before.has_children);
  pid_t child = 0;
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  ASSERT_EQ(posix_spawn(&child, "/bin/true", nullptr, nullptr, argv, nullptr), 0);
  // Even once it has exited: until reaped it is the candidate's leftover.
  const std::string changed = WhatChanged(before, SnapshotProcessState());
  waitpid(child, nullptr, 0);
  EXPECT_EQ(changed, "the candidate left a child process");
  EXPECT_EQ(WhatChanged(before, SnapshotProcessState()), "");
}

TEST(ProcessState, LeakedAddressSpaceBeyondTheAllowanceIsFound) {
  const ProcessState before = SnapshotProcessState();
  const size_t bytes = static_cast<size_t>(kMaxAddressSpaceGrowth) * 2;
  void* leak = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(leak, MAP_FAILED);
  const std::string changed = WhatChanged(before, SnapshotProcessState());
  munmap(leak, bytes);
  EXPECT_NE(changed.find("MiB of address space"), std::string::npos) << changed;
}

}  // namespace
}  // namespace tunefarm::agent
