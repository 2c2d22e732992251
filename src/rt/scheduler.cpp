// Each PE's message-driven loop: take what arrived, run one message at a time (runtime messages
// first, then by priority, FIFO among equals), and when there is nothing to do, poll for a
// while and then park. Quiescence is found without a shared counter: each PE counts the
// messages it sent to and took from other PEs, and a PE that runs out of work checks, in two
// waves over every PE, that all are idle and that the counts balance and did not move.
#include <sched.h>

#include <ctime>

#include "state.hpp"
#include "trace/timeline.hpp"

namespace vela::rt::detail {

namespace {

// With a Grid Queue: the count of `message`'s element's messages in the ordinary queues, or
// nullptr for a message to no element.
std::uint32_t* ordinary_count(PeState& pe, const Message& message) {
  if (message.kind != Kind::entry) return nullptr;
  CollectionTable& table = pe.table(message.collection);
  if (message.element >= table.slots.size()) return nullptr;
  if (table.ordinary_queued.empty()) table.ordinary_queued.resize(table.slots.size());
  return &table.ordinary_queued[message.element];
}

void enqueue_local(PeState& pe, Message* message) {
  if (message->priority == system_priority) [[unlikely]] {
    pe.system.push(message);
    return;
  }
  if (pe.runtime->grid_queue) [[unlikely]] {
    // Messages to an element that sent to another cluster go to the Grid Queue, unless some of
    // its messages already wait in the ordinary queues (they came before it was a border
    // element, or before it arrived here): those are served after the Grid Queue, so these
    // follow them there, and one sender's messages keep their order.
    if (std::uint32_t* waiting = ordinary_count(pe, *message)) {
      ElementBase* element = pe.table(message->collection).slots[message->element].element;
      if (*waiting == 0 && element != nullptr && ElementAccess::border(*element)) {
        pe.grid.push({message->priority, pe.arrivals++, message});
        return;
      }
      ++*waiting;
    }
  }
  if (message->priority == 0) {
    pe.fifo.push(message);
  } else {
    pe.prioritized.push({message->priority, pe.arrivals++, message});
  }
}

// A message leaves the ordinary queues (with a Grid Queue, its element's count drops).
Message* leave_ordinary(PeState& pe, Message* message) {
  if (pe.runtime->grid_queue) [[unlikely]] {
    if (std::uint32_t* waiting = ordinary_count(pe, *message)) --*waiting;
  }
  return message;
}

// The next message to run, or nullptr.
Message* next_local(PeState& pe) {
  if (!pe.system.empty()) [[unlikely]]
    return pe.system.pop();
  if (!pe.grid.empty()) [[unlikely]] {
    // The Grid Queue first, but after grid_queue_period of its messages in a row one ordinary
    // message that waits runs (the starvation guard).
    const bool others_wait = !pe.fifo.empty() || !pe.prioritized.empty();
    if (pe.grid_run < pe.runtime->options.grid_queue_period || !others_wait) {
      ++pe.grid_run;
      ++pe.stats.grid_messages;
      Message* m = pe.grid.top().message;
      pe.grid.pop();
      return m;
    }
    pe.grid_run = 0;
  }
  if (!pe.prioritized.empty() && (pe.fifo.empty() || pe.prioritized.top().priority < 0))
      [[unlikely]] {
    Message* m = pe.prioritized.top().message;
    pe.prioritized.pop();
    return leave_ordinary(pe, m);
  }
  if (pe.fifo.empty()) return nullptr;
  return leave_ordinary(pe, pe.fifo.pop());
}

// The delay device's receiving side: a message from another cluster waits until its arrival
// plus the WAN latency.
void hold(PeState& pe, Message* message, Ticks now) {
  message->wan = false;
  pe.delayed.emplace_back(now + pe.runtime->wan_ticks, message);
}

// Queues the held messages whose time has come (only the head needs checking).
void release_delayed(PeState& pe) {
  if (pe.delayed.empty()) [[likely]]
    return;
  const Ticks now = tick_clock::now();
  while (!pe.delayed.empty() && pe.delayed.front().first <= now) {
    enqueue_local(pe, pe.delayed.front().second);
    pe.delayed.pop_front();
  }
}

// Moves what other PEs sent into the local queues; false when nothing had come.
bool take_inbox(PeState& pe) {
  const auto batch = pe.inbox.take_all();
  if (batch.count == 0) return false;
  pe.received.store(pe.received.load(std::memory_order_relaxed) + batch.count,
                    std::memory_order_relaxed);
  Ticks now = 0;
  for (Message* m = batch.first; m != nullptr;) {
    Message* next = m->next;
    if (m->wan) [[unlikely]] {
      if (now == 0) now = tick_clock::now();
      hold(pe, m, now);
    } else {
      enqueue_local(pe, m);
    }
    m = next;
  }
  return true;
}

// Runs a runtime message (the entry path is deliver_entry).
void dispatch_system(PeState& pe, Message& message) {
  switch (message.kind) {
    case Kind::entry:  // not here
      return;
    case Kind::create:
      create_elements(pe, message);
      return;
    case Kind::call: {
      const auto* call = static_cast<CallArgs*>(message.args());
      call->function(call->context);
      return;
    }
    case Kind::migrate_order:
      migrate_out(pe, message);
      return;
    case Kind::migrate_in:
      migrate_in(pe, message);
      return;
    case Kind::location:
      update_location(pe, message);
      return;
    case Kind::at_sync:
      on_at_sync(pe, message);
      return;
    case Kind::lb_collect:
      on_lb_collect(pe, message);
      return;
    case Kind::lb_report:
      on_lb_report(pe, message);
      return;
    case Kind::migrated:
      on_migrated(pe, message);
      return;
    case Kind::resume:
      on_resume(pe, message);
      return;
    case Kind::contribution:
      on_contribution(pe, message);
      return;
    case Kind::lb_agent:
      on_lb_agent(pe, message);
      return;
    case Kind::lb_ready:
      on_lb_ready(pe, message);
      return;
    case Kind::lb_proceed:
      on_lb_proceed(pe, message);
      return;
    case Kind::lb_done:
      on_lb_done(pe, message);
      return;
    case Kind::checkpoint_collect:
      on_checkpoint_collect(pe, message);
      return;
    case Kind::checkpoint_part:
      on_checkpoint_part(pe, message);
      return;
    case Kind::restore:
      restore_elements(pe, message);
      return;
  }
}

void run_message(PeState& pe, Message* message) {
  RuntimeState& state = *pe.runtime;
  try {
    if (message->kind == Kind::entry) [[likely]] {
      pe.delivering = true;
      deliver_entry(pe, message);
      pe.delivering = false;
      return;
    }
    const MessageRelease release{message};
    dispatch_system(pe, *message);
    // What the runtime did is nobody's entry method: the next entry starts after it.
    if (state.options.instrument || state.timeline) pe.mark = tick_clock::now();
  } catch (...) {
    pe.delivering = false;
    state.fail(std::current_exception());
  }
}

}  // namespace

Wave read_wave(const RuntimeState& state) {
  Wave w;
  w.sent = state.external_sent.load(std::memory_order_seq_cst);
  for (const auto& pe : state.pe) {
    // The flag first: a PE stores its counts before it says it is idle.
    if (!pe->passive.load(std::memory_order_seq_cst)) {
      w.all_passive = false;
      return w;
    }
    w.sent += pe->sent.load(std::memory_order_acquire);
    w.received += pe->received.load(std::memory_order_acquire);
    w.parked += pe->parked_count.load(std::memory_order_acquire);
  }
  return w;
}

namespace {

// Two waves with every PE idle, equal totals that did not change between them: counts only
// grow, so no PE sent or took anything between its two reads; those intervals share an
// instant at which every PE was idle and every message sent had been taken.
bool quiescent(const RuntimeState& state) {
  const Wave first = read_wave(state);
  if (!first.all_passive || first.sent != first.received) return false;
  const Wave second = read_wave(state);
  return second.all_passive && second.sent == first.sent && second.received == first.received;
}

// How long an adaptive idle PE only pauses between looks at its inbox before it also yields.
constexpr double pause_seconds = 2e-6;

// In one process, an idle PE (passive already set) looks for quiescence; found, it stops the
// run (true). Across processes the transport's rounds find it.
//
// The look reads every PE's counters, so an adaptive PE makes it only once it has been idle
// for the pause window and again before it parks, not as soon as it is idle: a PE that has
// just sent a message and waits for the answer would otherwise take the busy PE's counter line
// away from it on every message, and the busy PE's next atomic operation would wait for that
// line to come back.
bool stop_if_quiescent(PeState& pe) {
  RuntimeState& state = *pe.runtime;
  if (state.transport != nullptr || !quiescent(state)) return false;
  const Wave w = read_wave(state);
  if (w.all_passive && w.parked > 0) {
    state.fail(std::make_exception_ptr(std::logic_error(
        "quiescence with " + std::to_string(w.parked) +
        " message(s) held for elements that never arrived (a message was sent to an "
        "element that is neither here nor on its way)")));
  }
  stop_all(state);
  return true;
}

timespec relative(Ticks ticks) {
  const double s = std::max(0.0, tick_clock::seconds(ticks));
  timespec t{};
  t.tv_sec = static_cast<time_t>(s);
  t.tv_nsec = static_cast<long>((s - static_cast<double>(t.tv_sec)) * 1e9);
  return t;
}

// Returns when the inbox has something, the run stops, or (PE 0 with periodic balancing) the
// next balancing step is due; true when it found the run quiescent (and stopped it).
bool wait_for_work(PeState& pe, bool periodic, Ticks from) {
  RuntimeState& state = *pe.runtime;
  const IdleMode mode = state.options.idle;
  if (mode != IdleMode::park) {
    const Ticks spin = state.spin_ticks;
    // Adaptive: a few microseconds of pausing catch a reply from a PE running on another core;
    // after that the PE yields between looks, so that a PE sharing this core (more PEs than
    // free cores: another program took one) gets to run and send what this one waits for.
    const Ticks pause = state.pause_ticks;
    bool yielding = state.oversubscribed;
    Transport* mpi =
        state.transport && state.transport->polled_by_pes() ? state.transport.get() : nullptr;
    // Both windows count from the transport's last progress, not from the start of the wait: a
    // PE whose large message another process has just finished taking (its send was in flight
    // all along) is about to get the answer, and parking then would miss it by up to 100 µs.
    Ticks since = from;
    bool moved = false;
    bool looked = false;  // for quiescence
    for (std::uint32_t polls = 1;; ++polls) {
      if (!pe.inbox.empty() || state.stopping.load(std::memory_order_relaxed)) return false;
      if (mpi != nullptr && mpi->poll()) {
        moved = true;
        continue;
      }
      if ((polls & 15) == 0) {
        const Ticks now = tick_clock::now();
        if (moved) {
          since = now;
          moved = false;
        }
        if (periodic && now >= state.next_periodic_lb) return false;
        if (!looked && now - from >= pause) {
          looked = true;
          if (stop_if_quiescent(pe)) return true;
        }
        if (mode == IdleMode::adaptive) {
          if (now - since >= spin) break;
          yielding = state.oversubscribed || now - since >= pause;
        }
      }
      if (yielding) {
        sched_yield();
      } else if (mpi == nullptr) {
        // (A pass over the transport takes longer than a pause; pausing as well would only
        // delay seeing what arrives from another process.)
        cpu_pause();
      }
    }
  }
  if (state.transport && state.transport->polled_by_pes()) {
    // Arrivals from other processes come only when a PE polls: sleep briefly.
    const timespec t{0, 100'000};
    pe.inbox.park(state.stopping, &t);
    return false;
  }
  if (stop_if_quiescent(pe)) return true;  // the last look before it sleeps
  if (!periodic) {
    pe.inbox.park(state.stopping, nullptr);
    return false;
  }
  const timespec timeout = relative(state.next_periodic_lb - tick_clock::now());
  pe.inbox.park(state.stopping, &timeout);
  return false;
}

// Waits, without saying the PE is idle (it holds messages), until the first held message is
// due, something arrives or the run stops.
void wait_for_delayed(PeState& pe, bool periodic) {
  RuntimeState& state = *pe.runtime;
  Transport* mpi =
      state.transport && state.transport->polled_by_pes() ? state.transport.get() : nullptr;
  const Ticks slice = tick_clock::from_seconds(100e-6);
  for (;;) {
    if (!pe.inbox.empty() || state.stopping.load(std::memory_order_relaxed)) return;
    const Ticks now = tick_clock::now();
    Ticks until = pe.delayed.front().first;
    if (periodic) until = std::min(until, state.next_periodic_lb);
    if (now >= until) return;
    if (mpi != nullptr && mpi->poll()) continue;
    Ticks wait = until - now;
    if (mpi != nullptr) wait = std::min(wait, slice);
    if (wait < slice / 4) {
      sched_yield();
      continue;
    }
    const timespec t = relative(wait);
    pe.inbox.park(state.stopping, &t);
  }
}

// The PE was idle from `from` until now: counted, and traced.
void end_idle(PeState& pe, Ticks from) {
  const Ticks to = tick_clock::now();
  pe.idle_ticks += to - from;
  pe.mark = to;
  if (pe.runtime->timeline) {
    pe.runtime->timeline->complete(pe.id, trace::Category::idle, "idle", tick_clock::to_time(from),
                                   tick_clock::to_time(to));
  }
}

void idle(PeState& pe, bool periodic) {
  const Ticks from = tick_clock::now();
  if (!pe.delayed.empty()) {
    wait_for_delayed(pe, periodic);
    end_idle(pe, from);
    return;
  }
  pe.parked_count.store(pe.parked.size(), std::memory_order_relaxed);
  pe.passive.store(true, std::memory_order_seq_cst);
  if (wait_for_work(pe, periodic, from)) return;  // quiescent: the run stops
  pe.passive.store(false, std::memory_order_seq_cst);
  end_idle(pe, from);
}

// PE 0 keeps the clock of periodic balancing, when there is one.
bool balances_periodically(const PeState& pe) {
  const Options& options = pe.runtime->options;
  return pe.id == 0 && options.lb_interval > 0.0 && !options.lb.empty();
}

// Whether a message waits anywhere but the FIFO of ordinary messages (the delay device included).
bool queued_elsewhere(const PeState& pe) {
  return !pe.system.empty() || !pe.grid.empty() || !pe.prioritized.empty() || !pe.delayed.empty();
}

void pe_loop(PeState& pe) {
  RuntimeState& state = *pe.runtime;
  current_pe = &pe;
  if (state.pinning) state.pinning->pin(pe.id, nullptr);  // best effort: unpinned still runs
  pe.mark = pe.period_start = tick_clock::now();
  // PE 0 also keeps the clock of periodic balancing.
  const bool periodic = balances_periodically(pe);
  const Ticks interval = tick_clock::from_seconds(state.options.lb_interval);
  if (periodic) state.next_periodic_lb = pe.period_start + interval;
  bool polled = false;  // idle() ended by an arrival, having just made MPI progress
  while (!state.stopping.load(std::memory_order_relaxed)) {
    if (periodic && tick_clock::now() >= state.next_periodic_lb) {
      try {
        balance_periodic_collections(pe);
      } catch (...) {
        state.fail(std::current_exception());
      }
      state.next_periodic_lb = tick_clock::now() + interval;
    }
    if (state.transport && !polled) [[unlikely]]
      state.transport->poll();
    polled = false;
    take_inbox(pe);
    release_delayed(pe);
    // At most a batch of local messages between two looks at the inbox.
    int ran = 0;
    for (; ran < 64; ++ran) {
      Message* message = next_local(pe);
      if (message == nullptr) break;
      run_message(pe, message);
      if (state.stopping.load(std::memory_order_relaxed)) break;
    }
    if (ran == 0 && pe.inbox.empty() &&
        (pe.delayed.empty() || pe.delayed.front().first > tick_clock::now())) {
      idle(pe, periodic);
      polled = !pe.inbox.empty();
    }
  }
  current_pe = nullptr;
}

}  // namespace

bool wait_in_place(ElementBase& self, HandlerId handler) {
  PeState* here = current_pe;
  if (here == nullptr || here->current != &self || !here->delivering) return false;
  PeState& pe = *here;
  RuntimeState& state = *pe.runtime;
  const bool periodic = balances_periodically(pe);
  if (!pe.fifo.empty() || queued_elsewhere(pe) || state.stopping.load(std::memory_order_relaxed) ||
      (periodic && tick_clock::now() >= state.next_periodic_lb)) {
    return false;
  }
  // The entry so far is `self`'s, as if it had ended here (its segment measured and traced).
  continue_as(self, pe.entry_name);
  const bool cpu = state.options.measure_cpu && state.options.instrument;
  if (pe.inbox.empty()) idle(pe, periodic);
  // What the caller runs from here on is charged to it from the wait's end (pe.mark).
  if (cpu) pe.cpu_mark = thread_cpu_seconds();
  if (state.stopping.load(std::memory_order_relaxed)) return false;
  take_inbox(pe);
  // Only the first message to run, and only when it is the one asked for: the PE's order holds.
  // (A message held by the delay device, or anything in another queue, ends the wait here.)
  const Message* first = pe.fifo.first;
  if (first == nullptr || queued_elsewhere(pe) || first->kind != Kind::entry ||
      first->handler != handler || first->collection != ElementAccess::collection(self) ||
      first->element != ElementAccess::linear(self)) {
    return false;
  }
  // Traced, it is an entry of its own; else its time is the caller's next segment's, which is
  // `self`'s too: one clock read fewer on the way from the arrival to the caller.
  const bool separate = state.timeline != nullptr;
  const char* name = pe.entry_name;
  try {
    deliver_entry(pe, next_local(pe), separate);
  } catch (...) {
    state.fail(std::current_exception());
  }
  pe.current = &self;
  pe.entry_name = name;
  if (cpu && separate) pe.cpu_mark = thread_cpu_seconds();
  return true;
}

void PeState::make_table(CollectionId collection) {
  tables[collection].slots.resize(runtime->collection(collection).shape.size());
}

PeState::~PeState() {
  for (CollectionTable& t : tables) {
    for (Slot& s : t.slots) delete s.element;
  }
}

namespace {

// A message from `from` to PE `to` in another cluster: counted as WAN traffic, and marked for
// the receiver's delay device; an element whose entry method sends it is a border object,
// whose messages its PE serves first.
void cross_clusters(RuntimeState& state, PeState& from, PeId to, Message* message) {
  if (state.cluster[static_cast<std::size_t>(to)] == from.cluster) return;
  if (state.grid_queue && message->kind == Kind::entry && from.current != nullptr) {
    ElementAccess::border(*from.current) = true;
  }
  ++from.stats.wan_messages;
  from.stats.wan_bytes += message->ops != nullptr ? message->ops->packed_size(message->args()) : 0;
  message->wan = state.wan_ticks > 0;
}

}  // namespace

void post(RuntimeState& state, PeId to, Message* message) {
  PeState* self = current_pe;
  const auto local = static_cast<std::size_t>(to - state.layout.first_pe);
  if (local >= state.pe.size()) [[unlikely]] {
    // A PE of another process (counted as sent here, as taken by the PE that gets it).
    if (to < 0 || to >= state.pes || state.transport == nullptr) {
      free_message(message);
      throw std::logic_error("post: no PE " + std::to_string(to) + " (the run has " +
                             std::to_string(state.pes) + ")");
    }
    if (self != nullptr) {
      self->sent.store(self->sent.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      if (state.clusters > 1) cross_clusters(state, *self, to, message);
    } else {
      state.external_sent.fetch_add(1, std::memory_order_seq_cst);
    }
    state.transport->send(to, message);
    return;
  }
  PeState& target = *state.pe[local];
  if (state.clusters > 1 && self != nullptr) [[unlikely]]
    cross_clusters(state, *self, to, message);
  // To itself: its own queues, but while it is idle (a send made while it polls the transport)
  // through its inbox, which ends the wait and which quiescence counts.
  // (Null tested first: GCC 12, seeing the two pointers equal, would otherwise warn, wrongly,
  // of a load from a null PE.)
  if (self != nullptr && self == &target && !self->passive.load(std::memory_order_relaxed)) {
    enqueue_local(target, message);
    return;
  }
  if (self != nullptr) {
    self->sent.store(self->sent.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  } else {
    state.external_sent.fetch_add(1, std::memory_order_seq_cst);
  }
  target.inbox.push(message);
}

void post_system(RuntimeState& state, PeId to, Kind kind, CollectionId collection,
                 std::uint64_t element, std::vector<std::byte> payload) {
  post(state, to, new_system_message(kind, collection, element, std::move(payload)));
}

void stop_locally(RuntimeState& state) {
  state.stopping.store(true, std::memory_order_seq_cst);
  for (auto& pe : state.pe) pe->inbox.wake();
}

void stop_all(RuntimeState& state) {
  const bool first = !state.stopping.exchange(true, std::memory_order_seq_cst);
  if (first && state.transport) state.transport->stop_others(state.exit_code);
  stop_locally(state);
}

void RuntimeState::fail(std::exception_ptr e) {
  bool first = false;
  {
    std::lock_guard lock(error_mutex);
    if (!error) {
      error = e;
      first = true;
    }
  }
  if (first && transport) {
    std::string what = "unknown error";
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = x.what();
    } catch (...) {
    }
    transport->fail_others(what);
  }
  stop_locally(*this);
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void trace_entry(PeState& pe, ElementBase& element, const char* name, Ticks from, Ticks to) {
  pe.runtime->timeline->complete(pe.id, trace::Category::entry, name, tick_clock::to_time(from),
                                 tick_clock::to_time(to),
                                 to_string(element.index(), element.shape().dims));
}

void start_pes(RuntimeState& state) {
  state.spin_ticks = tick_clock::from_seconds(state.options.spin_us * 1e-6);
  state.pause_ticks = tick_clock::from_seconds(pause_seconds);
  for (auto& pe : state.pe) pe->thread = std::thread([p = pe.get()] { pe_loop(*p); });
}

// After the PEs have stopped: frees every message still queued anywhere (after exit(), or
// sent to a PE that had already stopped), so that each goes back to its pool before the pools
// go away. Runs on the calling thread, which is no PE.
void join_pes(RuntimeState& state) {
  for (auto& pe : state.pe) {
    if (pe->thread.joinable()) pe->thread.join();
  }
  for (auto& pe : state.pe) {
    for (auto batch = pe->inbox.take_all(); batch.first != nullptr;) {
      Message* next = batch.first->next;
      free_message(batch.first);
      batch.first = next;
    }
    while (!pe->system.empty()) free_message(pe->system.pop());
    while (!pe->fifo.empty()) free_message(pe->fifo.pop());
    while (!pe->prioritized.empty()) {
      free_message(pe->prioritized.top().message);
      pe->prioritized.pop();
    }
    while (!pe->grid.empty()) {
      free_message(pe->grid.top().message);
      pe->grid.pop();
    }
    for (auto& [release, m] : pe->delayed) free_message(m);
    pe->delayed.clear();
    for (auto& [key, waiting] : pe->parked) {
      for (Message* m : waiting) free_message(m);
    }
    pe->parked.clear();
  }
}

}  // namespace vela::rt::detail
