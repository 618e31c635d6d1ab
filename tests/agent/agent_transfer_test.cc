// Kernels in and results out: a 10 MB upload under gRPC's default limits, corrupt uploads,
// eviction from the cache, and 200 concurrent Measure calls that each get their own results
// from measurements that never overlap in time.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include "proto/wire_limits.h"
#include "tests/agent/agent_fixture.h"

namespace tunefarm::agent::testing {
namespace {

std::unique_ptr<AgentProcess> StartAgent(std::vector<std::string> args = {}) {
  absl::StatusOr<std::unique_ptr<AgentProcess>> agent = AgentProcess::Start(std::move(args));
  EXPECT_TRUE(agent.ok()) << agent.status();
  return agent.ok() ? std::move(*agent) : nullptr;
}

TEST(AgentTransfer, ATenMegabyteKernelUploadsWithDefaultMessageLimits) {
  std::unique_ptr<AgentProcess> agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  const std::string bytes = ReadBinary(AGENT_KERNEL_BIG);
  ASSERT_GT(bytes.size(), size_t{10} << 20);  // more than twice gRPC's 4 MiB message limit
  const std::vector<v1::Chunk> chunks = MakeChunks(bytes, nullptr);
  for (const v1::Chunk& chunk : chunks) {
    EXPECT_LE(static_cast<int64_t>(chunk.data().size()), wire::kMaxChunkBytes);
  }
  // The channel and the agent both keep gRPC's default message limits.
  absl::StatusOr<v1::UploadReply> reply = agent->client().Upload(bytes);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->size_bytes(), static_cast<int64_t>(bytes.size()));
  EXPECT_EQ(reply->sha256(), chunks.front().sha256());

  const std::string good = UploadFile(agent->client(), AGENT_KERNEL_GOOD).value();
  absl::StatusOr<v1::MeasureResult> r =
      MeasureOne(agent->client(), OneCandidate(1, reply->sha256(), "vadd", good, "vadd_ref"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->error_kind(), v1::ERROR_KIND_NONE) << r->message();
  EXPECT_TRUE(r->correct());
}

TEST(AgentTransfer, CorruptOrMalformedUploadsAreRefusedAndLeaveNothing) {
  std::unique_ptr<AgentProcess> agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  const std::string bytes = ReadBinary(AGENT_KERNEL_GOOD);
  std::vector<v1::Chunk> chunks = MakeChunks(bytes, nullptr);
  ASSERT_EQ(chunks.size(), 1u);

  std::vector<v1::Chunk> corrupt = chunks;
  (*corrupt[0].mutable_data())[100] ^= 1;
  absl::StatusOr<v1::UploadReply> reply = agent->client().UploadChunks(corrupt);
  EXPECT_TRUE(absl::IsInvalidArgument(reply.status())) << reply.status();
  EXPECT_NE(reply.status().message().find("but the upload declared"), std::string::npos);

  std::vector<v1::Chunk> truncated = chunks;
  truncated[0].set_total_bytes(truncated[0].total_bytes() + 1);
  reply = agent->client().UploadChunks(truncated);
  EXPECT_TRUE(absl::IsInvalidArgument(reply.status())) << reply.status();

  std::vector<v1::Chunk> gap = chunks;
  gap[0].set_offset(5);
  reply = agent->client().UploadChunks(gap);
  EXPECT_TRUE(absl::IsInvalidArgument(reply.status())) << reply.status();
  EXPECT_NE(reply.status().message().find("expected offset 0"), std::string::npos);

  reply = agent->client().UploadChunks({});
  EXPECT_TRUE(absl::IsInvalidArgument(reply.status())) << reply.status();

  absl::StatusOr<v1::InfoReply> info = agent->client().Info();
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->cached_kernels(), 0);
  EXPECT_EQ(info->cache_bytes(), 0);
}

TEST(AgentTransfer, AnEvictedKernelIsNotFoundUntilUploadedAgain) {
  std::unique_ptr<AgentProcess> agent = StartAgent(std::vector<std::string>{"--cache-mb", "1"});
  ASSERT_NE(agent, nullptr);
  // Padding after the ELF's last section changes the hash, not the library.
  const std::string good = ReadBinary(AGENT_KERNEL_GOOD);
  const std::string first = good + std::string(600 << 10, '\1');
  const std::string second = good + std::string(600 << 10, '\2');
  absl::StatusOr<v1::UploadReply> a = agent->client().Upload(first);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<v1::UploadReply> b = agent->client().Upload(second);
  ASSERT_TRUE(b.ok()) << b.status();  // evicts `first`: both do not fit in 1 MiB

  absl::StatusOr<v1::MeasureResult> r =
      MeasureOne(agent->client(), OneCandidate(1, a->sha256(), "vadd"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->error_kind(), v1::ERROR_KIND_NOT_FOUND) << r->message();
  r = MeasureOne(agent->client(), OneCandidate(2, b->sha256(), "vadd"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->error_kind(), v1::ERROR_KIND_NONE) << r->message();

  ASSERT_TRUE(agent->client().Upload(first).ok());
  r = MeasureOne(agent->client(), OneCandidate(3, a->sha256(), "vadd"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->error_kind(), v1::ERROR_KIND_NONE) << r->message();

  absl::StatusOr<v1::InfoReply> info = agent->client().Info();
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->cached_kernels(), 1);
  EXPECT_EQ(info->cache_limit_bytes(), 1 << 20);
  EXPECT_LE(info->cache_bytes(), info->cache_limit_bytes());
}

TEST(AgentTransfer, ConcurrentMeasureCallsGetTheirOwnIdsAndNeverOverlap) {
  std::unique_ptr<AgentProcess> agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  const std::string good = UploadFile(agent->client(), AGENT_KERNEL_GOOD).value();
  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 25;  // 200 calls, all open at once
  std::mutex mu;
  std::vector<v1::MeasureResult> all;
  std::vector<std::string> failures;
  std::vector<std::thread> threads;
  std::atomic<int> started{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::thread> calls;
      for (int c = 0; c < kCallsPerThread; ++c) {
        calls.emplace_back([&, id = static_cast<uint64_t>(t * 1000 + c)] {
          AgentClient client(agent->channel(), kToken);
          v1::MeasureRequest request = OneCandidate(id, good, "vadd", good, "vadd_ref");
          request.mutable_options()->set_number(1);
          request.mutable_options()->set_repeat(1);
          ++started;
          absl::StatusOr<std::vector<v1::MeasureResult>> results = client.MeasureAll(request);
          std::lock_guard lock(mu);
          if (!results.ok()) {
            failures.push_back(std::string(results.status().message()));
          } else if (results->size() != 1 || (*results)[0].id() != id) {
            failures.push_back("call " + std::to_string(id) + " got another id or count");
          } else {
            all.push_back((*results)[0]);
          }
        });
      }
      for (std::thread& call : calls) call.join();
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(started.load(), kThreads * kCallsPerThread);
  EXPECT_TRUE(failures.empty()) << failures.front();
  ASSERT_EQ(all.size(), static_cast<size_t>(kThreads * kCallsPerThread));
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) {
    return x.started_unix_us() < y.started_unix_us();
  });
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].error_kind(), v1::ERROR_KIND_NONE) << all[i].message();
    EXPECT_GT(all[i].started_unix_us(), 0);
    EXPECT_GE(all[i].finished_unix_us(), all[i].started_unix_us());
    if (i > 0) {
      EXPECT_LE(all[i - 1].finished_unix_us(), all[i].started_unix_us())
          << "measurements " << all[i - 1].id() << " and " << all[i].id() << " overlap";
    }
  }
}

