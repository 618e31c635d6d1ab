// Tracker acquire/release throughput with 100 simulated agents, in-process on loopback.
//
// There is no peer tracker to compare with, so the reference is the cheapest call a gRPC
// server can answer: a unary health Check on the same server, timed in the same run. A full
// lease cycle costs a stream open, a GRANTED message and a cancellation, so expect a few round
// trips' worth.
//
//   farm_tracker_bench [--agents N] [--threads T] [--cycles N]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "proto/credentials.h"
#include "proto/health_client.h"
#include "proto/tracker_client.h"
#include "common/command_flags.h"
#include "tracker/tracker_server.h"

namespace tunefarm {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
constexpr char kToken[] = "bench-token";
constexpr char kPool[] = "bench";

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// One acquire, wait for GRANTED, release.
bool Cycle(wire::TrackerClient& client, int i) {
  v1::AcquireRequest want;
  want.set_key(kPool);
  want.set_client_name("bench");
  want.set_priority(i % 4);
  std::unique_ptr<wire::Lease> lease = client.Acquire(want);
  const bool ok = lease->WaitGranted(30s).ok();
  lease->Release();
  return ok;
}

// Mean seconds per call of `fn` over `n` calls in one thread, after a short warm-up.
template <typename Fn>
double SerialMean(int n, Fn fn) {
  for (int i = 0; i < std::max(n / 10, 10); ++i) fn(i);
  const auto start = Clock::now();
  for (int i = 0; i < n; ++i) fn(i);
  return Seconds(Clock::now() - start) / n;
}

// Ops per second of `fn` run `n` times over `threads` threads, each with its own client on the
// shared channel (like a tuner's measurement threads).
template <typename Fn>
double ParallelRate(int threads, int n, Fn fn, const std::shared_ptr<grpc::Channel>& channel) {
  std::vector<std::thread> workers;
  const auto start = Clock::now();
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      wire::TrackerClient client(channel, kToken);
      for (int i = t; i < n; i += threads) fn(client, i);
    });
  }
  for (std::thread& w : workers) w.join();
  return n / Seconds(Clock::now() - start);
}

int Run(int agents, int threads, int cycles) {
  tracker::TrackerServerOptions options;
  options.host = "127.0.0.1";
  options.token = kToken;
  absl::StatusOr<std::unique_ptr<tracker::TrackerServer>> server =
      tracker::TrackerServer::Start(options);
  if (!server.ok()) {
    std::fprintf(stderr, "bench: %s\n", server.status().ToString().c_str());
    return 1;
  }
  auto channel = wire::MakeChannel((*server)->address(), {}).value();
  wire::TrackerClient admin(channel, kToken);

  // The simulated agents: registered, and kept alive by heartbeats while the bench runs.
  std::vector<std::string> ids;
  for (int i = 0; i < agents; ++i) {
    v1::RegisterRequest agent;
    agent.set_key(kPool);
    agent.set_address("10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250) + ":9191");
    agent.set_agent_name("sim-" + std::to_string(i));
    agent.mutable_facts()->set_cpu_model("Simulated CPU");
    ids.push_back(admin.Register(agent).value().agent_id());
  }
  std::atomic<bool> stop{false};
  std::thread heartbeats([&] {
    wire::TrackerClient hb(channel, kToken);
    while (!stop) {
      for (const std::string& id : ids) (void)hb.Heartbeat(id);
      std::this_thread::sleep_for(200ms);
    }
  });

  const int serial_n = std::max(cycles / 4, 100);
  auto health = [&](int) { return wire::CheckHealth(channel, "tunefarm.v1.Tracker", 10s).ok(); };
  const double cycle_sec = SerialMean(serial_n, [&](int i) { Cycle(admin, i); });
  const double health_sec = SerialMean(serial_n, health);

  std::atomic<int> granted{0};
  const double cycles_per_sec = ParallelRate(threads, cycles, [&](wire::TrackerClient& client, int i) {
    granted += Cycle(client, i) ? 1 : 0;
  }, channel);
  const double health_per_sec = ParallelRate(threads, cycles, [&](wire::TrackerClient&, int i) {
    health(i);
  }, channel);
  stop = true;
  heartbeats.join();

  const v1::ListDevicesReply list = admin.ListDevices().value();
  std::printf("tracker bench: %d agents in pool '%s', %d cycles (%d granted), %d client threads\n",
              list.pools(0).devices(), kPool, cycles, granted.load(), threads);
  std::printf("                                  1 thread: per op    %d threads: ops/s\n", threads);
  std::printf("  acquire+grant+release cycle     %10.1f us         %10.0f\n", cycle_sec * 1e6,
              cycles_per_sec);
  std::printf("  gRPC unary health Check (ref)   %10.1f us         %10.0f\n", health_sec * 1e6,
              health_per_sec);
  std::printf("  ratio cycle / health Check      %10.2f x          %10.2f x\n", cycle_sec / health_sec,
              health_per_sec / cycles_per_sec);
  (*server)->Stop();
  return granted.load() == cycles ? 0 : 1;
}

}  // namespace
}  // namespace tunefarm

int main(int argc, char** argv) {
  static const tunefarm::CommandSpec spec{
      "farm_tracker_bench", "", {{"agents", 0, "N", ""}, {"threads", 0, "T", ""}, {"cycles", 0, "N", ""}}, {}};
  absl::StatusOr<tunefarm::ParsedFlags> line = tunefarm::ParsedFlags::Parse(spec, argc, argv);
  if (!line.ok()) {
    std::fprintf(stderr, "bench: %s\nusage: farm_tracker_bench [--agents N] [--threads T] [--cycles N]\n",
                 std::string(line.status().message()).c_str());
    return 2;
  }
  const int agents = static_cast<int>(line->GetInt("agents", 100, 1, 100000).value_or(100));
  const int threads = static_cast<int>(line->GetInt("threads", 8, 1, 1024).value_or(8));
  const int cycles = static_cast<int>(line->GetInt("cycles", 4000, 1, 10000000).value_or(4000));
  return tunefarm::Run(agents, threads, cycles);
}
