// The helper's process setup, checked with /bin/sh standing in for tunefarm-measure.
#include "device_agent/helper_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace tunefarm::agent {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

HelperRun Sh(const std::string& script, std::chrono::milliseconds timeout = 5s,
             const std::atomic<bool>* cancelled = nullptr) {
  HelperLaunch launch;
  launch.path = "/bin/sh";
  launch.args = {"-c", script};
  launch.timeout = timeout;
  launch.cancelled = cancelled;
  absl::StatusOr<HelperRun> run = RunHelper(launch);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.value_or(HelperRun());
}

// True once `pid` is gone or a zombie.
bool Dead(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && text.size() > paren + 2 && text[paren + 2] == 'Z';
}

TEST(HelperProcess, TheEnvironmentHoldsNoToken) {
  setenv("TUNEFARM_TOKEN", "secret-in-the-agent", 1);
  setenv("SOMETHING_ELSE", "also-not-passed", 1);
  const HelperRun run = Sh("env >&3");
  unsetenv("TUNEFARM_TOKEN");
  unsetenv("SOMETHING_ELSE");
  EXPECT_TRUE(run.exited);
  EXPECT_EQ(run.output.find("secret-in-the-agent"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("SOMETHING_ELSE"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("PATH="), std::string::npos) << run.output;
  for (const std::string& entry : HelperEnvironment()) {
    EXPECT_TRUE(entry.rfind("PATH=", 0) == 0 || entry.rfind("LD_LIBRARY_PATH=", 0) == 0) << entry;
  }
}

TEST(HelperProcess, OnlyStdioAndTheResultPipeAreOpen) {
  const int leaked = open("/dev/null", O_RDONLY);  // no O_CLOEXEC: would be inherited by fork+exec
  ASSERT_GE(leaked, 0);
  // `exec >&3` rather than `ls >&3`: a redirected command makes the shell park a copy of
  // stdout on a descriptor of its own; `; true` keeps ls a child listing the shell's table.
  const HelperRun run = Sh("exec >&3; ls /proc/$$/fd; true");
  close(leaked);
  EXPECT_EQ(run.output, "0\n1\n2\n3\n");
}

TEST(HelperProcess, OwnProcessGroupEmptySignalMaskDefaultDispositions) {
  // The agent blocks SIGTERM in every thread; the helper must not inherit that.
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &old);
  signal(SIGPIPE, SIG_IGN);  // gRPC ignores SIGPIPE in the agent
  const HelperRun run =
      // exec: read the mask of a process at rest. The shell itself blocks every signal for a
      // moment around each fork, so reading its /proc/PID/status while it waits on grep is racy.
      Sh("echo $$ $(cut -d' ' -f5 /proc/$$/stat) >&3; exec grep -E 'SigBlk|SigIgn' /proc/self/status >&3");
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  signal(SIGPIPE, SIG_DFL);
  std::istringstream lines(run.output);
  std::string pid, pgid;
  lines >> pid >> pgid;
  EXPECT_EQ(pid, pgid) << "the helper leads a process group of its own";
  EXPECT_NE(run.output.find("SigBlk:\t0000000000000000"), std::string::npos) << run.output;
  // (glibc's posix_spawn leaves its two internal signals, 32 and 33, ignored; ours are not.)
  const size_t ignored_at = run.output.find("SigIgn:\t");
  ASSERT_NE(ignored_at, std::string::npos) << run.output;
  const uint64_t ignored = std::stoull(run.output.substr(ignored_at + 8, 16), nullptr, 16);
  EXPECT_EQ(ignored & (uint64_t{1} << (SIGPIPE - 1)), 0u) << run.output;
  EXPECT_EQ(ignored & (uint64_t{1} << (SIGTERM - 1)), 0u) << run.output;
}

TEST(HelperProcess, TheDeadlineKillsTheWholeProcessGroup) {
  const Clock::time_point start = Clock::now();
  const HelperRun run = Sh("sleep 30 & echo $! >&3; wait", 300ms);
  EXPECT_LT(Clock::now() - start, 2s);
  EXPECT_TRUE(run.timed_out);
  EXPECT_FALSE(run.exited);
  EXPECT_EQ(run.signal, SIGKILL);
  const pid_t grandchild = std::stoi(run.output);
  for (int i = 0; i < 200 && !Dead(grandchild); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(Dead(grandchild)) << "the kernel's own child survived";
  EXPECT_GE(run.finished_unix_us - run.started_unix_us, 300000);
}

TEST(HelperProcess, CancellationKillsPromptly) {
  std::atomic<bool> cancelled{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(100ms);
    cancelled = true;
  });
  const Clock::time_point start = Clock::now();
  const HelperRun run = Sh("sleep 30", 30s, &cancelled);
  canceller.join();
  EXPECT_TRUE(run.cancelled);
  EXPECT_LT(Clock::now() - start, 1s);
}

TEST(HelperProcess, ExitCodesSignalsAndAFloodOfOutput) {
  HelperRun run = Sh("echo partial >&3; exit 5");
  EXPECT_TRUE(run.exited);
  EXPECT_EQ(run.exit_code, 5);
  EXPECT_EQ(run.output, "partial\n");
  run = Sh("kill -SEGV $$");
  EXPECT_FALSE(run.exited);
  EXPECT_EQ(run.signal, SIGSEGV);
  run = Sh("yes >&3", 300ms);
  EXPECT_TRUE(run.timed_out);
  EXPECT_LE(run.output.size(), kMaxHelperOutputBytes);
  EXPECT_GT(run.output.size(), 0u);
}

TEST(HelperProcess, ServesJobsOneAtATimeUntilItsInputEnds) {
  absl::StatusOr<std::unique_ptr<HelperProcess>> helper = HelperProcess::Spawn(
      "/bin/sh", {"-c", "while read job; do echo \"done $job\" >&3; done; exit 4"});
  ASSERT_TRUE(helper.ok()) << helper.status();
  const auto a_line = [](std::string_view output) {
    return output.find('\n') != std::string_view::npos;
  };
  for (const std::string job : {"one", "two"}) {
    ASSERT_TRUE((*helper)->Send(job + "\n"));
    EXPECT_EQ((*helper)->WaitFor(Clock::now() + 5s, nullptr, a_line), HelperProcess::Wait::kDone);
    EXPECT_EQ((*helper)->TakeOutput(), "done " + job + "\n");
  }
  (*helper)->CloseInput();
  EXPECT_EQ((*helper)->WaitFor(Clock::now() + 5s, nullptr, a_line), HelperProcess::Wait::kEnded);
  (*helper)->Kill();
  EXPECT_TRUE((*helper)->exited());
  EXPECT_EQ((*helper)->exit_code(), 4);
}

TEST(HelperProcess, AJobForAHelperThatIsGoneIsRefusedWithoutSigpipe) {
  absl::StatusOr<std::unique_ptr<HelperProcess>> helper =
      HelperProcess::Spawn("/bin/sh", {"-c", "exit 0"});
  ASSERT_TRUE(helper.ok()) << helper.status();
  EXPECT_EQ((*helper)->WaitFor(Clock::now() + 5s, nullptr, nullptr), HelperProcess::Wait::kEnded);
  (*helper)->Kill();
  EXPECT_FALSE((*helper)->Send("job\n"));  // this process is still here: no SIGPIPE
}

TEST(HelperProcess, AMissingHelperIsAnError) {
  HelperLaunch launch;
  launch.path = "/nonexistent/tunefarm-measure";
  absl::StatusOr<HelperRun> run = RunHelper(launch);
  EXPECT_TRUE(absl::IsFailedPrecondition(run.status())) << run.status();
  EXPECT_NE(run.status().message().find("/nonexistent/tunefarm-measure"), std::string::npos);
}

TEST(HelperProcess, UnixTimeNeverGoesBackwards) {
  int64_t last = UnixMicrosNow();
  EXPECT_GT(last, int64_t{1600000000} * 1000000);  // after 2020
  for (int i = 0; i < 1000; ++i) {
    const int64_t now = UnixMicrosNow();
    ASSERT_GE(now, last);
    last = now;
  }
}

}  // namespace
}  // namespace tunefarm::agent
