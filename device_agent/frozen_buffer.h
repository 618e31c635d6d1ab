// Bytes a helper keeps for a whole batch (the pristine inputs, the reference's outputs) where
// no candidate can change them by accident: a private mapping made read-only once filled. A
// stray write from a candidate faults, and is reported as that candidate's crash, instead of
// silently changing what the next candidate is given or compared against.
#ifndef TUNEFARM_DEVICE_AGENT_FROZEN_BUFFER_H_
#define TUNEFARM_DEVICE_AGENT_FROZEN_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <functional>

#include "deploy/status.h"

namespace tunefarm::agent {

class FrozenBuffer {
 public:
  FrozenBuffer() = default;  // empty
  // `size` bytes written by `fill`, then made read-only; kOutOfMemory when they cannot be
  // mapped (the helper's address-space limit).
  static deploy::Result<FrozenBuffer> Make(size_t size, const std::function<void(void*)>& fill);
  static deploy::Result<FrozenBuffer> Copy(const void* data, size_t size);

  FrozenBuffer(FrozenBuffer&& other) noexcept;
  FrozenBuffer& operator=(FrozenBuffer&& other) noexcept;
  FrozenBuffer(const FrozenBuffer&) = delete;
  FrozenBuffer& operator=(const FrozenBuffer&) = delete;
  ~FrozenBuffer();

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void Release();

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;  // size_ rounded up to whole pages
};

}  // namespace tunefarm::agent

#endif  // TUNEFARM_DEVICE_AGENT_FROZEN_BUFFER_H_
