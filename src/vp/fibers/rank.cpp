// Fibers: starting a rank on its stack slot, switching between a PE's scheduler and a rank (with
// the sanitizers told about each switch), and the entry methods that resume ranks.
#include "fibers/rank.hpp"

#include <boost/context/preallocated.hpp>
#include <boost/context/stack_context.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "fibers/faults.hpp"
#include "image/program_image.hpp"
#include "image/rank_libc.hpp"
#include "memory/active_heap.hpp"
#include "memory/heap_streams.hpp"
#include "privatization/thread_locals.hpp"
#include "vela/rt/rank_seam.hpp"

#if defined(VELA_SANITIZE_FIBERS)
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define VELA_ASAN_FIBERS 1
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define VELA_TSAN_FIBERS 1
#endif
#endif

namespace vela::vp::detail {

namespace ctx = boost::context;

namespace {

thread_local RankContext* running = nullptr;
std::atomic<World*> this_world{nullptr};

// A suspended fiber is one pointer into its stack (Boost.Context's fcontext); moving a rank to
// another process carries it raw, and the side it left forgets it without unwinding the fiber.
static_assert(sizeof(ctx::fiber) == sizeof(void*));
std::uintptr_t fiber_handle(const ctx::fiber& f) {
  std::uintptr_t h;
  std::memcpy(&h, static_cast<const void*>(&f), sizeof h);
  return h;
}
void set_fiber_handle(ctx::fiber& f, std::uintptr_t h) {
  std::memcpy(static_cast<void*>(&f), &h, sizeof h);
}

// `address` joins the lines asked for ahead of the rank's resumption while there is room.
void note_line(RankContext& rank, const void* address) noexcept {
  if (address == nullptr) return;
  for (const void*& line : rank.resume_lines) {
    if (line == address) return;
    if (line == nullptr) {
      line = address;
      return;
    }
  }
}

// The rank's new globals: what their switch reads joins the lines asked for ahead of the rank's
// resumption (run_on_pe).
void note_globals(RankContext& rank) {
  note_line(rank, rank.globals.get());
  note_line(rank, rank.globals->state());
}

// The stack a rank's fiber runs on: its slot of the world's range. The slot is given back when
// the rank finishes (World::stacks closes it), not by the fiber.
struct SlotStack {
  ctx::stack_context context;
  ctx::stack_context allocate() { return context; }
  void deallocate(ctx::stack_context&) noexcept {}
};

// Sanitizers must know which stack runs: before each switch the side that leaves says where it
// goes, and the side that arrives confirms.
void leaving_for_rank(RankContext& rank) {
#if defined(VELA_ASAN_FIBERS)
  __sanitizer_start_switch_fiber(&rank.fake_stack, rank.stack, rank.world->stacks->stack_bytes());
#endif
#if defined(VELA_TSAN_FIBERS)
  rank.tsan_scheduler = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(rank.tsan_fiber, 0);
#endif
  static_cast<void>(rank);
}

void back_from_rank(RankContext& rank) {
#if defined(VELA_ASAN_FIBERS)
  __sanitizer_finish_switch_fiber(rank.fake_stack, nullptr, nullptr);
#endif
  static_cast<void>(rank);
}

void arrived_in_rank(RankContext& rank, void* fake_stack) {
#if defined(VELA_ASAN_FIBERS)
  __sanitizer_finish_switch_fiber(fake_stack, &rank.scheduler_stack, &rank.scheduler_stack_size);
#endif
  static_cast<void>(rank);
  static_cast<void>(fake_stack);
}

// `finishing`: the rank's stack will not be used again (ASan drops its fake frames).
void leaving_rank(RankContext& rank, void** fake_stack, bool finishing) {
#if defined(VELA_ASAN_FIBERS)
  __sanitizer_start_switch_fiber(finishing ? nullptr : fake_stack, rank.scheduler_stack,
                                 rank.scheduler_stack_size);
#endif
#if defined(VELA_TSAN_FIBERS)
  __tsan_switch_to_fiber(rank.tsan_scheduler, 0);
#endif
  static_cast<void>(rank);
  static_cast<void>(fake_stack);
  static_cast<void>(finishing);
}

// Thrown inside a rank that is unwound at the end of a failed run (deadlock, error, abort), so
// that its frames' destructors run; caught where the fiber began.
struct Cancelled {};

ctx::fiber rank_main(RankContext& rank, ctx::fiber&& caller) {
  rank.caller = std::move(caller);
  arrived_in_rank(rank, nullptr);
  try {
    if (rank.cancelled) throw Cancelled{};
    (*rank.world->body)();
  } catch (const Cancelled&) {
  } catch (...) {
    rank.error = std::current_exception();
    if (rank.heap != nullptr) {
      // Made while the rank's heap was in use, the exception would die with the slot: keep
      // its message in an Error from the process heap.
      const HeapPause pause;
      try {
        throw;
      } catch (const std::exception& e) {
        rank.error = std::make_exception_ptr(Error(e.what()));
      } catch (...) {
        rank.error = std::make_exception_ptr(Error("rank " + std::to_string(rank.rank) +
                                                   ": an exception that is not a std::exception"));
      }
    }
  }
  rank.state = RankState::finished;
  leaving_rank(rank, nullptr, true);
  return std::move(rank.caller);
}

}  // namespace

RankContext* current() {
  return running;
}

void carry_rank_thread_locals() {
  carry_thread_local(&running, sizeof running);
  carry_running_rank_libc();
}

RankContext& current(const char* call) {
  RankContext* rank = running;
  if (rank == nullptr) throw Error(std::string(call) + ": called outside a rank");
  return *rank;
}

World* local_world() noexcept {
  return this_world.load(std::memory_order_acquire);
}

RequestState* RankContext::new_request() {
  RequestState* r;
  if (!free_requests.empty()) {
    r = free_requests.back();
    free_requests.pop_back();
    *r = RequestState{};
  } else {
    // Room first (growing geometrically), so that the push below cannot throw and lose it.
    if (requests.size() == requests.capacity()) requests.reserve(2 * requests.size() + 4);
    if (heap != nullptr) {
      void* p = heap->allocate(sizeof(RequestState), alignof(RequestState));
      if (p == nullptr) {
        char why[320];
        heap->say_full(why, sizeof why, sizeof(RequestState));
        throw Error("rank " + std::to_string(rank) + ": " + why);
      }
      r = ::new (p) RequestState;
    } else {
      r = new RequestState;
    }
    requests.push_back(r);
  }
  r->in_use = true;
  return r;
}

void RankContext::drop_requests() noexcept {
  for (RequestState* r : requests) {
    if (heap != nullptr) {
      r->~RequestState();
      heap->release(r);
    } else {
      delete r;
    }
  }
  requests.clear();
  free_requests.clear();
  posted.clear();
}

RankContext::~RankContext() {
  // In a slot heap they are gone with the slot (a finished or departed rank's).
  if (heap == nullptr) drop_requests();
}

void RankContext::release(RequestState* request) {
  request->in_use = false;
  request->error = nullptr;
  free_requests.push_back(request);
}

void resume(RankContext& rank) {
  World& world = *rank.world;
  ensure_signal_stack();  // the fault reports' (fibers/faults.hpp)
  if (rank.state == RankState::created) {
    const std::size_t size = world.stacks->stack_bytes();
    SlotStack slot;
    slot.context.size = size;
    slot.context.sp = static_cast<std::byte*>(rank.stack) + size;
#if defined(VELA_TSAN_FIBERS)
    rank.tsan_fiber = __tsan_create_fiber(0);
#endif
    RankContext* self = &rank;
    rank.fiber =
        ctx::fiber(std::allocator_arg, ctx::preallocated(slot.context.sp, size, slot.context), slot,
                   [self](ctx::fiber&& caller) { return rank_main(*self, std::move(caller)); });
  }
  rank.state = RankState::running;
  ++rank.switches;
  RankContext* outer = running;
  running = &rank;
  // The rank's errno and C library state go in with it (ranks of one PE share its thread).
  const int outer_errno = errno;
  errno = rank.saved_errno;
  RankLibc* outer_libc = running_rank_libc();
  set_running_rank_libc(rank.libc);
  if (rank.globals) rank.globals->switch_in();
  SlotHeap* outer_heap = active_heap();
  set_active_heap(rank.resume_heap);
  leaving_for_rank(rank);
  rank.fiber = std::move(rank.fiber).resume();
  back_from_rank(rank);
  set_active_heap(outer_heap);
  if (rank.globals) rank.globals->switch_out();
  set_running_rank_libc(outer_libc);
  rank.saved_errno = errno;
  errno = outer_errno;
  running = outer;
  if (rank.state == RankState::finished) {
    // The fiber has returned: its stack and heap are free (the globals' copies and the
    // requests first, while their memory is still there).
    rank.globals.reset();
    rank.drop_requests();
    // The files it left open, flushed and closed while their FILEs are still in its heap.
    if (rank.heap != nullptr) {
      close_streams_in(world.stacks->heap_region(static_cast<std::size_t>(rank.rank)),
                       world.stacks->heap_bytes());
    }
    close_rank_image(rank);
    rank.stack_resident = world.stacks->resident(static_cast<std::size_t>(rank.rank));
    world.stacks->close(static_cast<std::size_t>(rank.rank), true);
    rank.stack = nullptr;
    rank.heap = nullptr;
#if defined(VELA_TSAN_FIBERS)
    __tsan_destroy_fiber(rank.tsan_fiber);
    rank.tsan_fiber = nullptr;
#endif
    world.finished.fetch_add(1, std::memory_order_relaxed);
    if (rank.error && !rank.cancelled) {
      std::exception_ptr e = std::move(rank.error);
      rank.error = nullptr;
      std::rethrow_exception(e);
    }
  }
}

namespace {

// Ranks resumed in a row (a collective's result makes every waiting rank of a PE ready at once):
// with thousands of them, what a rank touches when it resumes — its context and the top of its
// stack on one page of its slot, its element, its privatization state, the MPI layer's objects —
// left the caches and the TLB since its last turn, and each resumption would wait for those
// lines one after another. So they are asked for ahead: the context's lines `context_ahead`
// ranks before its turn, then, once those are in, the lines its context points to and its
// stack's top `lines_ahead` ranks before. No prefetch address is loaded from a line that may
// still be missing (a prefetch waiting for its address holds up the PE like the miss itself:
// measured, docs/results/ranks.md, "One page per switch"), hence the two steps, and the stack's
// top found at the depth where the previous rank saved its registers instead of from the
// context. Cost: about 40 prefetches per rank resumed. The helpers are always inlined: GCC
// takes a function that only reads memory and prefetches for a pure one and drops its calls.
constexpr std::size_t context_ahead = 8;
constexpr std::size_t lines_ahead = 4;
constexpr int context_lines = 4;  // the fields resume() and the hints read
constexpr int stack_lines = 28;   // the saved registers and the frames returned through

[[gnu::always_inline]] inline void ask_for_context(const RankContext& rank) {
  const auto* line = reinterpret_cast<const char*>(&rank);
  for (int i = 0; i < context_lines; ++i) __builtin_prefetch(line + 64 * i, 0, 3);
}

[[gnu::always_inline]] inline void ask_for_lines(const RankContext& rank, std::ptrdiff_t depth) {
  __builtin_prefetch(rank.element, 1, 3);
  for (const void* line : rank.resume_lines) {
    if (line != nullptr) __builtin_prefetch(line, 0, 3);
  }
  if (depth <= 0 || depth > 3 * 1024) return;  // not on the context's page
  const char* top = reinterpret_cast<const char*>(&rank) - depth;
  const auto lines = std::min<std::ptrdiff_t>(stack_lines, (depth + 63) / 64);  // below it only
  for (std::ptrdiff_t i = 0; i < lines; ++i) __builtin_prefetch(top + 64 * i, 1, 3);
}

[[gnu::always_inline]] inline void ask_ahead(const std::deque<RankContext*>& ready,
                                             std::ptrdiff_t depth) {
  if (ready.size() > context_ahead) ask_for_context(*ready[context_ahead]);
  if (ready.size() > lines_ahead) ask_for_lines(*ready[lines_ahead], depth);
}

}  // namespace

void note_resume_line(const void* address) noexcept {
  if (RankContext* rank = current()) note_line(*rank, address);
}

void run_on_pe(RankContext& rank) {
  resume(rank);
  World& world = *rank.world;
  if (world.here.empty()) return;
  World::PeLocal& pe = world.here[static_cast<std::size_t>(rank.element->pe())];
  std::deque<RankContext*>& ready = pe.ready;
  for (int handoffs = 0; !ready.empty(); ++handoffs) {
    RankContext* next = ready.front();
    if (next->state != RankState::ready) {
      ready.pop_front();
      continue;
    }
    if (handoffs >= max_handoffs &&
        (handoffs >= max_handoffs_unchecked || rt::detail::pe_has_waiting_messages())) {
      // Enough in a row: what waits on the PE goes first, and the ranks still ready follow
      // through one wake of the first, whose run_on_pe takes the others from here.
      ++pe.ready_passes;
      rt::detail::send_entry<&RankElement::wake>(world.ranks.id(),
                                                 static_cast<std::uint64_t>(next->rank), 0);
      return;
    }
    ready.pop_front();
    ask_ahead(ready, pe.resume_depth);
    rt::detail::continue_as(*next->element, "deliver");
    resume(*next);
    pe.resume_depth = reinterpret_cast<std::intptr_t>(next) -
                      static_cast<std::intptr_t>(fiber_handle(next->fiber));
  }
}

CallLabel::CallLabel(const char* call) : rank_(current()) {
  if (rank_ == nullptr) return;
  rank_index_ = rank_->rank;
  size_ = rank_->world->size;
  outer_ = rank_->label;
  if (outer_ == nullptr) rank_->label = call;
  heap_ = active_heap();
  if (heap_ != nullptr) set_active_heap(nullptr);
}

CallLabel::~CallLabel() {
  if (rank_ == nullptr) return;
  if (outer_ == nullptr) rank_->label = nullptr;
  if (heap_ != nullptr) set_active_heap(static_cast<SlotHeap*>(heap_));
}

RankHeapScope::RankHeapScope() noexcept {
  const RankContext* rank = current();
  if (rank == nullptr || rank->heap == nullptr) return;
  saved_ = active_heap();
  set_active_heap(rank->heap);
  set_ = true;
}

RankHeapScope::~RankHeapScope() {
  if (set_) set_active_heap(static_cast<SlotHeap*>(saved_));
}

void suspend(RankContext& rank, RankState state, const char* call) {
  rank.state = state;
  rank.resume_heap = active_heap();
  rank.waiting_in = rank.label != nullptr ? rank.label : call;
  leaving_rank(rank, &rank.fake_stack, false);
  rank.caller = std::move(rank.caller).resume();
  arrived_in_rank(rank, rank.fake_stack);
  rank.waiting_in = "";
  if (rank.cancelled) throw Cancelled{};
}

// ---- the element ----

// The rank's context is made in its slot, which is opened here for good: the context page
// stays readable after the rank finishes (vp::run reads it), its stack and heap do not.
RankElement::RankElement(std::uintptr_t world, const std::string& /*identity*/)
    : world_(world != 0 ? reinterpret_cast<World*>(world) : local_world()) {
  const auto r = static_cast<std::size_t>(linear_index());
  void* stack = world_->stacks->open(r);
  auto* c = ::new (world_->stacks->context(r)) RankContext;
  c->rank = static_cast<int>(r);
  c->world = world_;
  c->element = this;
  c->stack = stack;
  c->heap = world_->stacks->heap(r);
  c->resume_heap = c->heap;
  context_ = c;
  world_->contexts[r] = c;
}

RankElement::~RankElement() {
  if (!moved_out_) return;
  // Packed for another process: what was here of the rank goes. Its fiber, heap blocks and
  // globals' copies left with the slot's bytes: forgotten, not destroyed.
  RankContext& c = *context_;
  const auto r = static_cast<std::size_t>(c.rank);
  set_fiber_handle(c.fiber, 0);
  if (c.globals) {
    c.globals->leave();
    c.globals.reset();
  }
  close_rank_image(c);
  c.requests.clear();
  c.~RankContext();
  world_->contexts[r] = nullptr;
  world_->stacks->close(r, false);
}

void RankElement::start() {
  RankContext& rank = *context_;
  const bool tls = world_->privatization == Privatization::tls && program_image() == nullptr;
  rank.globals = std::make_unique<RankGlobals>(rank.rank, tls, rank.heap);
  note_globals(rank);
  open_rank_image(rank, world_->stacks->image_region(static_cast<std::size_t>(rank.rank)),
                  world_->privatization);
  run_on_pe(rank);
}

void RankElement::deliver(Envelope envelope, Payload data) {
  RankContext& rank = *context_;
  if (!accept(rank, envelope, std::move(data)) || rank.state != RankState::blocked) return;
  // Its wait is over. When other messages wait on the PE, it resumes behind them (their ranks
  // may have to send what other PEs wait for): rt/rank_seam.hpp, queue_behind_waiting.
  if (rt::detail::pe_has_waiting_messages()) {
    rank.state = RankState::ready;
    rt::detail::queue_behind_waiting<&RankElement::wake>(*this);
    return;
  }
  run_on_pe(rank);
}

void RankElement::deliver_small(SmallArrival arrival) {
  Envelope envelope;
  std::memcpy(&envelope, arrival.envelope, sizeof envelope);
  deliver(envelope, Payload(arrival.bytes, arrival.size));
}

void RankElement::wake() {
  RankContext& rank = *context_;
  if (rank.state == RankState::yielded || rank.state == RankState::ready) run_on_pe(rank);
}

void RankElement::sent() {
  if (context_->state == RankState::blocked) run_on_pe(*context_);
}

void RankElement::help() {
  // The rank's wait may have ended (the receiver copied everything), its next one begun: a loan
  // it waits on is valid here either way, and its copy published or not.
  if (context_->waiting_loan == nullptr) return;
  help_with_copy(world_->here[static_cast<std::size_t>(pe())], *context_->waiting_loan);
}

void RankElement::resume_from_sync() {
  RankContext& rank = *context_;
  if (rank.state == RankState::at_sync) run_on_pe(rank);
}

namespace {

// Pointers put through an archive as their values (valid in the other process: the slot, the
// code and the string literals sit at the same addresses there).
template <class T>
void raw_pointer(pup::Archive& ar, T*& p) {
  auto v = reinterpret_cast<std::uintptr_t>(p);
  ar | v;
  if (ar.unpacking()) p = reinterpret_cast<T*>(v);
}

template <class T>
void raw_pointers(pup::Archive& ar, std::vector<T*>& list) {
  const std::size_t n = ar.length(list.size(), sizeof(std::uintptr_t));
  if (ar.unpacking()) list.assign(n, nullptr);
  for (T*& p : list) raw_pointer(ar, p);
}

}  // namespace

// Within one process a rank moves by handing its context (in its slot) to the element built on
// the new PE: nothing is copied and the fiber resumes there. To another process it moves as
// the bytes of its slot (the live part of the stack, the used part of the heap), copied to the
// same addresses there, and its context's queues and counters, rebuilt in the same place.
void RankElement::pup(pup::Archive& ar) {
  // Within the process, to another process, or into a checkpoint (like another process, and
  // the rank stays here).
  enum : std::uint8_t { same_process, other_process, checkpoint };
  std::uint8_t mode = same_process;
  if (!ar.unpacking()) {
    switch (rt::detail::packing_for()) {
      case rt::detail::PackingFor::checkpoint:
        mode = checkpoint;
        break;
      case rt::detail::PackingFor::other_process:
        mode = other_process;
        break;
      case rt::detail::PackingFor::same_process:
        mode = same_process;
        break;
    }
  }
  ar | mode;
  if (mode > checkpoint) ar.fail("unknown rank packing mode", ar.offset() - 1);
  if (mode == checkpoint) {
    // The stack holds return addresses into the program: it resumes only where the code sits
    // where it sat when the checkpoint was written.
    std::uint64_t code = ar.unpacking() ? 0 : rt::detail::code_layout();
    ar | code;
    if (ar.unpacking() && code != rt::detail::code_layout()) {
      ar.fail(
          "the ranks were checkpointed by a program whose code sat at other addresses (another "
          "build, other libraries, or address-space randomization on: programs that call "
          "vela::vp::prepare_ranks_across_processes turn it off for --checkpoint and "
          "--restart where the system lets them; else run under `setarch -R`)",
          ar.offset());
    }
  }
  if (mode == same_process) {
    auto world = reinterpret_cast<std::uintptr_t>(world_);
    auto context = reinterpret_cast<std::uintptr_t>(context_);
    ar | world | context;
    if (ar.unpacking()) {
      world_ = reinterpret_cast<World*>(world);
      context_ = reinterpret_cast<RankContext*>(context);
      context_->element = this;
      world_->migrations.fetch_add(1, std::memory_order_relaxed);
    }
    return;
  }
  std::int32_t r = ar.unpacking() ? 0 : context_->rank;
  ar | r;
  if (ar.unpacking()) {
    world_ = local_world();
    if (world_ == nullptr || r < 0 || r >= world_->size) {
      ar.fail(
          "a rank arrived from another process or a checkpoint where no run of its ranks "
          "(of this size) is under way",
          ar.offset());
    }
    const auto slot = static_cast<std::size_t>(r);
    void* stack = world_->stacks->open(slot, false);
    auto* c = ::new (world_->stacks->context(slot)) RankContext;
    c->rank = r;
    c->world = world_;
    c->element = this;
    c->stack = stack;
    c->heap = world_->stacks->heap(slot);
    context_ = c;
  } else if (context_->state != RankState::at_sync) {
    throw std::logic_error("rank " + std::to_string(r) +
                           " can move to another process or into a checkpoint only while it "
                           "waits in migrate()");
  }
  RankContext& c = *context_;
  StackRange& stacks = *world_->stacks;
  // The fiber and the live part of its stack (from just below the saved context to the top).
  std::uintptr_t fiber = fiber_handle(c.fiber);
  ar | fiber;
  const auto bottom = reinterpret_cast<std::uintptr_t>(c.stack);
  const std::uintptr_t top = bottom + stacks.stack_bytes();
  std::uint64_t stack_used = top - std::max(bottom, fiber - 256);
  ar | stack_used;
  if (ar.unpacking()) {
    if (fiber <= bottom || fiber >= top || stack_used > stacks.stack_bytes()) {
      ar.fail("a rank's saved stack lies outside its slot", ar.offset());
    }
    set_fiber_handle(c.fiber, fiber);
  }
#if defined(VELA_ASAN_FIBERS)
  // Packing, the copy reads the stack whole, redzones of its frames and the bytes below the
  // saved context included (the stack leaves with the rank: nothing here reads it again);
  // unpacking, it writes memory that is the rank's from now on.
  ASAN_UNPOISON_MEMORY_REGION(reinterpret_cast<void*>(top - stack_used), stack_used);
#endif
  ar.bytes(reinterpret_cast<void*>(top - stack_used), stack_used);
  std::uint64_t heap_used = c.heap != nullptr && !ar.unpacking() ? c.heap->used_bytes() : 0;
  ar | heap_used;
  if (ar.unpacking() && heap_used > stacks.heap_bytes()) {
    ar.fail("a rank's heap is larger than this process's --vp-heap", ar.offset());
  }
  ar.bytes(stacks.heap_region(static_cast<std::size_t>(r)), heap_used);
  pup_rank_image(ar, c, stacks.image_region(static_cast<std::size_t>(r)));
  // The context.
  auto state = c.state;
  ar | state | c.waiting_source | c.waiting_tag | c.waiting_collective;
  c.state = state;
  raw_pointer(ar, c.waiting_in);
  raw_pointer(ar, c.label);
  raw_pointer(ar, c.resume_heap);
  ar | c.unexpected;
  raw_pointers(ar, c.posted);
  raw_pointers(ar, c.requests);
  raw_pointers(ar, c.free_requests);
  ar | c.next_send | c.next_receive | c.early | c.collectives | c.switches;
  bool globals = c.globals != nullptr;
  std::byte* block = globals ? c.globals->block() : nullptr;
  std::vector<std::byte> saved = globals ? c.globals->saved() : std::vector<std::byte>{};
  ar | globals;
  raw_pointer(ar, block);
  ar | saved;
  if (ar.packing() && mode == other_process) moved_out_ = true;
  if (ar.unpacking()) {
    if (globals) {
      c.globals = RankGlobals::arrive(r, c.heap, block, std::move(saved));
      note_globals(c);
    }
    world_->contexts[static_cast<std::size_t>(r)] = &c;
    world_->migrations.fetch_add(1, std::memory_order_relaxed);
  }
}

World::~World() {
  for (RankContext* c : contexts) {
    if (c != nullptr) c->~RankContext();
  }
  this_world.store(nullptr);
}

void World::join_processes() {
  this_world.store(this, std::memory_order_release);
}

}  // namespace vela::vp::detail
