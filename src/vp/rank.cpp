// Fibers: starting a rank on its stack slot, switching between a PE's scheduler and a rank (with
// the sanitizers told about each switch), and the entry methods that resume ranks.
#include "rank.hpp"

#include <boost/context/preallocated.hpp>
#include <boost/context/stack_context.hpp>

#include "state.hpp"
#include "thread_locals.hpp"

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
}

RankContext& current(const char* call) {
  RankContext* rank = running;
  if (rank == nullptr) throw Error(std::string(call) + ": called outside a rank");
  return *rank;
}

RequestState* RankContext::new_request() {
  RequestState* r;
  if (!free_requests.empty()) {
    r = free_requests.back();
    free_requests.pop_back();
    *r = RequestState{};
  } else {
    r = &requests.emplace_back();
  }
  r->in_use = true;
  return r;
}

void RankContext::release(RequestState* request) {
  request->in_use = false;
  request->error = nullptr;
  free_requests.push_back(request);
}

void resume(RankContext& rank) {
  World& world = *rank.world;
  if (rank.state == RankState::created) {
    rank.stack = world.stacks->open(static_cast<std::size_t>(rank.rank));
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
  if (rank.globals) rank.globals->switch_in();
  leaving_for_rank(rank);
  rank.fiber = std::move(rank.fiber).resume();
  back_from_rank(rank);
  if (rank.globals) rank.globals->switch_out();
  running = outer;
  if (rank.state == RankState::finished) {
    // The fiber has returned: its stack is free.
    rank.stack_resident = world.stacks->resident(static_cast<std::size_t>(rank.rank));
    world.stacks->close(static_cast<std::size_t>(rank.rank));
    rank.stack = nullptr;
#if defined(VELA_TSAN_FIBERS)
    __tsan_destroy_fiber(rank.tsan_fiber);
    rank.tsan_fiber = nullptr;
#endif
    rank.globals.reset();
    world.finished.fetch_add(1, std::memory_order_relaxed);
    if (rank.error && !rank.cancelled) {
      std::exception_ptr e = std::move(rank.error);
      rank.error = nullptr;
      std::rethrow_exception(e);
    }
  }
}

void run_on_pe(RankContext& rank) {
  resume(rank);
  World& world = *rank.world;
  if (world.here.empty()) return;
  std::deque<RankContext*>& ready = world.here[static_cast<std::size_t>(rank.element->pe())].ready;
  for (int handoffs = 0; !ready.empty(); ++handoffs) {
    RankContext* next = ready.front();
    ready.pop_front();
    if (next->state != RankState::ready) continue;
    if (handoffs == max_handoffs) {
      // Enough in a row: the rest go through the scheduler like any message.
      rt::detail::send_entry<&RankElement::wake>(world.ranks.id(),
                                                 static_cast<std::uint64_t>(next->rank), 0);
      --handoffs;
      continue;
    }
    rt::detail::continue_as(*next->element, "deliver");
    resume(*next);
  }
}

CallLabel::CallLabel(const char* call) : rank_(current()) {
  if (rank_ == nullptr) return;
  outer_ = rank_->label;
  if (outer_ == nullptr) rank_->label = call;
}

CallLabel::~CallLabel() {
  if (rank_ != nullptr && outer_ == nullptr) rank_->label = nullptr;
}

void suspend(RankContext& rank, RankState state, const char* call) {
  rank.state = state;
  rank.waiting_in = rank.label != nullptr ? rank.label : call;
  leaving_rank(rank, &rank.fake_stack, false);
  rank.caller = std::move(rank.caller).resume();
  arrived_in_rank(rank, rank.fake_stack);
  rank.waiting_in = "";
  if (rank.cancelled) throw Cancelled{};
}

// ---- the element ----

RankElement::RankElement(std::uintptr_t world) : world_(reinterpret_cast<World*>(world)) {
  auto* c = new RankContext;
  c->rank = static_cast<int>(linear_index());
  c->world = world_;
  c->element = this;
  context_ = c;
  world_->contexts[static_cast<std::size_t>(c->rank)] = c;
}

RankElement::~RankElement() {
  if (!handed_over_) delete context_;
}

void RankElement::start() {
  RankContext& rank = *context_;
  rank.globals = std::make_unique<RankGlobals>(rank.rank, world_->options->tls_globals);
  run_on_pe(rank);
}

void RankElement::deliver(Envelope envelope, Payload data) {
  RankContext& rank = *context_;
  if (accept(rank, envelope, std::move(data)) && rank.state == RankState::blocked) run_on_pe(rank);
}

void RankElement::wake() {
  RankContext& rank = *context_;
  if (rank.state == RankState::yielded || rank.state == RankState::ready) run_on_pe(rank);
}

void RankElement::resume_from_sync() {
  RankContext& rank = *context_;
  if (rank.state == RankState::at_sync) run_on_pe(rank);
}

// Within one process a rank moves by handing its context (fiber, stack slot, queues) to the
// element built on the new PE: the stack is not copied and the fiber resumes there.
void RankElement::pup(pup::Archive& ar) {
  auto world = reinterpret_cast<std::uintptr_t>(world_);
  auto context = reinterpret_cast<std::uintptr_t>(context_);
  ar | world | context;
  if (ar.packing()) handed_over_ = true;
  if (ar.unpacking()) {
    world_ = reinterpret_cast<World*>(world);
    context_ = reinterpret_cast<RankContext*>(context);
    context_->element = this;
    world_->migrations.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace vela::vp::detail
