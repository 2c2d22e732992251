// The heap blocks of rank messages' payloads (payload.hpp: payload_block, free_payload_block).
//
// A small message's block is allocated on the sending PE and freed on the receiving one. With
// glibc, a block of a size beyond its fast bins (chunks over 128 bytes) freed by another thread
// goes back to the allocating thread's arena under that arena's lock, and two PEs exchanging
// such messages contend for both locks: an 8-rank alltoall of 128-512 B took twice as long as
// of 64 B, most of it in futex calls (docs/results/mpi-layer.md). So blocks up to
// pooled_bytes come from per-thread pools instead, by size class (powers of two from 64 bytes):
// a thread takes blocks from its own lists and gives back there what it frees, its own blocks
// always and another pool's while its list of the class holds fewer than local_cap blocks,
// without synchronization; beyond that (and from
// threads without a pool) a block goes back to its own pool through a lock-free list per class
// that the owner takes whole when its lists run dry (as the runtime's message pool does,
// core/message.hpp).
// Larger blocks, and blocks allocated outside a pool's thread, are plain heap blocks.
//
// Every block has a 16-byte header before it: its pool (null: the heap) and its class. Pools
// are never destroyed (a block may be freed after its thread ended); a thread that ends gives
// its pool to the next thread that needs one. Memory a pool holds is what its thread had in
// flight at most, in slabs of slab_blocks blocks; costs: an allocation or a local free is a
// few loads and stores, a remote free one compare-and-swap.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "memory/active_heap.hpp"
#include "messaging/payload.hpp"
#include "vela/rt/rank_seam.hpp"

namespace vela::vp::detail {

namespace {

constexpr std::size_t header_bytes = 16;
constexpr std::size_t smallest_class = 64;
constexpr int classes = 7;  // 64 B .. 4 KiB
constexpr std::size_t slab_blocks = 16;
constexpr std::size_t local_cap = 64;  // a list past which another pool's blocks go back

struct Header {
  struct Pool* pool;
  std::uint32_t size_class;
  std::uint32_t unused;
};
static_assert(sizeof(Header) == header_bytes);

struct Free {
  Free* next;
};

int class_of(std::size_t size) {
  int c = 0;
  for (std::size_t room = smallest_class; room < size; room <<= 1) ++c;
  return c;
}

std::size_t room_of(int size_class) {
  return smallest_class << size_class;
}

struct Pool {
  Free* free[classes] = {};
  std::size_t count[classes] = {};  // blocks on free[c]
  std::vector<std::unique_ptr<std::byte[]>> slabs;
  alignas(64) std::atomic<Free*> returned[classes] = {};

  std::byte* take(int c) {
    if (free[c] == nullptr) adopt_returned(c);
    if (free[c] == nullptr) refill(c);
    Free* f = free[c];
    free[c] = f->next;
    --count[c];
    return reinterpret_cast<std::byte*>(f);
  }
  void give_back_local(std::byte* block, int c) {
    auto* f = reinterpret_cast<Free*>(block);
    f->next = free[c];
    free[c] = f;
    ++count[c];
  }
  void adopt_returned(int c) {
    free[c] = returned[c].exchange(nullptr, std::memory_order_acquire);
    for (const Free* f = free[c]; f != nullptr; f = f->next) ++count[c];
  }
  void give_back_remote(std::byte* block, int c) {
    auto* f = reinterpret_cast<Free*>(block);
    Free* old = returned[c].load(std::memory_order_relaxed);
    do {
      f->next = old;
    } while (!returned[c].compare_exchange_weak(old, f, std::memory_order_release,
                                                std::memory_order_relaxed));
  }
  void refill(int c) {
    const HeapPause pause;  // never a rank's slot heap: blocks outlive the rank's stay here
    const std::size_t stride = header_bytes + room_of(c);
    slabs.push_back(std::make_unique<std::byte[]>(stride * slab_blocks));
    std::byte* slab = slabs.back().get();
    for (std::size_t i = 0; i < slab_blocks; ++i) {
      std::byte* at = slab + i * stride;
      ::new (at) Header{this, static_cast<std::uint32_t>(c), 0};
      give_back_local(at + header_bytes, c);
    }
  }
};

// Pools whose threads ended, for the next thread; and every pool, so that none looks leaked.
std::mutex pools_lock;
std::vector<Pool*> idle_pools;
std::vector<std::unique_ptr<Pool>> all_pools;

struct ThisThread {
  Pool* pool = nullptr;
  ~ThisThread() {
    if (pool == nullptr) return;
    const std::lock_guard lock(pools_lock);
    idle_pools.push_back(pool);
    pool = nullptr;  // a block this thread frees from now on goes back as another thread's would
  }
};
thread_local ThisThread this_thread;

Pool& pool_here() {
  if (this_thread.pool != nullptr) return *this_thread.pool;
  const std::lock_guard lock(pools_lock);
  if (!idle_pools.empty()) {
    this_thread.pool = idle_pools.back();
    idle_pools.pop_back();
  } else {
    const HeapPause pause;
    all_pools.push_back(std::make_unique<Pool>());
    this_thread.pool = all_pools.back().get();
  }
  return *this_thread.pool;
}

Header& header_of(std::byte* block) {
  return *std::launder(reinterpret_cast<Header*>(block - header_bytes));
}

}  // namespace

std::byte* payload_block(std::size_t size) {
  if (size <= pooled_bytes && rt::detail::on_pe()) {
    const int c = class_of(size);
    return pool_here().take(c);
  }
  auto* raw = static_cast<std::byte*>(::operator new(header_bytes + size));
  ::new (raw) Header{nullptr, 0, 0};
  return raw + header_bytes;
}

void free_payload_block(std::byte* block) noexcept {
  Header& h = header_of(block);
  if (h.pool == nullptr) {
    ::operator delete(block - header_bytes);
    return;
  }
  // Kept by the freeing thread's pool, as glibc's per-thread cache keeps another thread's chunk
  // (two PEs exchanging messages then reuse each other's blocks without touching a shared
  // line), while its list of the class holds fewer than local_cap blocks; beyond, and from a
  // thread without a pool, back
  // to the block's own pool, so that one-way traffic does not pile blocks up on the receiver.
  const int c = static_cast<int>(h.size_class);
  Pool* here = this_thread.pool;
  if (here != nullptr && (h.pool == here || here->count[c] < local_cap)) {
    here->give_back_local(block, c);
  } else {
    h.pool->give_back_remote(block, c);
  }
}

}  // namespace vela::vp::detail
