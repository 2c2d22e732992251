// A heap that lives entirely inside one region of memory: its free lists, its lock and its
// blocks are all in the region, and it holds no pointer to anything outside. A rank's heap is
// such a region of its isomalloc slot, so copying the region's used bytes to the same address
// in another process moves the heap with every block in it, and the rank's pointers into it
// stay valid there. (General-purpose allocators keep their bookkeeping in process-wide
// structures, which is why this one is the project's own.)
//
// A binary buddy allocator: blocks are powers of two (a 16-byte header included), each aligned
// to its size from the region's start, one free list per size. A block asked for comes from its
// size's list, else from a larger free block split in halves, else from the top; a freed block
// merges with its buddy while that is free, and one that reaches the top lowers it. So memory
// freed at one size serves any other (a rank's heap is whole again once its blocks are freed),
// and the bytes a moving rank carries end at its highest live block. Each operation costs
// O(log size) list steps under the heap's lock. A block can waste up to half of its size,
// which the region's size (--vp-heap) must allow for.
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
  // Writes (at most `n` bytes, terminated) what a failed allocation of `asked` bytes says: the
  // heap's use, and how to size it. Allocates nothing (malloc's failure path calls it).
  void say_full(char* out, std::size_t n, std::size_t asked) const noexcept;

 private:
  SlotHeap() = default;
  std::uintptr_t base() const noexcept { return reinterpret_cast<std::uintptr_t>(this); }
  void lock() noexcept;
  // Under the lock: the free lists, and where a new block comes from (slot_heap.cpp).
  void push_free(std::uintptr_t block, int c) noexcept;
  void unlink_free(std::uintptr_t block, int c) noexcept;
  std::uintptr_t take(int c) noexcept;
  void unlock() noexcept { busy_.store(false, std::memory_order_release); }

  static constexpr int classes = 48;
  std::atomic<bool> busy_{false};
  std::uintptr_t top_ = 0;    // the first byte past every block handed out or free
  std::uintptr_t first_ = 0;  // where the first block may start (past this header)
  std::uintptr_t limit_ = 0;  // the region's end
  std::size_t live_ = 0;
  std::uintptr_t free_[classes] = {};  // per size class 2^c: a list of free blocks
};

}  // namespace vela::vp::detail
