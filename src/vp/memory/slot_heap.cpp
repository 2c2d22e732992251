#include "memory/slot_heap.hpp"

#include <algorithm>
#include <bit>
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

constexpr std::uint32_t block_magic = 0x56534c42;  // "VSLB"
constexpr int smallest_class = 5;                  // 32 bytes: a header and 16 bytes

Header* header_of(const void* p) {
  return reinterpret_cast<Header*>(reinterpret_cast<std::uintptr_t>(p) - sizeof(Header));
}

}  // namespace

SlotHeap* SlotHeap::create(void* region, std::size_t bytes) noexcept {
  auto* heap = ::new (region) SlotHeap;
  const auto start = reinterpret_cast<std::uintptr_t>(region);
  heap->top_ = (start + sizeof(SlotHeap) + 15) / 16 * 16;
  heap->limit_ = start + bytes;
  return heap;
}

void SlotHeap::lock() noexcept {
  // A rank's heap is used by the thread running the rank; another PE's thread only frees a
  // block now and then, so contention is rare and short.
  while (busy_.exchange(true, std::memory_order_acquire)) std::this_thread::yield();
}

void* SlotHeap::allocate(std::size_t size, std::size_t alignment) noexcept {
  if (alignment < 16) alignment = 16;
  if (!std::has_single_bit(alignment) || size > (std::size_t{1} << 46)) return nullptr;
  // Room for the header, and for moving the payload up to the alignment asked for.
  const std::size_t need = size + sizeof(Header) + (alignment > 16 ? alignment : 0);
  int c = std::max(smallest_class, static_cast<int>(std::bit_width(need - 1)));
  if (c >= classes) return nullptr;
  const std::size_t block_bytes = std::size_t{1} << c;
  lock();
  std::uintptr_t block = free_[c];
  if (block != 0) {
    free_[c] = *reinterpret_cast<std::uintptr_t*>(block + sizeof(Header));
  } else {
    // New blocks are aligned to 16 bytes; larger alignments are made inside the block.
    if (limit_ - top_ < block_bytes) {
      unlock();
      return nullptr;
    }
    block = top_;
    top_ += block_bytes;
  }
  live_ += block_bytes;
  unlock();
  auto* first = reinterpret_cast<Header*>(block);
  *first = {block_magic, static_cast<std::uint32_t>(c), 0};
  std::uintptr_t payload = block + sizeof(Header);
  if (payload % alignment != 0) {
    payload = (payload + alignment - 1) / alignment * alignment;
    *header_of(reinterpret_cast<void*>(payload)) = {block_magic, static_cast<std::uint32_t>(c),
                                                    payload - sizeof(Header) - block};
  }
  return reinterpret_cast<void*>(payload);
}

void SlotHeap::release(void* p) noexcept {
  if (p == nullptr) return;
  const Header* h = header_of(p);
  const std::uintptr_t block = reinterpret_cast<std::uintptr_t>(h) - h->back;
  const std::uint32_t c = h->size_class;
  lock();
  *reinterpret_cast<std::uintptr_t*>(block + sizeof(Header)) = free_[c];
  free_[c] = block;
  live_ -= std::size_t{1} << c;
  unlock();
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
