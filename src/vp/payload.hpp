// The bytes of one rank message: inline when small (no allocation for the latency-bound common
// case), else one heap block. Moved, never copied, from the sender's message to the receiver.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

#include "vela/pup/pup.hpp"

namespace vela::vp::detail {

class Payload {
 public:
  static constexpr std::size_t inline_bytes = 32;

  Payload() = default;
  Payload(const void* data, std::size_t size) { assign(data, size); }
  Payload(Payload&& other) noexcept { take(other); }
  Payload& operator=(Payload&& other) noexcept {
    if (this != &other) {
      heap_.reset();
      take(other);
    }
    return *this;
  }
  Payload(const Payload&) = delete;
  Payload& operator=(const Payload&) = delete;

  const std::byte* data() const { return heap_ ? heap_.get() : inline_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // For the runtime (vela::rt::detail::ExternalBytes): a large message between processes of one
  // machine is received straight into a payload made without initializing it.
  std::span<std::byte> external_bytes() noexcept { return {const_cast<std::byte*>(data()), size_}; }
  void external_resize(std::size_t size) { resize(size); }

  void pup(pup::Archive& ar) {
    std::uint64_t n = size_;
    ar | n;
    if (ar.unpacking()) {
      if (n > ar.remaining()) ar.fail("rank message longer than its buffer", ar.offset());
      resize(static_cast<std::size_t>(n));
    }
    ar.bytes(const_cast<std::byte*>(data()), size_);
  }

 private:
  void resize(std::size_t size) {
    size_ = size;
    heap_.reset();
    if (size > inline_bytes) heap_.reset(new std::byte[size]);
  }
  void assign(const void* data, std::size_t size) {
    resize(size);
    if (size > 0) std::memcpy(const_cast<std::byte*>(this->data()), data, size);
  }
  void take(Payload& other) noexcept {
    size_ = other.size_;
    heap_ = std::move(other.heap_);
    if (!heap_) std::memcpy(inline_, other.inline_, inline_bytes);
    other.size_ = 0;
  }

  std::size_t size_ = 0;
  std::unique_ptr<std::byte[]> heap_;
  std::byte inline_[inline_bytes];
};

}  // namespace vela::vp::detail
