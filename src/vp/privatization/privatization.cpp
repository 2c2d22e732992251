// Privatized globals: the per-rank state a PE switches in and out with a rank.
// privatized<T> copies live in one block per rank (a pointer set per switch), registered
// globals are copied in and out, and the TLS method (privatization_tls.cpp) moves the thread
// pointer to the rank's own TLS block.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "memory/active_heap.hpp"
#include "privatization/privatization.hpp"
#include "privatization/privatization_detail.hpp"
#include "privatization/thread_locals.hpp"
#include "vela/vp/privatized.hpp"

// Out of line, and out of interprocedural analysis too (GCC could otherwise find the accessor
// pure and reuse one call's result across a switch).
#if defined(__clang__)
#define VELA_OPAQUE __attribute__((noinline))
#else
#define VELA_OPAQUE __attribute__((noinline, noipa))
#endif

namespace vela::vp {

namespace detail {

namespace {

constinit thread_local std::byte* current_block = nullptr;

struct PrivatizedVariable {
  std::size_t offset = 0;
  std::size_t bytes = 0;
  const void* initial = nullptr;
  CopyFunction copy = nullptr;
  DestroyFunction destroy = nullptr;
};

struct Global {
  std::byte* address = nullptr;
  std::size_t bytes = 0;
  std::size_t offset = 0;  // in a rank's save area
};

// What is registered, and how many ranks hold blocks laid out from it (nothing may be
// registered then). Rank blocks are made and dropped under the mutex; the switch reads the
// globals without it, since they cannot change while a rank lives.
struct Registry {
  std::mutex mutex;
  std::vector<PrivatizedVariable> variables;
  std::size_t block_bytes = 0;
  std::size_t block_alignment = alignof(std::max_align_t);
  std::vector<Global> globals;
  std::map<std::uintptr_t, std::size_t> global_ranges;  // each global's bytes, by its address
  std::size_t global_bytes = 0;
  std::vector<std::byte> global_initial;  // the globals' values when the run's first rank began
  int live = 0;
};

// Never destroyed: privatized variables of other translation units register during static
// initialization and may outlive any static object here.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

void check_no_ranks(const Registry& r, const char* call) {
  if (r.live > 0) {
    throw Error(fmt::format("{}: {} rank(s) are alive; register before vp::run", call, r.live));
  }
}

// The block's memory: from the rank's slot heap when it has one (what the copies allocate goes
// there too, under heap routing), else from the process heap.
std::byte* allocate_block(const Registry& r, SlotHeap* heap) {
  if (heap == nullptr) {
    return static_cast<std::byte*>(
        ::operator new (r.block_bytes, std::align_val_t{r.block_alignment}));
  }
  void* p = heap->allocate(r.block_bytes, r.block_alignment);
  if (p == nullptr) {
    throw Error(
        fmt::format("privatized globals: the rank's heap ({} bytes, --vp-heap) cannot "
                    "hold their {} bytes",
                    heap->capacity(), r.block_bytes));
  }
  return static_cast<std::byte*>(p);
}

void free_block(const Registry& r, std::byte* block, SlotHeap* heap) noexcept {
  if (heap != nullptr) {
    heap->release(block);
  } else {
    ::operator delete (block, std::align_val_t{r.block_alignment});
  }
}

// The rank's copies of the privatized variables, made from their main copies.
std::byte* make_block(const Registry& r, SlotHeap* heap) {
  if (r.block_bytes == 0) return nullptr;
  std::byte* block = allocate_block(r, heap);
  struct Route {
    SlotHeap* saved;
    explicit Route(SlotHeap* h) : saved(active_heap()) {
      if (h != nullptr) set_active_heap(h);
    }
    ~Route() { set_active_heap(saved); }
  } route(heap);
  std::size_t made = 0;
  try {
    for (; made < r.variables.size(); ++made) {
      const PrivatizedVariable& v = r.variables[made];
      if (v.copy != nullptr) v.copy(block + v.offset, v.initial);
    }
  } catch (...) {
    while (made > 0) {
      --made;
      const PrivatizedVariable& v = r.variables[made];
      if (v.destroy != nullptr) v.destroy(block + v.offset);
    }
    free_block(r, block, heap);
    throw;
  }
  return block;
}

void drop_block(const Registry& r, std::byte* block, SlotHeap* heap) noexcept {
  if (block == nullptr) return;
  for (std::size_t i = r.variables.size(); i > 0; --i) {
    const PrivatizedVariable& v = r.variables[i - 1];
    if (v.destroy != nullptr) v.destroy(block + v.offset);
  }
  free_block(r, block, heap);
}

// A registered global's bytes: most are ints and doubles, copied without a call to memcpy.
inline void copy_global(std::byte* to, const std::byte* from, std::size_t bytes) noexcept {
  switch (bytes) {
    case 4:
      std::memcpy(to, from, 4);
      break;
    case 8:
      std::memcpy(to, from, 8);
      break;
    default:
      std::memcpy(to, from, bytes);
      break;
  }
}

}  // namespace

VELA_OPAQUE std::byte* private_block() noexcept {
  return current_block;
}

VELA_OPAQUE void set_private_block(std::byte* block) noexcept {
  current_block = block;
}

void carry_private_block() {
  carry_thread_local(&current_block, sizeof current_block);
}

std::size_t register_privatized(std::size_t bytes, std::size_t alignment, const void* initial,
                                CopyFunction copy, DestroyFunction destroy) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  check_no_ranks(r, "vela::vp::privatized");
  const std::size_t offset = (r.block_bytes + alignment - 1) / alignment * alignment;
  r.variables.push_back({offset, bytes, initial, copy, destroy});
  r.block_bytes = offset + bytes;
  r.block_alignment = std::max(r.block_alignment, alignment);
  return offset;
}

void unregister_privatized(std::size_t offset) noexcept {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (r.live > 0) return;
  // Offsets grow with registration (every variable has at least one byte).
  auto v =
      std::lower_bound(r.variables.begin(), r.variables.end(), offset,
                       [](const PrivatizedVariable& a, std::size_t b) { return a.offset < b; });
  if (v != r.variables.end() && v->offset == offset) {
    v->initial = nullptr;
    v->copy = nullptr;
    v->destroy = nullptr;
  }
}

std::size_t registered_globals() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.globals.size();
}

