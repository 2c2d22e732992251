// vela::rt::Buffer<T>: a run of plain values for large entry-method arguments. Like a
// std::vector<T> passed by value it moves from the sender to the method without a copy in one
// process; unlike one it can be made without initializing its values (Buffer<T>(n) leaves them
// to be written), so a message arriving from another process of the machine is received
// straight into it: one copy by MPI from the sender's buffer, where a std::vector is first
// zero-filled by its resize (docs/architecture.md, Across processes).
//
//   void halo(vela::rt::Buffer<double> values);     // an entry method
//   vela::rt::Buffer<double> out(n);                // n values, not initialized
//   std::copy(first, last, out.begin());
//   send<&Block::halo>(neighbour, std::move(out));
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <utility>

#include "vela/pup/pup.hpp"

namespace vela::rt {

template <class T>
class Buffer {
  static_assert(pup::Bitwise<T>, "vela::rt::Buffer holds trivially copyable values");

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  Buffer() = default;
  // `n` values, not initialized.
  explicit Buffer(std::size_t n)
      : data_(n != 0 ? std::make_unique_for_overwrite<T[]>(n) : nullptr), size_(n) {}
  // A copy of `values`.
  explicit Buffer(std::span<const T> values) : Buffer(values.size()) {
    if (size_ != 0) std::memcpy(data_.get(), values.data(), size_ * sizeof(T));
  }
  Buffer(const Buffer& other) : Buffer(std::span<const T>(other.data(), other.size())) {}
  Buffer& operator=(const Buffer& other) {
    if (this != &other) *this = Buffer(other);
    return *this;
  }
  Buffer(Buffer&& other) noexcept
      : data_(std::move(other.data_)), size_(std::exchange(other.size_, 0)) {}
  Buffer& operator=(Buffer&& other) noexcept {
    data_ = std::move(other.data_);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }

  T* data() noexcept { return data_.get(); }
  const T* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + size_; }
  const T* begin() const noexcept { return data(); }
  const T* end() const noexcept { return data() + size_; }
  operator std::span<T>() noexcept { return {data(), size_}; }
  operator std::span<const T>() const noexcept { return {data(), size_}; }

  // For the runtime (ExternalBytes, vela/rt/entry.hpp): the values' bytes, and room for
  // `bytes` bytes (a whole number of values), not initialized.
  std::span<std::byte> external_bytes() noexcept {
    return {reinterpret_cast<std::byte*>(data()), size_ * sizeof(T)};
  }
  void external_resize(std::size_t bytes) { *this = Buffer(bytes / sizeof(T)); }

  // Bitwise equality.
  friend bool operator==(const Buffer& a, const Buffer& b) {
    return a.size_ == b.size_ &&
           (a.size_ == 0 || std::memcmp(a.data(), b.data(), a.size_ * sizeof(T)) == 0);
  }

  // A count, then the values' bytes; unpacking allocates without initializing and copies once.
  friend void pup(pup::Archive& ar, Buffer& buffer) {
    const std::size_t n = ar.length(buffer.size_, sizeof(T));
    if (ar.unpacking()) buffer = Buffer(n);
    ar.bytes(buffer.data(), n * sizeof(T));
  }

 private:
  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0;
};

}  // namespace vela::rt
