// A PE with nothing to run: it polls (the transport too, when PEs make MPI progress), pauses,
// yields and parks, and looks for quiescence. Quiescence is found without a shared counter:
// each PE counts the messages it sent to and took from other PEs, and a PE that runs out of
// work checks, in two waves over every PE, that all are idle and that the counts balance and
// did not move. A blocked rank's entry may wait here on its own stack (wait_in_place).
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <ctime>

#include "core/run_entry.hpp"
#include "core/runtime_state.hpp"
#include "services/timeline.hpp"
#include "vela/rt/cpu_pause.hpp"

namespace vela::rt::detail {

Wave read_wave(const RuntimeState& state) {
  Wave w;
  // A process that is stopping (an abort or a failure on its way to the others) is never part
  // of a quiescent round: the others learn of its stop, and its code, from its message instead.
  if (state.stopping.load(std::memory_order_seq_cst)) {
    w.all_passive = false;
    return w;
  }
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
        "element that is neither here nor on its way, or to one that called destroy() with "
        "none inserted at its index since)")));
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

// A pinned PE polling for work should have its core to itself: between two looks at its inbox
// (a few microseconds apart, or one yield) no time passes that it did not run. A gap of a
// millisecond or more means the kernel ran something else on its core meanwhile: another busy
// process shares it. Then the PE's yields (after the pause window) hand that process a whole
// time slice each, and a message waits for the slice's end: with one core busy, a ping-pong of
// 1 MiB between two pinned PEs took 2 ms instead of 90 us, and a test's 20,000 rounds of 8 bytes
// 3 to 19 s instead of 0.03. After the second such gap the PE stops yielding (it pauses while it
// polls, and parks after --spin-us as before): it keeps its share of the core and the ping-pong its
// quiet figures (docs/results/ranks.md, *Under load*). Letting go of the core instead put both
// PEs on the free one and made every message a context switch (8 B: 4 us). Once per PE and run;
// the gaps are read from the clock the loop reads anyway. `last` is the previous look (or the
// wait's start), `now` this one.
void watch_core_share(PeState& pe, Ticks last, Ticks now) {
  // (More PEs than cores share them by design: they keep yielding to each other.)
  if (!pe.pinned || pe.core_shared || pe.runtime->oversubscribed) return;
  static const Ticks gap = tick_clock::from_seconds(1e-3);
  if (now - last < gap || ++pe.descheduled < 2) return;
  pe.core_shared = true;
  ++pe.stats.shared_cores;
}

// An adaptive PE's polling window after a park that lasted `slept`. A wait that a window of at
// most max_spin_ticks would have caught (window + slept within it) doubles the window, up to
// that; a longer one halves it, down to --spin-us. Each park costs the wait a wake-up (a futex
// wake; on a virtual machine also the halted virtual CPU's resumption): a program whose PEs
// wait a few hundred microseconds at each exchange (LULESH at 8 ranks on 2 PEs) parked at every
// one with a fixed 50 us window, and took 1.14x AMPI's time on such a host (docs/results/
// ranks.md, *On an AMD host*). Waits longer than max_spin_ticks bring the window back to
// --spin-us within a few parks; with --spin-us 0 it stays 0 (a PE parks at once).
void adapt_spin(PeState& pe, Ticks slept) {
  const RuntimeState& state = *pe.runtime;
  if (pe.spin_window + slept <= state.max_spin_ticks) {
    pe.spin_window = std::min(2 * pe.spin_window, state.max_spin_ticks);
  } else {
    pe.spin_window = std::max(pe.spin_window / 2, state.spin_ticks);
  }
}

