#include "memory/stacks.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "vela/vp/vp.hpp"

namespace vela::vp::detail {

namespace {

// Where every process asks for the range: high in the 47-bit user address space, far from
// where the kernel puts heaps, libraries and thread stacks.
constexpr std::uintptr_t fixed_address = 0x5a0000000000ull;

std::size_t round_up(std::size_t n, std::size_t to) {
  return (n + to - 1) / to * to;
}

// The range whose heaps the routing finds by address (one vp::run at a time uses heaps).
struct Routing {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::size_t slot_bytes = 0;
  std::size_t heap_offset = 0;
  std::size_t heap_bytes = 0;
  std::atomic<bool>* open = nullptr;
};
constinit Routing routing;

// The range whose slots have image regions (one vp::run at a time has them).
struct Images {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::size_t slot_bytes = 0;
  std::size_t offset = 0;
  std::size_t bytes = 0;
};
constinit Images images;

// `bytes` of address space at a multiple of `alignment`, anywhere (MAP_FAILED if none).
void* reserve_aligned(std::size_t bytes, std::size_t alignment) {
  constexpr int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  void* p = mmap(nullptr, bytes + alignment, PROT_NONE, flags, -1, 0);
  if (p == MAP_FAILED) return p;
  const auto start = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t aligned = round_up(start, alignment);
  if (aligned > start) munmap(p, aligned - start);
  munmap(reinterpret_cast<void*>(aligned + bytes), start + alignment - aligned);
  return reinterpret_cast<void*>(aligned);
}

}  // namespace

HeapOwner heap_owning(const void* p) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = routing.begin.load(std::memory_order_acquire);
  if (a < begin || a >= routing.end.load(std::memory_order_relaxed)) return {};
  const std::size_t slot = (a - begin) / routing.slot_bytes;
  const std::uintptr_t heap = begin + slot * routing.slot_bytes + routing.heap_offset;
  if (a <= heap || a >= heap + routing.heap_bytes ||
      !routing.open[slot].load(std::memory_order_acquire))
    return {true, nullptr};
  return {true, reinterpret_cast<SlotHeap*>(heap)};
}

std::byte* image_region_holding(const void* p) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = images.begin.load(std::memory_order_acquire);
  if (begin == 0 || a < begin || a >= images.end.load(std::memory_order_relaxed)) return nullptr;
  const std::uintptr_t region =
      begin + (a - begin) / images.slot_bytes * images.slot_bytes + images.offset;
  if (a < region || a >= region + images.bytes) return nullptr;
  return reinterpret_cast<std::byte*>(region);
}

StackRange::StackRange(std::size_t slots, std::size_t stack_bytes, std::size_t context_bytes,
                       std::size_t heap_bytes, std::size_t image_bytes, std::size_t image_alignment)
    : slots_(slots), page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
  if (stack_bytes < 16 * 1024) {
    throw Error("--vp-stack " + std::to_string(stack_bytes) +
                ": a rank's stack needs at least 16384 bytes");
  }
  stack_bytes_ = round_up(stack_bytes, page_);
  context_bytes_ = round_up(context_bytes, page_);
  context_offset_ = page_ + stack_bytes_ + context_bytes_ - round_up(context_bytes, 64);
  heap_bytes_ = round_up(heap_bytes, page_);
  image_alignment = std::max(image_alignment, page_);
  if ((image_alignment & (image_alignment - 1)) != 0 || image_alignment > (std::size_t{1} << 30)) {
    throw Error("program image: its segments' alignment " + std::to_string(image_alignment) +
                " is not a power of two up to 1 GiB");
  }
  image_offset_ = round_up(page_ + stack_bytes_ + context_bytes_ + heap_bytes_, image_alignment);
  image_bytes_ = round_up(image_bytes, image_alignment);
  slot_bytes_ = image_bytes_ > 0 ? image_offset_ + image_bytes_
                                 : page_ + stack_bytes_ + context_bytes_ + heap_bytes_;
  if (slots != 0 && slot_bytes_ > SIZE_MAX / 2 / slots) {
    throw Error("--vp " + std::to_string(slots) + " ranks of --vp-stack " +
                std::to_string(stack_bytes) + " and --vp-heap " + std::to_string(heap_bytes) +
                " bytes: more than the address space");
  }
  const std::size_t total = slots * slot_bytes_;
  if (total == 0) return;
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer keeps its shadow memory where the fixed address lies.
  void* p = MAP_FAILED;
