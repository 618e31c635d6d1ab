#include "compiler/codegen/target.h"

#include <gtest/gtest.h>

#include "compiler/codegen/host_target.h"

namespace tunefarm::codegen {
namespace {

TEST(TargetTest, ParsePrintRoundTrip) {
  for (const char* text : {
           "llvm -mtriple=x86_64-linux-gnu -mcpu=znver3",
           "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72",
           "llvm -mtriple=x86_64-linux-gnu",
           "llvm -mtriple=x86_64-linux-gnu -mcpu=skylake-avx512 -mattr=+avx512f,-avx512vl",
           "llvm -mtriple=x86_64-linux-gnu -mcpu=haswell -num-cores=8 -l1d-cache=32768 -l2-cache=262144 "
           "-l3-cache=8388608",
       }) {
    absl::StatusOr<Target> t = Target::Parse(text);
    ASSERT_TRUE(t.ok()) << text << ": " << t.status();
    EXPECT_EQ(t->ToString(), text);
    absl::StatusOr<Target> again = Target::Parse(t->ToString());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *t);
  }
}

TEST(TargetTest, CanonicalisesSpellings) {
  struct Case {
    const char* in;
    const char* out;
  } cases[] = {
      {"llvm -mtriple=x86_64-unknown-linux-gnu -mcpu=znver3", "llvm -mtriple=x86_64-linux-gnu -mcpu=znver3"},
      {"llvm  -mcpu=znver3   -mtriple=x86_64-pc-linux-gnu ", "llvm -mtriple=x86_64-linux-gnu -mcpu=znver3"},
      {"llvm -mtriple=arm64-linux-gnu -mcpu=generic", "llvm -mtriple=aarch64-linux-gnu"},
      {"llvm -mtriple=aarch64-unknown-linux-gnu -mattr=+neon,+crc,+neon",
       "llvm -mtriple=aarch64-linux-gnu -mattr=+crc,+neon"},
      {"llvm -mtriple=x86_64-linux-gnu -mattr=-avx512f,+avx2,+fma", "llvm -mtriple=x86_64-linux-gnu -mattr=+avx2,-avx512f,+fma"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Target> t = Target::Parse(c.in);
    ASSERT_TRUE(t.ok()) << c.in << ": " << t.status();
    EXPECT_EQ(t->ToString(), c.out) << c.in;
  }
}

TEST(TargetTest, CudaTargetsParsePrintAndGiveTheirLimits) {
  for (const char* text : {"cuda -arch=sm_90", "cuda -arch=sm_80 -max-threads-per-block=1024 "
                                               "-max-shared-memory-per-block=49152 -max-registers-per-block=65536 "
                                               "-num-sms=108"}) {
    absl::StatusOr<Target> t = Target::Parse(text);
    ASSERT_TRUE(t.ok()) << text << ": " << t.status();
    EXPECT_EQ(t->ToString(), text);
    EXPECT_TRUE(t->IsCuda());
    EXPECT_FALSE(t->IsX86() || t->IsAArch64());
  }
  Target t = Target::Parse("cuda -num-sms=132 -arch=sm_90 -max-threads-per-block=512").value();
  EXPECT_EQ(t.ToString(), "cuda -arch=sm_90 -max-threads-per-block=512 -num-sms=132");
  EXPECT_EQ(t.SmVersion(), 90);
  EXPECT_EQ(t.MaxThreadsPerBlock(), 512);
  EXPECT_EQ(t.MaxSharedMemoryPerBlock(), 48 * 1024);  // not given: the smallest of any part
  EXPECT_EQ(t.NumSms(), 132);
  EXPECT_EQ(t.VectorLanes(te::DType::kFloat32), 1);
  EXPECT_EQ(Target::Parse("cuda -arch=sm_090").value().ToString(), "cuda -arch=sm_90");  // one key per GPU
}

TEST(TargetTest, RejectsJunkWithAClearMessage) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"", "empty"},
      {"rocm -mcpu=gfx90a", "unknown target kind \"rocm\""},
      {"llvm", "missing -mtriple"},
      {"llvm -mtriple=riscv64-linux-gnu", "unsupported triple"},
      {"llvm -mtriple=x86_64-linux-gnu -mfoo=bar", "unknown key -mfoo"},
      {"llvm -mtriple=x86_64-linux-gnu mcpu", "expected -key=value"},
      {"llvm -mtriple=x86_64-linux-gnu -mcpu=", "empty value"},
      {"llvm -mtriple=x86_64-linux-gnu -mattr=avx2", "must be +name or -name"},
      {"llvm -mtriple=x86_64-linux-gnu -mattr=+avx2,-avx2", "both enabled and disabled"},
      {"llvm -mtriple=x86_64-linux-gnu -mtriple=aarch64-linux-gnu", "duplicate key"},
      {"llvm -mtriple=x86_64-linux-gnu -num-cores=0", "-num-cores"},
      {"llvm -mtriple=x86_64-linux-gnu -l2-cache=big", "-l2-cache"},
      {"llvm -mtriple=x86_64-linux-gnu -mcpu=Zen!", "malformed cpu"},
      {"cuda", "missing -arch=sm_NN"},
      {"cuda -arch=90", "-arch must be sm_NN"},
      {"cuda -arch=sm_90 -mtriple=x86_64-linux-gnu", "unknown key -mtriple for a cuda target"},
      {"cuda -arch=sm_90 -max-threads-per-block=0", "-max-threads-per-block must be an integer"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Target> t = Target::Parse(c.text);
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(t.status().message().find(c.message), std::string::npos) << c.text << ": " << t.status();
  }
}

