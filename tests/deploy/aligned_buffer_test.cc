#include "deploy/aligned_buffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace tunefarm::deploy {
namespace {

bool IsAligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

TEST(AlignedBuffer, DefaultIsEmpty) {
  AlignedBuffer buffer;
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(buffer.data(), nullptr);
  buffer.Zero();  // harmless on an empty buffer
}

TEST(AlignedBuffer, AllocateIsAlignedAndZeroed) {
  for (size_t size : {1u, 63u, 64u, 65u, 1000u, 4096u}) {
    Result<AlignedBuffer> buffer = AlignedBuffer::Allocate(size);
    ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
    EXPECT_EQ(buffer->size(), size);
    EXPECT_TRUE(IsAligned(buffer->data())) << size;
    for (size_t i = 0; i < size; ++i) ASSERT_EQ(buffer->data()[i], 0) << i;
  }
}

TEST(AlignedBuffer, AllocateZeroGivesEmpty) {
  Result<AlignedBuffer> buffer = AlignedBuffer::Allocate(0);
  ASSERT_TRUE(buffer.ok());
  EXPECT_TRUE(buffer->empty());
}

TEST(AlignedBuffer, ImpossibleSizeIsAnError) {
  Result<AlignedBuffer> buffer = AlignedBuffer::Allocate(SIZE_MAX - 8);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(buffer.status().message().find("bytes"), std::string::npos);
}

TEST(AlignedBuffer, FillHelpers) {
  AlignedBuffer buffer = AlignedBuffer::Allocate(10 * sizeof(float)).value();
  buffer.Fill<float>(NAN);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(std::isnan(buffer.As<float>()[i])) << i;
  buffer.FillBytes(0xAB);
  for (size_t i = 0; i < buffer.size(); ++i) EXPECT_EQ(buffer.data()[i], 0xAB);
  buffer.Zero();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(buffer.As<float>()[i], 0.0f);
}

TEST(AlignedBuffer, MoveTransfersOwnership) {
  AlignedBuffer a = AlignedBuffer::Allocate(128).value();
  uint8_t* data = a.data();
  AlignedBuffer b(std::move(a));
  EXPECT_EQ(b.data(), data);
  EXPECT_EQ(b.size(), 128u);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT: checking the moved-from state on purpose
  EXPECT_EQ(a.size(), 0u);

  AlignedBuffer c = AlignedBuffer::Allocate(8).value();
  c = std::move(b);
  EXPECT_EQ(c.data(), data);
  EXPECT_EQ(c.size(), 128u);
  EXPECT_TRUE(b.empty());  // NOLINT
}

}  // namespace
}  // namespace tunefarm::deploy