std::size_t registered_global_bytes() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.global_bytes;
}

std::size_t privatized_variables() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return static_cast<std::size_t>(
      std::count_if(r.variables.begin(), r.variables.end(),
                    [](const PrivatizedVariable& v) { return v.copy != nullptr; }));
}

// ---- a rank's globals ----

struct RankGlobals::Impl {
  int rank = 0;
  std::byte* block = nullptr;          // privatized<T> copies, or nullptr when there are none
  std::byte* outside_block = nullptr;  // the thread's current block before switch_in
  std::vector<std::byte> saved;        // registered globals while the rank is switched out
  const std::vector<Global>* globals = nullptr;
  std::unique_ptr<TlsBlock> tls;
  SlotHeap* heap = nullptr;
};

namespace {

// Registered globals: a rank's saved copy starts from the values the globals had when the
// process's first rank began (under the registry's mutex).
// Every rank of a run starts from those values, not from what a rank that ran before left in
// them; a rank arriving from another process brings its own `saved`.
void join_globals(Registry& r, std::vector<std::byte>& saved, const std::vector<Global>*& globals) {
  if (r.globals.empty()) return;
  if (r.live == 0) {
    r.global_initial.resize(r.global_bytes);
    for (const Global& g : r.globals) {
      std::memcpy(r.global_initial.data() + g.offset, g.address, g.bytes);
    }
  }
  if (saved.size() != r.global_bytes) saved = r.global_initial;
  globals = &r.globals;
}

}  // namespace

RankGlobals::RankGlobals(int rank, bool tls, SlotHeap* heap) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.rank = rank;
  s.heap = heap;
  if (tls) s.tls = std::make_unique<TlsBlock>();
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  s.block = make_block(r, heap);
  join_globals(r, s.saved, s.globals);
  ++r.live;
}

void RankGlobals::leave() noexcept {
  impl_->block = nullptr;
}

std::byte* RankGlobals::block() const noexcept {
  return impl_->block;
}

const std::vector<std::byte>& RankGlobals::saved() const noexcept {
  return impl_->saved;
}

