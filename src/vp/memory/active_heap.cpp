// The heap that allocations come from on each thread (heap routing: active_heap.hpp), and whether
// the program's allocation functions read it.
#include "memory/active_heap.hpp"

#include <atomic>

namespace vela::vp::detail {

namespace {

// Initial-exec: read inside malloc, where the general TLS path (which may allocate) must not run.
constinit thread_local SlotHeap* active __attribute__((tls_model("initial-exec"))) = nullptr;
constinit std::atomic<bool> available{false};

}  // namespace

SlotHeap* active_heap() noexcept {
  return active;
}

void set_active_heap(SlotHeap* heap) noexcept {
  active = heap;
}

bool heap_routing_available() noexcept {
  return available.load(std::memory_order_relaxed);
}

void make_heap_routing_available() noexcept {
  available.store(true, std::memory_order_relaxed);
}

}  // namespace vela::vp::detail
