// A heap that lives entirely inside one region of memory: its free lists, its lock and its
// blocks are all in the region, and it holds no pointer to anything outside. A rank's heap is
// such a region of its isomalloc slot, so copying the region's used bytes to the same address
// in another process moves the heap with every block in it, and the rank's pointers into it
// stay valid there. (General-purpose allocators keep their bookkeeping in process-wide
// structures, which is why this one is the project's own.)
//
// Blocks are powers of two (a 16-byte header included), one free list per size; freed blocks
// are reused for the same size and never split or merged. Simple and fast; it can waste up to
// half of a block, which the region's size (--vp-heap) must allow for.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace vela::vp::detail {

class SlotHeap {
 public:
  // Makes an empty heap at the start of `region` (`bytes` long, writable, 16-byte aligned).
  static SlotHeap* create(void* region, std::size_t bytes) noexcept;

  // nullptr when the region is full (or `alignment` is not a power of two).
  void* allocate(std::size_t size, std::size_t alignment = 16) noexcept;
  // `p` must come from allocate() on this heap (nullptr is ignored).
  void release(void* p) noexcept;
  // Bytes usable at `p` (at least what was asked for).
  std::size_t usable_size(const void* p) const noexcept;
  // Whether `p` lies in this heap's blocks.
  bool owns(const void* p) const noexcept;

  // Bytes from the region's start that hold anything: what a copy of the heap must carry.
  std::size_t used_bytes() const noexcept { return top_ - base(); }
  std::size_t capacity() const noexcept { return limit_ - base(); }
  // Bytes in blocks handed out and not released.
  std::size_t live_bytes() const noexcept { return live_; }

 private:
  SlotHeap() = default;
  std::uintptr_t base() const noexcept { return reinterpret_cast<std::uintptr_t>(this); }
  void lock() noexcept;
  void unlock() noexcept { busy_.store(false, std::memory_order_release); }

  static constexpr int classes = 48;
  std::atomic<bool> busy_{false};
  std::uintptr_t top_ = 0;    // the first byte never handed out
  std::uintptr_t limit_ = 0;  // the region's end
  std::size_t live_ = 0;
  std::uintptr_t free_[classes] = {};  // per size class 2^c: a list of free blocks
};

}  // namespace vela::vp::detail