// Returns when the inbox has something, the run stops, or (PE 0 with periodic balancing) the
// next balancing step is due; true when it found the run quiescent (and stopped it). `woke`,
// when it returns false: the clock at the wait's end (the idle time's end), read once — on the
// look that saw an arrival, when it found the balancing step due, or after a park.
bool wait_for_work(PeState& pe, bool periodic, Ticks from, Ticks& woke) {
  RuntimeState& state = *pe.runtime;
  const IdleMode mode = state.options.idle;
  if (mode != IdleMode::park) {
    const Ticks spin = pe.spin_window;
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
    Ticks last_look = from;  // for watch_core_share
    bool moved = false;
    bool looked = false;  // for quiescence
    for (std::uint32_t polls = 1;; ++polls) {
      if (pe.holding > 0) [[unlikely]] {
        flush_held(pe);
        moved = true;  // not asleep while it holds messages for other PEs
      }
      if (arrivals_waiting(pe) || state.stopping.load(std::memory_order_relaxed)) {
        woke = tick_clock::now();
        if (pe.pinned && !pe.core_shared) watch_core_share(pe, last_look, woke);
        return false;
      }
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
        if (periodic && now >= state.lb.next_periodic) {
          woke = now;
          return false;
        }
        watch_core_share(pe, last_look, now);
        last_look = now;
        if (!looked && now - from >= pause) {
          looked = true;
          if (stop_if_quiescent(pe)) return true;
        }
        if (mode == IdleMode::adaptive) {
          if (now - since >= spin) break;
          // A PE whose core another busy process shares does not yield: each yield gave that
          // process a whole time slice (watch_core_share).
          yielding = state.oversubscribed || (now - since >= pause && !pe.core_shared);
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
  if (pe.holding > 0 || (state.transport && state.transport->polled_by_pes())) {
    // Arrivals from other processes come only when a PE polls, and messages held for another
    // PE's full ring go in only when this one puts them there: sleep briefly.
    const timespec t{0, pe.holding > 0 ? 20'000 : 100'000};
    pe.inbox.park(state.stopping, &t, [&pe] { return rings_ready(pe); });
    woke = tick_clock::now();
    return false;
  }
  if (stop_if_quiescent(pe)) return true;  // the last look before it sleeps
  const Ticks parked = tick_clock::now();
  ++pe.stats.parks;
  if (!periodic) {
    pe.inbox.park(state.stopping, nullptr, [&pe] { return rings_ready(pe); });
  } else {
    const timespec timeout = relative(state.lb.next_periodic - parked);
    pe.inbox.park(state.stopping, &timeout, [&pe] { return rings_ready(pe); });
  }
  woke = tick_clock::now();
  if (mode == IdleMode::adaptive) adapt_spin(pe, woke - parked);
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
    if (pe.holding > 0) [[unlikely]]
      flush_held(pe);
    if (arrivals_waiting(pe) || state.stopping.load(std::memory_order_relaxed)) return;
    const Ticks now = tick_clock::now();
    Ticks until = pe.queues.delayed.front().first;
    if (periodic) until = std::min(until, state.lb.next_periodic);
    if (now >= until) return;
    if (mpi != nullptr && mpi->poll()) continue;
    Ticks wait = until - now;
    if (mpi != nullptr) wait = std::min(wait, slice);
    if (wait < slice / 4) {
      sched_yield();
      continue;
    }
    const timespec t = relative(wait);
    pe.inbox.park(state.stopping, &t, [&pe] { return rings_ready(pe); });
  }
}

// The PE was idle from `from` until `to`: counted, and traced.
void end_idle(PeState& pe, Ticks from, Ticks to) {
  pe.idle_ticks += to - from;
  pe.mark = to;
  if (pe.runtime->timeline) {
    pe.runtime->timeline->complete(pe.id, trace::Category::idle, "idle", tick_clock::to_time(from),
                                   tick_clock::to_time(to));
  }
}

}  // namespace

void idle(PeState& pe, bool periodic, Ticks from) {
  if (!pe.queues.delayed.empty()) {
    wait_for_delayed(pe, periodic);
    end_idle(pe, from, tick_clock::now());
    return;
  }
  pe.parked_count.store(pe.locations.parked.size(), std::memory_order_relaxed);
  pe.passive.store(true, std::memory_order_seq_cst);
  Ticks woke = 0;
  if (wait_for_work(pe, periodic, from, woke)) return;  // quiescent: the run stops
  // A release store, not a fence on the path from an arrival to its entry: a PE looking for
  // quiescence that reads the count of what this PE takes next (stored with release after
  // this) sees it busy, and one that reads the old count sees the message still unbalanced.
  pe.passive.store(false, std::memory_order_release);
  // The clock read that ended the wait ends the idle time (one read on that path, not two).
  end_idle(pe, from, woke);
}

bool balances_periodically(const PeState& pe) {
  const Options& options = pe.runtime->options;
  return pe.id == 0 && options.lb_interval > 0.0 && !options.lb.empty();
}

namespace {

// wait_in_place's short way for a small message (docs/architecture.md, "Waiting in place"):
// when the first message on the PE's rings (the one take_inbox would queue first) is a compact
// one for `self` with one of `handlers`, its arguments as their bytes and no priority, and
// nothing waits in the inbox (a runtime message put there before it would be taken with it
// and run first), it runs from a copy of its slot's line: no message block, no queue, no
// look-up of its element. The runtime's other steps do not apply to it: `self` lives here (no
// forwarding), a compact message never crossed clusters (no delay device), its trace entry
// (not when tracing) and the Grid Queue (not with one) are left to the long way. Cost: the
// line's copy and one store each to the ring's and the PE's counters.
bool run_compact_here(PeState& pe, ElementBase& self, std::span<const HandlerId> handlers) {
  PeRing* ring = nullptr;
  const std::byte* line = first_compact(pe, ring);
  if (line == nullptr) return false;
  PeRing::Compact h;
  std::memcpy(&h, line, sizeof h);
  if (h.flags != PeRing::compact_raw || h.priority != 0 ||
      h.collection != ElementAccess::collection(self) || h.element != ElementAccess::linear(self) ||
      std::find(handlers.begin(), handlers.end(), h.handler) == handlers.end()) {
    return false;
  }
  // After the ring's look (sequentially consistent): a runtime message put in the inbox before
  // this one was written is seen here.
  if (!pe.inbox.empty()) return false;
  alignas(16) std::byte args[PeRing::compact_bytes];
  std::memcpy(args, line + sizeof h, sizeof args);
  took_compact(pe, *ring);
  ++pe.table(h.collection).delivered;
  ++pe.stats.messages;
  ++pe.stats.compact_in_place;
  const ArgsOps& ops = *handler_ops(h.handler);
  struct Destroy {  // the arguments, whatever the method does
    const ArgsOps& ops;
    void* args;
    ~Destroy() { ops.destroy(args); }
  } destroy{ops, args};
  ops.invoke(self, args);
  return true;
}

// Whether the first message queued is an entry of `self` with one of `handlers` and nothing
// goes before it (a message held by the delay device, or anything in another queue).
bool first_queued_is_for(const PeState& pe, ElementBase& self,
                         std::span<const HandlerId> handlers) {
  const Message* first = pe.queues.fifo.first;
  return first != nullptr && !pe.queues.queued_elsewhere() && first->kind == Kind::entry &&
         std::find(handlers.begin(), handlers.end(), first->handler) != handlers.end() &&
         first->collection == ElementAccess::collection(self) &&
         first->element == ElementAccess::linear(self);
}

}  // namespace

bool wait_in_place(ElementBase& self, std::span<const HandlerId> handlers) {
  PeState* here = current_pe;
  if (here == nullptr || here->current != &self || !here->delivering) return false;
  PeState& pe = *here;
  RuntimeState& state = *pe.runtime;
  const bool periodic = balances_periodically(pe);
  // One clock read: the balancing step's look, the end of the entry's segment and the start
  // of the idle time.
  const Ticks now = tick_clock::now();
  if (!pe.queues.fifo.empty() || pe.queues.queued_elsewhere() ||
      state.stopping.load(std::memory_order_relaxed) ||
      (periodic && now >= state.lb.next_periodic)) {
    return false;
  }
  // The entry so far is `self`'s, as if it had ended here (its segment measured and traced).
  const Ticks ended = continue_at(pe, self, pe.entry_name, now);
  const bool cpu = state.options.measure_cpu && state.options.instrument;
  if (!arrivals_waiting(pe)) idle(pe, periodic, ended);
  // What the caller runs from here on is charged to it from the wait's end (pe.mark).
  if (cpu) pe.cpu_mark = thread_cpu_seconds();
  if (state.stopping.load(std::memory_order_relaxed)) return false;
  const char* name = pe.entry_name;
  // Traced, it is an entry of its own; else its time is the caller's next segment's, which is
  // `self`'s too: one clock read fewer on the way from the arrival to the caller.
  const bool separate = state.timeline != nullptr;
  try {
    // A compact slot for `self` runs from its ring; else what arrived is queued, and only the
    // first message to run, and only when it is the one asked for (the PE's order holds).
    if (separate || state.topology.grid_queue || !run_compact_here(pe, self, handlers)) {
      take_inbox(pe);
      if (!first_queued_is_for(pe, self, handlers)) return false;
      deliver_entry(pe, next_local(pe), separate);
    }
  } catch (...) {
    state.fail(std::current_exception());
  }
  pe.current = &self;
  pe.entry_name = name;
  if (cpu && separate) pe.cpu_mark = thread_cpu_seconds();
  return true;
}

}  // namespace vela::rt::detail
