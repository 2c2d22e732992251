#include "memory/slot_heap.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <new>
#include <thread>

namespace vela::vp::detail {

namespace {

// Before every payload: its block's size class, and where the block starts (the payload of an
// over-aligned allocation sits further in than the block's first header).
struct Header {
  std::uint32_t magic;
  std::uint32_t size_class;
  std::uint64_t back;  // bytes from the block's start to this header
};
static_assert(sizeof(Header) == 16);

constexpr std::uint32_t block_magic = 0x56534c42;  // "VSLB": a block handed out
constexpr std::uint32_t free_magic = 0x56534c46;   // "VSLF": a block on a free list
constexpr int smallest_class = 5;                  // 32 bytes: a header and two links

Header* header_of(const void* p) {
  return reinterpret_cast<Header*>(reinterpret_cast<std::uintptr_t>(p) - sizeof(Header));
}

Header* block_header(std::uintptr_t block) {
  return reinterpret_cast<Header*>(block);
}

// A free block's links, after its header.
std::uintptr_t& next_of(std::uintptr_t block) {
  return *reinterpret_cast<std::uintptr_t*>(block + sizeof(Header));
}
std::uintptr_t& prev_of(std::uintptr_t block) {
  return *reinterpret_cast<std::uintptr_t*>(block + sizeof(Header) + sizeof(std::uintptr_t));
}

}  // namespace

SlotHeap* SlotHeap::create(void* region, std::size_t bytes) noexcept {
  auto* heap = ::new (region) SlotHeap;
  const auto start = reinterpret_cast<std::uintptr_t>(region);
  // The first block starts at a multiple of the smallest block's size: every piece a new
  // block's alignment skips is then a whole block (room for a header and two links).
  constexpr std::uintptr_t smallest = std::uintptr_t{1} << smallest_class;
  heap->top_ = (start + sizeof(SlotHeap) + smallest - 1) / smallest * smallest;
  heap->first_ = heap->top_;
  heap->limit_ = start + bytes;
  return heap;
}

void SlotHeap::lock() noexcept {
  // A rank's heap is used by the thread running the rank; another PE's thread only frees a
  // block now and then, so contention is rare and short.
  while (busy_.exchange(true, std::memory_order_acquire)) std::this_thread::yield();
}

void SlotHeap::push_free(std::uintptr_t block, int c) noexcept {
  *block_header(block) = {free_magic, static_cast<std::uint32_t>(c), 0};
  const std::uintptr_t head = free_[c];
  next_of(block) = head;
  prev_of(block) = 0;
  if (head != 0) prev_of(head) = block;
  free_[c] = block;
}

void SlotHeap::unlink_free(std::uintptr_t block, int c) noexcept {
  const std::uintptr_t next = next_of(block);
  const std::uintptr_t prev = prev_of(block);
  if (prev != 0) {
    next_of(prev) = next;
  } else {
    free_[c] = next;
  }
  if (next != 0) prev_of(next) = prev;
  block_header(block)->magic = block_magic;  // no longer free: never merged from here
}

// A block of class `c`: a free one of that class, else half of a larger free one split down
// (the other halves freed), else new from the top, aligned to its size (the bytes skipped
// freed as the largest aligned blocks that fit). 0 when none fits.
std::uintptr_t SlotHeap::take(int c) noexcept {
  if (free_[c] != 0) {
    const std::uintptr_t block = free_[c];
    unlink_free(block, c);
    return block;
  }
  for (int k = c + 1; k < classes; ++k) {
    if (free_[k] == 0) continue;
    const std::uintptr_t block = free_[k];
    unlink_free(block, k);
    while (k > c) {
      --k;
      push_free(block + (std::uintptr_t{1} << k), k);
    }
    return block;
  }
  const std::uintptr_t size = std::uintptr_t{1} << c;
  const std::uintptr_t base_address = base();
  const std::uintptr_t at = base_address + (top_ - base_address + size - 1) / size * size;
  if (at > limit_ || limit_ - at < size) return 0;
  for (std::uintptr_t p = top_; p < at;) {
    int j = std::countr_zero(p - base_address);
    while ((std::uintptr_t{1} << j) > at - p) --j;
    push_free(p, j);
    p += std::uintptr_t{1} << j;
  }
  top_ = at + size;
  return at;
}

void* SlotHeap::allocate(std::size_t size, std::size_t alignment) noexcept {
  if (alignment < 16) alignment = 16;
  if (!std::has_single_bit(alignment) || size > (std::size_t{1} << 46)) return nullptr;
  // Room for the header, and for moving the payload up to the alignment asked for.
  const std::size_t need = size + sizeof(Header) + (alignment > 16 ? alignment : 0);
  const int c = std::max(smallest_class, static_cast<int>(std::bit_width(need - 1)));
  if (c >= classes) return nullptr;
  lock();
  const std::uintptr_t block = take(c);
  if (block == 0) {
    unlock();
    return nullptr;
  }
  live_ += std::size_t{1} << c;
  unlock();
  *block_header(block) = {block_magic, static_cast<std::uint32_t>(c), 0};
  std::uintptr_t payload = block + sizeof(Header);
  if (payload % alignment != 0) {
    payload = (payload + alignment - 1) / alignment * alignment;
    *header_of(reinterpret_cast<void*>(payload)) = {block_magic, static_cast<std::uint32_t>(c),
                                                    payload - sizeof(Header) - block};
  }
  return reinterpret_cast<void*>(payload);
}

// The block merges with its buddy (the other half of the block of twice its size) while that
// is free and whole; a block that ends at the top lowers the top (a smaller copy when the rank
// moves) instead of going on a list.
void SlotHeap::release(void* p) noexcept {
  if (p == nullptr) return;
  const Header* h = header_of(p);
  std::uintptr_t block = reinterpret_cast<std::uintptr_t>(h) - h->back;
  int c = static_cast<int>(h->size_class);
  const std::uintptr_t base_address = base();
  lock();
  live_ -= std::size_t{1} << c;
  while (c + 1 < classes) {
    const std::uintptr_t size = std::uintptr_t{1} << c;
    const std::uintptr_t buddy = base_address + ((block - base_address) ^ size);
    // Below the first block lies the heap's own header; at or past the top, nothing yet.
    if (buddy < first_ || buddy >= top_ || top_ - buddy < size) break;
    const Header* b = block_header(buddy);
    if (b->magic != free_magic || b->size_class != static_cast<std::uint32_t>(c)) break;
    unlink_free(buddy, c);
    block = std::min(block, buddy);
    ++c;
  }
  if (block + (std::uintptr_t{1} << c) == top_) {
    top_ = block;
    block_header(block)->magic = block_magic;  // past the top: not a free block any more
  } else {
    push_free(block, c);
  }
  unlock();
}

void SlotHeap::say_full(char* out, std::size_t n, std::size_t asked) const noexcept {
  std::snprintf(out, n,
                "a rank's heap is full (%zu of %zu bytes in live blocks, %zu asked for): give it "
                "more with --vp-heap (its blocks are powers of two, so it needs more than twice "
                "its largest allocation)",
                live_bytes(), capacity(), asked);
}

std::size_t SlotHeap::usable_size(const void* p) const noexcept {
  const Header* h = header_of(p);
  const std::uintptr_t block = reinterpret_cast<std::uintptr_t>(h) - h->back;
  return (std::size_t{1} << h->size_class) - (reinterpret_cast<std::uintptr_t>(p) - block);
}

bool SlotHeap::owns(const void* p) const noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return a > base() + sizeof(SlotHeap) && a < top_;
}

}  // namespace vela::vp::detail
