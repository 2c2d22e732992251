// Heap routing (isomalloc heaps): while a rank's own code runs, the program's allocations come
// from the rank's slot heap, so that they move with it to another process. The allocation
// functions themselves (malloc and its family) are replaced in programs linked with
// vela::mpi_main (src/vp/mpi/replaced_malloc.cpp); this is what they read, and what the rank code
// sets. Without that replacement nothing here changes where memory comes from.
#pragma once

#include "memory/stacks.hpp"

namespace vela::vp::detail {

// The heap that allocations on this thread come from now: the running rank's while its own
// code runs, nullptr while the runtime's code runs (an MPI call, the scheduler).
SlotHeap* active_heap() noexcept;
void set_active_heap(SlotHeap* heap) noexcept;

// Whether the program replaced the allocation functions (set once, before any rank runs).
bool heap_routing_available() noexcept;
void make_heap_routing_available() noexcept;

// Code whose allocations are the process's even while a rank runs: a run-time library that keeps
// per-process state, allocated when a rank first uses it (libgfortran's unit table and its
// parsed formats, program_image.cpp), would otherwise point into a rank that may leave the
// process. At most 8 ranges; `from_process_code` is two loads and a compare per range.
void add_process_code(const void* begin, const void* end) noexcept;
bool from_process_code(const void* address) noexcept;

// Runtime code called from a rank's code allocates from the process heap: what it allocates
// (message payloads, queue entries of other ranks) outlives the rank's stay in this process.
class HeapPause {
 public:
  HeapPause() noexcept : saved_(active_heap()) {
    if (saved_ != nullptr) set_active_heap(nullptr);
  }
  ~HeapPause() {
    if (saved_ != nullptr) set_active_heap(saved_);
  }
  HeapPause(const HeapPause&) = delete;
  HeapPause& operator=(const HeapPause&) = delete;

 private:
  SlotHeap* saved_;
};

}  // namespace vela::vp::detail