TEST(AgentTransfer, ResultsOfAManyCandidateRequestStreamInOrder) {
  std::unique_ptr<AgentProcess> agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  const std::string good = UploadFile(agent->client(), AGENT_KERNEL_GOOD).value();
  v1::MeasureRequest request = OneCandidate(10, good, "vadd", good, "vadd_ref");
  for (int i = 0; i < 3; ++i) *request.add_candidates() = request.candidates(0);
  for (int i = 1; i < 4; ++i) request.mutable_candidates(i)->set_id(10 + i);
  request.mutable_candidates(2)->mutable_kernel()->set_entry("vadd_ref");
  absl::StatusOr<std::vector<v1::MeasureResult>> results = agent->client().MeasureAll(request);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ((*results)[i].id(), 10u + i);
    EXPECT_EQ((*results)[i].error_kind(), v1::ERROR_KIND_NONE) << (*results)[i].message();
  }
}

TEST(AgentTransfer, BadMeasureRequestsAreRefusedWhole) {
  std::unique_ptr<AgentProcess> agent = StartAgent();
  ASSERT_NE(agent, nullptr);
  v1::MeasureRequest request = OneCandidate(1, "not-a-hash", "vadd");
  absl::StatusOr<std::vector<v1::MeasureResult>> results = agent->client().MeasureAll(request);
  EXPECT_TRUE(absl::IsInvalidArgument(results.status())) << results.status();
  EXPECT_NE(results.status().message().find("candidate 1"), std::string::npos);

  request = OneCandidate(1, std::string(64, 'a'), "vadd");
  request.mutable_options()->set_check_correctness(true);  // but no reference
  results = agent->client().MeasureAll(request);
  EXPECT_TRUE(absl::IsInvalidArgument(results.status())) << results.status();

  for (double stop : {-1.0, std::nan("")}) {
    request = OneCandidate(1, std::string(64, 'a'), "vadd");
    request.mutable_options()->set_stop_above_sec(stop);
    results = agent->client().MeasureAll(request);
    EXPECT_TRUE(absl::IsInvalidArgument(results.status())) << results.status();
    EXPECT_NE(results.status().message().find("stop_above_sec"), std::string::npos) << results.status();
  }

  request = OneCandidate(1, std::string(64, 'a'), "vadd");
  request.mutable_options()->set_repeat(-1);
  results = agent->client().MeasureAll(request);
  EXPECT_TRUE(absl::IsInvalidArgument(results.status())) << results.status();

  request.clear_candidates();
  request.mutable_options()->set_repeat(1);
  results = agent->client().MeasureAll(request);
  ASSERT_TRUE(results.ok()) << results.status();  // nothing to measure is not an error
  EXPECT_TRUE(results->empty());
}

}  // namespace
}  // namespace tunefarm::agent::testing