TEST(TargetTest, VectorWidthAndLanes) {
  auto parse = [](const char* text) { return Target::Parse(text).value(); };
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver3").VectorBits(), 256);
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -mcpu=haswell").VectorLanes(te::DType::kFloat32), 8);
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -mcpu=haswell").VectorLanes(te::DType::kFloat64), 4);
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -mcpu=haswell").VectorLanes(te::DType::kInt8), 32);
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -mcpu=skylake-avx512").VectorBits(), 512);
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -mcpu=rocketlake").VectorBits(), 512);
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -mcpu=sapphirerapids -mattr=-avx512f").VectorBits(), 256);
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -mcpu=alderlake").VectorBits(), 256);
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -mcpu=skylake-avx512 -mattr=+avx512f").VectorBits(), 512);
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu").VectorBits(), 128);
  // Every AVX-512 part, Intel's and AMD's: 512 bits unless switched off.
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver5").VectorBits(), 512);
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver4 -mattr=-avx512f").VectorBits(), 256);
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -mcpu=znver3 -mattr=-avx").VectorBits(), 128);
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -mattr=+avx2").VectorBits(), 256);
  Target arm = parse("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72");
  EXPECT_TRUE(arm.IsAArch64());
  EXPECT_FALSE(arm.IsX86());
  EXPECT_EQ(arm.VectorBits(), 128);
  EXPECT_EQ(arm.VectorLanes(te::DType::kFloat32), 4);
  EXPECT_EQ(arm.VectorLanes(te::DType::kFloat64), 2);
  EXPECT_EQ(arm.Cores(), 1);
  EXPECT_EQ(arm.L1dCacheBytes(), 32 * 1024);
  EXPECT_EQ(parse("llvm -mtriple=x86_64-linux-gnu -num-cores=16").Cores(), 16);
}

TEST(TargetTest, HostTargetIsCanonicalAndParses) {
  Target host = HostTarget();
  EXPECT_FALSE(host.triple.empty());
  absl::StatusOr<Target> parsed = Target::Parse(host.ToString());
  ASSERT_TRUE(parsed.ok()) << host.ToString() << ": " << parsed.status();
  EXPECT_EQ(parsed->ToString(), host.ToString());
}

}  // namespace
}  // namespace tunefarm::codegen