std::unique_ptr<RankGlobals> RankGlobals::arrive(int rank, SlotHeap* heap, std::byte* block,
                                                 std::vector<std::byte> saved) {
  // Built empty (no block: the registry has none, or it is replaced), then given the block
  // that came with the slot.
  std::unique_ptr<RankGlobals> g(new RankGlobals(rank, false, nullptr, nullptr));
  Impl& s = *g->impl_;
  s.heap = heap;
  s.block = block;
  s.saved = std::move(saved);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  join_globals(r, s.saved, s.globals);
  ++r.live;
  return g;
}

RankGlobals::RankGlobals(int rank, bool tls, SlotHeap* heap, std::nullptr_t)
    : impl_(std::make_unique<Impl>()) {
  impl_->rank = rank;
  impl_->heap = heap;
  static_cast<void>(tls);
}

RankGlobals::~RankGlobals() {
  Impl& s = *impl_;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  drop_block(r, s.block, s.heap);
  if (--r.live == 0 && !r.globals.empty()) {
    // After the run, code outside ranks sees the globals as they were before it.
    for (const Global& g : r.globals) {
      std::memcpy(g.address, r.global_initial.data() + g.offset, g.bytes);
    }
  }
}

void RankGlobals::switch_in() {
  Impl& s = *impl_;
  s.outside_block = private_block();
  set_private_block(s.block);
  if (s.globals != nullptr) {
    const std::byte* saved = s.saved.data();
    for (const Global& g : *s.globals) copy_global(g.address, saved + g.offset, g.bytes);
  }
  // Last: the carried thread-locals (the current block among them) go in with their new values.
  if (s.tls) s.tls->switch_in();
}

void RankGlobals::switch_out() {
  Impl& s = *impl_;
  if (s.tls) s.tls->switch_out();
  if (s.globals != nullptr) {
    std::byte* saved = s.saved.data();
    for (const Global& g : *s.globals) copy_global(saved + g.offset, g.address, g.bytes);
  }
  set_private_block(s.outside_block);
}

void check_privatization(const Options& options, rt::PeId pes) {
  const std::size_t globals = registered_globals();
  if (globals > 0 && pes > 1) {
    throw Error(fmt::format(
        "vela::vp: {} registered global(s) (vela::vp::register_global) are copied in and out "
        "at each rank switch, so only one PE may run ranks: run with --pes 1 (not --pes {}), "
        "or make them vela::vp::privatized<T> or thread_local with --vp-tls-globals",
        globals, pes));
  }
  if (options.tls_globals) tls_layout();  // throws, naming --vp-tls-globals
}

}  // namespace detail

void register_global(void* address, std::size_t bytes) {
  if (address == nullptr || bytes == 0) {
    throw Error("vela::vp::register_global: a null address or an empty range");
  }
  detail::Registry& r = detail::registry();
  std::lock_guard lock(r.mutex);
  detail::check_no_ranks(r, "vela::vp::register_global");
  const auto begin = reinterpret_cast<std::uintptr_t>(address);
  // The registered range starting at or before `begin`, and the next one: either may overlap.
  const auto next = r.global_ranges.upper_bound(begin);
  for (auto it :
       {next == r.global_ranges.begin() ? r.global_ranges.end() : std::prev(next), next}) {
    if (it == r.global_ranges.end()) continue;
    const auto [start, length] = *it;
    if (start == begin && length == bytes) return;
    if (begin < start + length && start < begin + bytes) {
      throw Error(fmt::format(
          "vela::vp::register_global: {} bytes at {} overlap {} bytes at {:#x} registered before",
          bytes, address, length, start));
    }
  }
  r.globals.push_back({static_cast<std::byte*>(address), bytes, r.global_bytes});
  r.global_ranges.emplace(begin, bytes);
  r.global_bytes += bytes;
}

void unregister_globals() {
  detail::Registry& r = detail::registry();
  std::lock_guard lock(r.mutex);
  detail::check_no_ranks(r, "vela::vp::unregister_globals");
  r.globals.clear();
  r.global_ranges.clear();
  r.global_bytes = 0;
  r.global_initial.clear();
}

}  // namespace vela::vp
