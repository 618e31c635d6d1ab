// Per-candidate overhead of a remote measurement: an agent on loopback measures the same
// small kernel (a 4096-float vector add) that this process also runs directly, so the
// difference is what the farm adds per candidate: the RPC, the helper process (one per call),
// loading the kernel, copying inputs and checking the result against the reference's outputs
// (made once per call). Aim: under 5 ms.
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/timing.h"
#include "deploy/kernel_library.h"
#include "device_agent/agent_client.h"
#include "device_agent/agent_server.h"
#include "device_agent/helper_process.h"
#include "device_agent/measure_session.h"
#include "proto/credentials.h"

namespace {

using namespace tunefarm;
using Clock = std::chrono::steady_clock;

constexpr int kBatch = 200;         // candidates in one Measure call, as a tuner round sends
constexpr int kSingleCalls = 50;    // one candidate per call: the RPC round trip each time
constexpr char kToken[] = "bench-token";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// CPU seconds (user + system) used by reaped child processes so far: on a loaded machine the
// wall clock mostly measures the scheduler, this measures the work.
double ChildCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

struct Cost {
  double wall = 0;  // seconds per run
  double cpu = 0;   // child CPU seconds per run
};

v1::MeasureRequest Request(const std::string& sha, int candidates) {
  v1::MeasureRequest request;
  v1::MeasureOptions& options = *request.mutable_options();
  options.set_number(1);
  options.set_repeat(1);
  options.set_threads(1);
  options.set_check_correctness(true);
  request.mutable_reference()->set_sha256(sha);
  request.mutable_reference()->set_entry("vadd_ref");
  for (int i = 0; i < candidates; ++i) {
    v1::Candidate& candidate = *request.add_candidates();
    candidate.set_id(static_cast<uint64_t>(i));
    candidate.mutable_kernel()->set_sha256(sha);
    candidate.mutable_kernel()->set_entry("vadd");
  }
  return request;
}

// Seconds per kernel call, run directly in this process.
double InProcessRun() {
  auto library = deploy::KernelLibrary::Load(AGENT_BENCH_KERNEL);
  if (!library.ok()) {
    std::fprintf(stderr, "%s\n", library.status().ToString().c_str());
    std::exit(1);
  }
  const size_t bytes = 4096 * sizeof(float);
  auto a = deploy::AlignedBuffer::Allocate(bytes), b = deploy::AlignedBuffer::Allocate(bytes),
       c = deploy::AlignedBuffer::Allocate(bytes);
  void* args[] = {a->data(), b->data(), c->data()};
  return bench::MedianSecondsPerCall([&] { (void)(*library)->Call("vadd", args, 3); }, 5, 100);
}

agent::MeasureSpec BenchSpec() {
  agent::MeasureSpec spec;
  spec.reference_path = AGENT_BENCH_KERNEL;
  spec.reference_entry = "vadd_ref";
  spec.atol = 1e-5;
  spec.rtol = 1e-4;
  return spec;
}

// Seconds per candidate measured in this process: the helper's work without the process
// around it. `first`: a new session each time, so the reference and inputs are made again (a
// batch's first candidate); else one session (the later candidates of a batch: check, load,
// input copies, run, compare, one timed run, unload).
double InProcessSession(bool first) {
  const agent::CandidateJob job{AGENT_BENCH_KERNEL, "vadd"};
  agent::MeasureSession kept(BenchSpec(), [](const char*) {});
  return bench::MedianSecondsPerCall(
      [&] {
        agent::MeasureSession fresh(BenchSpec(), [](const char*) {});
        agent::MeasureSession& session = first ? fresh : kept;
        if (session.Measure(job).kind != agent::OutcomeKind::kOk) std::exit(1);
        session.Unload();
      },
      5, 100);
}

// Seconds per start-to-reaped run of a process through the agent's own spawn path: /bin/true
// is the floor any per-candidate process pays on this machine.
Cost Spawn(const std::string& path, const std::vector<std::string>& args) {
  agent::HelperLaunch launch;
  launch.path = path;
  launch.args = args;
  constexpr int kRuns = 50;
  const double cpu = ChildCpuSeconds();
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < kRuns; ++i) {
    if (!agent::RunHelper(launch).ok()) std::exit(1);
  }
  return {Seconds(Clock::now() - start) / kRuns, (ChildCpuSeconds() - cpu) / kRuns};
}

}  // namespace