#else
  void* p = mmap(reinterpret_cast<void*>(fixed_address), total, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
#endif
  if (p == MAP_FAILED || p != reinterpret_cast<void*>(fixed_address)) {
    // Taken (another run in this process still holds it) or refused: anywhere will do within
    // one process.
    if (p != MAP_FAILED) munmap(p, total);
    p = reserve_aligned(total, image_bytes_ > 0 ? image_alignment : page_);
    if (p == MAP_FAILED) {
      throw Error("--vp " + std::to_string(slots) + " ranks of " + std::to_string(slot_bytes_) +
                  "-byte slots (stack and heap): cannot reserve " + std::to_string(total) +
                  " bytes of address space: " + std::strerror(errno));
    }
  } else {
    fixed_ = true;
  }
  base_ = static_cast<std::byte*>(p);
  open_ = std::make_unique<std::atomic<bool>[]>(slots);
  if (heap_bytes_ > 0) {
    if (routing.begin.load() != 0) {
      munmap(base_, total);
      throw Error("--vp-heap: another run of ranks with heaps is under way in this process");
    }
    routing.slot_bytes = slot_bytes_;
    routing.heap_offset = page_ + stack_bytes_ + context_bytes_;
    routing.heap_bytes = heap_bytes_;
    routing.open = open_.get();
    routing.end.store(reinterpret_cast<std::uintptr_t>(base_) + total);
    routing.begin.store(reinterpret_cast<std::uintptr_t>(base_), std::memory_order_release);
  }
  if (image_bytes_ > 0 && images.begin.load() == 0) {
    images.slot_bytes = slot_bytes_;
    images.offset = image_offset_;
    images.bytes = image_bytes_;
    images.end.store(reinterpret_cast<std::uintptr_t>(base_) + total);
    images.begin.store(reinterpret_cast<std::uintptr_t>(base_), std::memory_order_release);
    images_ = true;
  }
}

StackRange::~StackRange() {
  if (base_ == nullptr) return;
  if (images_) {
    images.begin.store(0, std::memory_order_release);
    images.end.store(0);
  }
  if (heap_bytes_ > 0) {
    routing.begin.store(0, std::memory_order_release);
    routing.end.store(0);
  }
  munmap(base_, slots_ * slot_bytes_);
}

std::byte* StackRange::slot_base(std::size_t slot) const {
  return base_ + slot * slot_bytes_;
}

void* StackRange::context(std::size_t slot) const {
  return slot_base(slot) + context_offset_;
}

void* StackRange::heap_region(std::size_t slot) const {
  return slot_base(slot) + page_ + stack_bytes_ + context_bytes_;
}

std::byte* StackRange::image_region(std::size_t slot) const {
  return image_bytes_ == 0 ? nullptr : slot_base(slot) + image_offset_;
}

SlotHeap* StackRange::heap(std::size_t slot) const {
  return heap_bytes_ == 0 ? nullptr : static_cast<SlotHeap*>(heap_region(slot));
}

void* StackRange::open(std::size_t slot, bool fresh) {
  std::byte* bottom = slot_base(slot) + page_;  // above the guard page
  const std::size_t bytes = stack_bytes_ + context_bytes_ + heap_bytes_;
  if (mprotect(bottom, bytes, PROT_READ | PROT_WRITE) != 0) {
    throw Error("rank " + std::to_string(slot) + ": cannot commit its " + std::to_string(bytes) +
                "-byte slot (stack and heap): " + std::strerror(errno));
  }
  if (heap_bytes_ > 0 && fresh) SlotHeap::create(heap_region(slot), heap_bytes_);
  open_[slot].store(true, std::memory_order_release);
  return bottom;
}

void StackRange::close(std::size_t slot, bool keep_context) noexcept {
  open_[slot].store(false, std::memory_order_release);
  const auto drop = [](std::byte* from, std::size_t bytes) {
    if (bytes == 0) return;
    madvise(from, bytes, MADV_DONTNEED);
    mprotect(from, bytes, PROT_NONE);
  };
  std::byte* bottom = slot_base(slot) + page_;
  if (!keep_context) {
    drop(bottom, stack_bytes_ + context_bytes_ + heap_bytes_);
    return;
  }
  drop(bottom, stack_bytes_);
  drop(static_cast<std::byte*>(heap_region(slot)), heap_bytes_);
}

std::size_t StackRange::resident(std::size_t slot) const {
  // The context's pages too: the stack's top lies there.
  const std::size_t bytes = stack_bytes_ + context_bytes_;
  std::vector<unsigned char> in(bytes / page_);
  if (mincore(slot_base(slot) + page_, bytes, in.data()) != 0) return 0;
  std::size_t n = 0;
  for (unsigned char c : in) n += c & 1u;
  return n * page_;
}

}  // namespace vela::vp::detail
