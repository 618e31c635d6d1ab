// A move-only, owning byte buffer whose data is TUNEFARM_BUFFER_ALIGNMENT (64) byte aligned:
// the alignment every kernel argument and workspace must have (codegen emits aligned loads).
#ifndef TUNEFARM_DEPLOY_ALIGNED_BUFFER_H_
#define TUNEFARM_DEPLOY_ALIGNED_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "deploy/status.h"
#include "deploy/tunefarm_abi.h"

namespace tunefarm::deploy {

class AlignedBuffer {
 public:
  static constexpr size_t kAlignment = TUNEFARM_BUFFER_ALIGNMENT;

  AlignedBuffer() = default;  // empty: data() is null, size() is 0

  // A buffer of `size` bytes, zero-filled. Size 0 gives an empty buffer.
  static Result<AlignedBuffer> Allocate(size_t size) {
    AlignedBuffer buffer;
    if (size == 0) return buffer;
    // aligned_alloc wants a multiple of the alignment; the rounded-up tail also lets a
    // vectorised loop read a whole last vector without leaving the allocation.
    if (size > SIZE_MAX - kAlignment) return TooLarge(size);
    const size_t capacity = (size + kAlignment - 1) / kAlignment * kAlignment;
    void* data = std::aligned_alloc(kAlignment, capacity);
    if (data == nullptr) return TooLarge(size);
    std::memset(data, 0, capacity);
    buffer.data_ = static_cast<uint8_t*>(data);
    buffer.size_ = size;
    return buffer;
  }

  AlignedBuffer(AlignedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept {
    if (this != &other) {
      std::free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { std::free(data_); }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // The data viewed as an array of T (size() / sizeof(T) elements).
  template <typename T>
  T* As() {
    return reinterpret_cast<T*>(data_);
  }
  template <typename T>
  const T* As() const {
    return reinterpret_cast<const T*>(data_);
  }

  void Zero() { FillBytes(0); }
  void FillBytes(uint8_t byte) {
    if (data_ != nullptr) std::memset(data_, byte, size_);
  }
  // Sets each whole T-sized element to `value`, e.g. NaN into an output before a run.
  template <typename T>
  void Fill(T value) {
    T* elements = As<T>();
    for (size_t i = 0, n = size_ / sizeof(T); i < n; ++i) elements[i] = value;
  }

 private:
  static Status TooLarge(size_t size) {
    return Status(StatusCode::kOutOfMemory,
                  "cannot allocate an aligned buffer of " + std::to_string(size) + " bytes");
  }

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace tunefarm::deploy

#endif  // TUNEFARM_DEPLOY_ALIGNED_BUFFER_H_
