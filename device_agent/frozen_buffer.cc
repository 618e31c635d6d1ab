#include "device_agent/frozen_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <utility>

namespace tunefarm::agent {

deploy::Result<FrozenBuffer> FrozenBuffer::Make(size_t size,
                                                const std::function<void(void*)>& fill) {
  FrozenBuffer buffer;
  if (size == 0) return buffer;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t mapped = (size + page - 1) / page * page;
  void* memory = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    return deploy::Status(deploy::StatusCode::kOutOfMemory,
                          "cannot map " + std::to_string(size) + " bytes");
  }
  fill(memory);
  mprotect(memory, mapped, PROT_READ);
  buffer.data_ = static_cast<uint8_t*>(memory);
  buffer.size_ = size;
  buffer.mapped_ = mapped;
  return buffer;
}

deploy::Result<FrozenBuffer> FrozenBuffer::Copy(const void* data, size_t size) {
  return Make(size, [&](void* to) { std::memcpy(to, data, size); });
}

FrozenBuffer::FrozenBuffer(FrozenBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)) {}

FrozenBuffer& FrozenBuffer::operator=(FrozenBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

FrozenBuffer::~FrozenBuffer() { Release(); }

void FrozenBuffer::Release() {
  if (data_ != nullptr) munmap(data_, mapped_);
  data_ = nullptr;
  size_ = mapped_ = 0;
}

}  // namespace tunefarm::agent
