// Rank slots from one reserved range of virtual memory, a fixed slot per rank (isomalloc, as
// Charm++ does it): slot r always sits at the same address, in every process of one build, so
// a rank moving to another process is copied to the same addresses there and resumes unchanged.
// A slot, from low to high addresses:
//   a guard page (never accessible: a stack overflow faults instead of corrupting a neighbour),
//   the stack (it grows down towards the guard page),
//   the context page(s), ending with the rank's context (its RankContext, at a fixed address, so
//     that the references to it in the rank's own frames stay valid wherever it runs); the stack
//     starts right below the context, on its page: a rank resumed from a shallow call (its saved
//     registers and frames within the page's rest, about 3.5 KiB) touches one page of its slot,
//     not two: one page walk less per switch, 7–10% of a barrier's time among 10^4 ranks, far
//     beyond the TLB (docs/results/ranks.md, "One page per switch"),
//   the rank's heap (a SlotHeap; only when the run has one: --vp-heap),
//   the rank's instance of the program image (only for a loaded image: image/program_image.hpp),
//     at the image's alignment; the image code maps and unmaps it.
// Nothing is committed until a slot is opened, and closing gives its pages back.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "memory/slot_heap.hpp"

namespace vela::vp::detail {

class StackRange {
 public:
  // Reserves `slots` slots: `stack_bytes` of stack, `context_bytes` of context and
  // `heap_bytes` of heap each (each rounded up to whole pages), plus their guard pages. Throws
  // Error when the range cannot be reserved, naming the sizes. The range's heaps are found by
  // address (heap_owning) while the range lives.
  StackRange(std::size_t slots, std::size_t stack_bytes, std::size_t context_bytes = 0,
             std::size_t heap_bytes = 0, std::size_t image_bytes = 0,
             std::size_t image_alignment = 4096);
  ~StackRange();
  StackRange(const StackRange&) = delete;
  StackRange& operator=(const StackRange&) = delete;

  // Makes slot `slot` writable and, with a heap, makes its empty heap (`fresh`), or leaves the
  // heap's bytes to be copied in (not `fresh`). Returns the stack's lowest address (the stack
  // grows down from bottom + stack_bytes(), which is context(slot)).
  void* open(std::size_t slot, bool fresh = true);
  // Gives the slot's pages back to the system and makes them inaccessible again; with
  // `keep_context`, all but the context's.
  void close(std::size_t slot, bool keep_context = false) noexcept;
  // Bytes of the slot's stack that have been written (resident pages, the context's included).
  std::size_t resident(std::size_t slot) const;

  void* context(std::size_t slot) const;
  // The slot's heap (nullptr without one); valid while the slot is open.
  SlotHeap* heap(std::size_t slot) const;
  void* heap_region(std::size_t slot) const;
  // The slot's image region (image_bytes of address space, reserved; nullptr without one).
  std::byte* image_region(std::size_t slot) const;

  // The stack's bytes: the pages asked for and the context page's below the context.
  std::size_t stack_bytes() const { return context_offset_ - page_; }
  std::size_t heap_bytes() const { return heap_bytes_; }
  // Whether the range sits at the fixed address every process of one build asks for (then a
  // rank's slot can live at the same address in another process).
  bool at_fixed_address() const { return fixed_; }

 private:
  std::byte* slot_base(std::size_t slot) const;

  std::byte* base_ = nullptr;
  std::size_t slots_ = 0;
  std::size_t page_ = 0;
  std::size_t stack_bytes_ = 0;
  std::size_t context_bytes_ = 0;   // whole pages
  std::size_t context_offset_ = 0;  // the context's, from the slot's start: its pages' end less it
  std::size_t heap_bytes_ = 0;
  std::size_t image_offset_ = 0;  // from the slot's start; the image ends the slot
  std::size_t image_bytes_ = 0;
  std::size_t slot_bytes_ = 0;
  bool fixed_ = false;
  bool images_ = false;  // image_region_holding() answers for this range
  std::unique_ptr<std::atomic<bool>[]> open_;
};

// Where an address lies for the heap routing: outside every rank slot, in the heap of an open
// slot (`heap` set), or in a slot that is closed or not a heap (memory that is gone: a block a
// rank allocated before it left this process).
struct HeapOwner {
  bool in_slots = false;
  SlotHeap* heap = nullptr;
};
HeapOwner heap_owning(const void* p) noexcept;

// The start of the image region of the rank slot that `p` lies in, or nullptr (no range with
// image regions, or `p` outside them). Lock-free: the unwinder asks it for every frame.
std::byte* image_region_holding(const void* p) noexcept;

}  // namespace vela::vp::detail