int main() {
  agent::AgentServerOptions options;
  options.host = "127.0.0.1";
  options.token = kToken;
  options.identity.key = "bench";
  options.limits.helper_path = TUNEFARM_MEASURE_BIN;
  options.limits.memory_limit_bytes = int64_t{4} << 30;
  auto server = agent::AgentServer::Start(options);
  if (!server.ok()) {
    std::fprintf(stderr, "agent: %s\n", std::string(server.status().message()).c_str());
    return 1;
  }
  agent::AgentClient client(wire::MakeChannel((*server)->address(), {}).value(), kToken);
  auto uploaded = client.Upload(ReadFile(AGENT_BENCH_KERNEL));
  if (!uploaded.ok()) return 1;
  const std::string sha = uploaded->sha256();
  (void)client.MeasureAll(Request(sha, 5));  // warm-up: page cache, connection

  const int64_t helpers_before_batch = client.Info()->helpers_started();
  const double cpu_before = ChildCpuSeconds();
  Clock::time_point start = Clock::now();
  auto batch = client.MeasureAll(Request(sha, kBatch));
  const double batched = Seconds(Clock::now() - start) / kBatch;
  // The call's last result can arrive before its helper is reaped (and counted): wait for it.
  while (client.Info()->measuring()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const double batched_cpu = (ChildCpuSeconds() - cpu_before) / kBatch;
  const int64_t helpers_after_batch = client.Info()->helpers_started();
  if (!batch.ok() || batch->size() != kBatch) {
    std::fprintf(stderr, "batch failed\n");
    return 1;
  }
  double kernel_in_agent = 0;
  for (const v1::MeasureResult& r : *batch) {
    if (r.error_kind() != v1::ERROR_KIND_NONE || !r.correct()) {
      std::fprintf(stderr, "candidate %llu: %s\n", static_cast<unsigned long long>(r.id()),
                   r.message().c_str());
      return 1;
    }
    kernel_in_agent += r.costs_sec(0) / kBatch;
  }
  start = Clock::now();
  for (int i = 0; i < kSingleCalls; ++i) {
    if (!client.MeasureAll(Request(sha, 1)).ok()) return 1;
  }
  const double single = Seconds(Clock::now() - start) / kSingleCalls;
  const double run = InProcessRun();
  const double first_session = InProcessSession(/*first=*/true);
  const double session = InProcessSession(/*first=*/false);
  const Cost spawn_true = Spawn("/bin/true", {});
  // The helper finds its stdin at end of file: its start and exit, no candidate.
  const Cost spawn_helper = Spawn(TUNEFARM_MEASURE_BIN, agent::MeasureArgs(BenchSpec()));

  std::printf("agent overhead, vadd of 4096 floats, 1 thread, number=1 repeat=1, checked\n");
  std::printf("  in-process kernel run                 %9.1f us\n", run * 1e6);
  std::printf("  kernel run as timed inside the helper %9.1f us\n", kernel_in_agent * 1e6);
  std::printf("  in-process, a batch's first candidate  %9.1f us  (+ reference and inputs)\n",
              first_session * 1e6);
  std::printf("  in-process, a later candidate          %9.1f us  (check, load, run, compare, unload)\n",
              session * 1e6);
  std::printf("                                             wall     child CPU\n");
  std::printf("  spawn of /bin/true (process floor)     %9.3f ms %9.3f ms\n", spawn_true.wall * 1e3,
              spawn_true.cpu * 1e3);
  std::printf("  helper started and stopped            %9.3f ms %9.3f ms\n",
              spawn_helper.wall * 1e3, spawn_helper.cpu * 1e3);
  std::printf("  remote, %d candidates in one call    %9.3f ms %9.3f ms per candidate\n", kBatch,
              batched * 1e3, batched_cpu * 1e3);
  std::printf("  helpers started for that call         %9lld\n",
              static_cast<long long>(helpers_after_batch - helpers_before_batch));
  std::printf("  remote, one candidate per call        %9.3f ms per candidate\n", single * 1e3);
  std::printf("  overhead per candidate (batched - in-process run): %.3f ms (aim < 5 ms), %.0fx the run\n",
              (batched - run) * 1e3, batched / run);
  (*server)->Stop();
  return 0;
}
