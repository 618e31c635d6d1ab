#include "device_agent/kernel_upload.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/sha256.h"
#include "deploy/tunefarm_abi.h"
#include "device_agent/agent_client.h"
#include "device_agent/target_arch.h"
#include "tests/agent/agent_fixture.h"

namespace tunefarm::agent {
namespace {

class KernelUploadTest : public ::testing::Test {
 protected:
  void SetUp() override { cache_ = KernelCache::Create(int64_t{64} << 20).value(); }

  // Feeds every chunk; the first error, or Finish's result.
  absl::StatusOr<v1::UploadReply> Run(const std::vector<v1::Chunk>& chunks) {
    KernelUpload upload(*cache_);
    for (const v1::Chunk& chunk : chunks) {
      if (absl::Status s = upload.Add(chunk); !s.ok()) return s;
    }
    return upload.Finish();
  }

  std::unique_ptr<KernelCache> cache_;
};

TEST_F(KernelUploadTest, ChunkedContentIsVerifiedAndCached) {
  const std::string bytes(3 * 1024 * 1024 + 17, 'k');
  const std::vector<v1::Chunk> chunks = MakeChunks(bytes, nullptr);
  ASSERT_EQ(chunks.size(), 4u);
  absl::StatusOr<v1::UploadReply> reply = Run(chunks);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->sha256(), Sha256Hex(bytes));
  EXPECT_EQ(reply->size_bytes(), static_cast<int64_t>(bytes.size()));
  std::shared_ptr<const CachedKernel> cached = cache_->Find(reply->sha256());
  ASSERT_NE(cached, nullptr);
  EXPECT_EQ(testing::ReadBinary(cached->path()), bytes);
}

TEST_F(KernelUploadTest, ProtocolViolationsAreRefusedAndLeaveNoFile) {
  const std::string bytes(2 * 1024 * 1024 + 5, 'q');
  const std::vector<v1::Chunk> good = MakeChunks(bytes, nullptr);

  std::vector<v1::Chunk> swapped = good;
  std::swap(swapped[1], swapped[2]);
  EXPECT_NE(Run(swapped).status().message().find("expected offset 1048576"), std::string::npos);

  std::vector<v1::Chunk> oversized = good;
  oversized[0].mutable_data()->append(10, 'x');
  EXPECT_NE(Run(oversized).status().message().find("exceeds the limit of 1048576"),
            std::string::npos);

  std::vector<v1::Chunk> no_hash = good;
  no_hash[0].set_sha256("ABC");
  EXPECT_TRUE(absl::IsInvalidArgument(Run(no_hash).status()));

  std::vector<v1::Chunk> short_upload(good.begin(), good.end() - 1);
  EXPECT_NE(Run(short_upload).status().message().find("ended after 2097152 of 2097157"),
            std::string::npos);

  std::vector<v1::Chunk> too_big = good;
  too_big[0].set_total_bytes(int64_t{65} << 20);
  EXPECT_TRUE(absl::IsResourceExhausted(Run(too_big).status()));

  EXPECT_EQ(cache_->stats().kernels, 0);
  EXPECT_TRUE(std::filesystem::is_empty(cache_->dir())) << "an upload left a file behind";
}

TEST_F(KernelUploadTest, MetadataForAnotherMachineIsRefusedOnTheFirstChunk) {
  v1::KernelMetadata metadata;
  metadata.set_target("llvm -mtriple=" + HostArch() + "-linux-gnu");
  metadata.set_abi_version(TUNEFARM_ABI_VERSION);
  metadata.set_artifact_kind(v1::ARTIFACT_KIND_ELF_SO);
  EXPECT_TRUE(Run(MakeChunks("so", &metadata)).ok());

  v1::KernelMetadata foreign = metadata;
  foreign.set_target("llvm -mtriple=riscv64-linux-gnu");
  absl::Status s = Run(MakeChunks("so", &foreign)).status();
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find("is for riscv"), std::string::npos) << s;

  v1::KernelMetadata ptx = metadata;
  ptx.set_artifact_kind(v1::ARTIFACT_KIND_PTX);
  s = Run(MakeChunks("so", &ptx)).status();
  EXPECT_NE(s.message().find("ARTIFACT_KIND_PTX"), std::string::npos) << s;

  v1::KernelMetadata newer = metadata;
  newer.set_abi_version(TUNEFARM_ABI_VERSION + 1);
  s = Run(MakeChunks("so", &newer)).status();
  EXPECT_NE(s.message().find("ABI version"), std::string::npos) << s;

  // A GPU kernel's target on a CPU agent.
  v1::KernelMetadata gpu;
  gpu.set_target("cuda -arch=sm_90");
  gpu.set_abi_version(TUNEFARM_ABI_VERSION);
  s = CheckKernelMetadata(gpu);
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find("is for a CUDA GPU, this agent runs kernels on the CPU (--device cuda:N serves a GPU)"),
            std::string::npos)
      << s;
}

// What a GPU agent (--device cuda:0, compute capability 9.0) takes: PTX for its arch or older.
TEST_F(KernelUploadTest, AGpuAgentTakesPtxForItsArchOrOlderOnly) {
  AgentDevice device;
  device.cuda = "cuda:0";
  device.sm = 90;
  v1::KernelMetadata ptx;
  ptx.set_target("cuda -arch=sm_80 -num-sms=132");
  ptx.set_abi_version(TUNEFARM_ABI_VERSION);
  ptx.set_artifact_kind(v1::ARTIFACT_KIND_PTX);
  EXPECT_TRUE(CheckKernelMetadata(ptx, device).ok()) << CheckKernelMetadata(ptx, device);
  ptx.set_target("cuda -arch=sm_90");
  EXPECT_TRUE(CheckKernelMetadata(ptx, device).ok());

  v1::KernelMetadata newer = ptx;
  newer.set_target("cuda -arch=sm_100");
  absl::Status s = CheckKernelMetadata(newer, device);
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find("needs a newer GPU than cuda:0 (compute capability 9.0)"), std::string::npos) << s;

  v1::KernelMetadata cpu = ptx;
  cpu.set_target("llvm -mtriple=" + HostArch() + "-linux-gnu");
  cpu.set_artifact_kind(v1::ARTIFACT_KIND_UNSPECIFIED);
  s = CheckKernelMetadata(cpu, device);
  EXPECT_NE(s.message().find("is for a CPU, this agent runs kernels on cuda:0"), std::string::npos) << s;

  v1::KernelMetadata so = ptx;
  so.set_artifact_kind(v1::ARTIFACT_KIND_ELF_SO);
  s = CheckKernelMetadata(so, device);
  EXPECT_NE(s.message().find("this agent runs PTX libraries on cuda:0 only, not ARTIFACT_KIND_ELF_SO"),
            std::string::npos)
      << s;
}

}  // namespace
}  // namespace tunefarm::agent
