// The heap that allocations come from on each thread (heap routing: active_heap.hpp), and whether
// the program's allocation functions read it.
#include "memory/active_heap.hpp"

#include <atomic>

namespace vela::vp::detail {

namespace {

// Initial-exec: read inside malloc, where the general TLS path (which may allocate) must not run.
constinit thread_local SlotHeap* active __attribute__((tls_model("initial-exec"))) = nullptr;
constinit std::atomic<bool> available{false};

// Ranges of process code (add_process_code), added before the ranks start and never removed.
struct CodeRange {
  std::atomic<const char*> begin{nullptr};
  std::atomic<const char*> end{nullptr};
};
constexpr int max_process_code = 8;
constinit CodeRange process_code[max_process_code];
constinit std::atomic<int> process_code_count{0};

}  // namespace

void add_process_code(const void* begin, const void* end) noexcept {
  const int i = process_code_count.load(std::memory_order_relaxed);
  if (i == max_process_code) return;  // the library's allocations then stay the rank's
  process_code[i].begin.store(static_cast<const char*>(begin), std::memory_order_relaxed);
  process_code[i].end.store(static_cast<const char*>(end), std::memory_order_relaxed);
  process_code_count.store(i + 1, std::memory_order_release);
}

bool from_process_code(const void* address) noexcept {
  const int n = process_code_count.load(std::memory_order_acquire);
  const auto* a = static_cast<const char*>(address);
  for (int i = 0; i < n; ++i) {
    if (a >= process_code[i].begin.load(std::memory_order_relaxed) &&
        a < process_code[i].end.load(std::memory_order_relaxed)) {
      return true;
    }
  }
  return false;
}

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
