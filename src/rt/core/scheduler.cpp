// Each PE's message-driven loop: take what arrived, run one message at a time (runtime messages
// first, then by priority, FIFO among equals), and when there is nothing to do, poll for a
// while and then park (core/idle.cpp). The queues are in core/queues.cpp, what a message does
// in core/dispatch.cpp. A stopped run whose PEs do not come back is ended by a watchdog
// (watch_the_stop).
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <mutex>
#include <thread>

#include "core/runtime_state.hpp"
#include "services/timeline.hpp"
#include "vela/rt/rank_seam.hpp"

namespace vela::rt::detail {

namespace {

void pe_loop(PeState& pe) {
  RuntimeState& state = *pe.runtime;
  current_pe = &pe;
  // Best effort: unpinned still runs.
  if (state.pinning) pe.pinned = state.pinning->pin(pe.id, nullptr);
  pe.mark = pe.period_start = tick_clock::now();
  // PE 0 also keeps the clock of periodic balancing.
  const bool periodic = balances_periodically(pe);
  const Ticks interval = tick_clock::from_seconds(state.options.lb_interval);
  if (periodic) state.lb.next_periodic = pe.period_start + interval;
  bool polled = false;  // idle() ended by an arrival, having just made MPI progress
  while (!state.stopping.load(std::memory_order_relaxed)) {
    if (periodic && tick_clock::now() >= state.lb.next_periodic) {
      try {
        balance_periodic_collections(pe);
      } catch (...) {
        state.fail(std::current_exception());
      }
      state.lb.next_periodic = tick_clock::now() + interval;
    }
    if (state.transport && !polled) [[unlikely]]
      state.transport->poll();
    polled = false;
    if (pe.holding > 0) [[unlikely]]
      flush_held(pe);
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
    if (ran == 0 && !arrivals_waiting(pe) &&
        (pe.queues.delayed.empty() || pe.queues.delayed.front().first > tick_clock::now())) {
      idle(pe, periodic, tick_clock::now());
      polled = arrivals_waiting(pe);
    }
  }
  current_pe = nullptr;
}

}  // namespace

PeState::~PeState() {
  for (CollectionTable& t : locations.tables) {
    for (Slot& s : t.slots) delete s.element;
  }
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
  state.max_spin_ticks = std::max(state.spin_ticks, tick_clock::from_seconds(max_spin_seconds));
  for (auto& pe : state.pe) pe->spin_window = state.spin_ticks;
  state.pes_started.store(true, std::memory_order_release);  // join_pes follows: watch stops
  for (auto& pe : state.pe) pe->thread = std::thread([p = pe.get()] { pe_loop(*p); });
}

// The watchdog of a stopped run (scheduler.hpp): `joined` once the PEs stopped.
struct StopWatch {
  std::mutex mutex;
  std::condition_variable changed;
  bool joined = false;
};

// What at_forced_exit registered (rank_seam.hpp).
constexpr int max_flushes = 4;
std::atomic<void (*)()> flushes[max_flushes];

void at_forced_exit(void (*flush)()) {
  for (auto& slot : flushes) {
    void (*empty)() = nullptr;
    if (slot.load() == flush || slot.compare_exchange_strong(empty, flush)) return;
  }
}

void watch_the_stop(RuntimeState& state) {
  // Before the PEs run (a stop from another process while this one starts) nothing can hang.
  if (!state.pes_started.load(std::memory_order_acquire)) return;
  std::lock_guard lock(state.stop_watch_mutex);
  // Once join_pes has joined them (a stop arriving from another process meanwhile), no PE
  // runs: nothing to watch, and nothing would mark the watch joined.
  if (state.stop_watch || state.pes_joined) return;
  auto watch = std::make_shared<StopWatch>();
  state.stop_watch = watch;
  std::thread([watch, &state] {
    std::unique_lock lock(watch->mutex);
    if (watch->changed.wait_for(lock, stop_grace, [&] { return watch->joined; })) return;
    // The PEs have not stopped, and cannot have (joined is set under this lock after they
    // did): `state` is alive.
    const int code = state.exit_code;
    for (auto& slot : flushes) {
      if (void (*flush)() = slot.load()) flush();
    }
    std::fflush(nullptr);
    std::fprintf(stderr,
                 "vela: the run was ended, but a rank still computes without calling the runtime "
                 "%lld s later (fibers are not preempted): ending the process with code %d\n",
                 static_cast<long long>(stop_grace.count()), code);
    std::fflush(stderr);
    std::_Exit(code);
  }).detach();
}

// After the PEs have stopped: frees every message still queued anywhere (after exit(), or
// sent to a PE that had already stopped), so that each goes back to its pool before the pools
// go away. Runs on the calling thread, which is no PE.
void join_pes(RuntimeState& state) {
  for (auto& pe : state.pe) {
    if (pe->thread.joinable()) pe->thread.join();
  }
  std::shared_ptr<StopWatch> watch;
  {
    std::lock_guard lock(state.stop_watch_mutex);  // a stop may arrive on the transport's thread
    state.pes_joined = true;
    watch = state.stop_watch;
  }
  if (watch) {
    std::lock_guard lock(watch->mutex);
    watch->joined = true;
    watch->changed.notify_all();
  }
  // No answer of the balancing thread comes after this: any it posted is freed below.
  if (state.lb_async) {
    // Dropped by the thread, or posted but never taken by PE 0 (freed below).
    state.stats.lb_async_unapplied += state.lb_async->close();
    state.stats.lb_async_unapplied += state.lb_async->posted() - state.stats.lb_async_answers;
  }
  // Answers that came back but met no sync point after them are dropped too.
  const std::size_t collections = state.collection_count.load(std::memory_order_acquire);
  for (std::size_t c = 0; c < collections; ++c) {
    if (state.collections[c]->lb.answer) state.stats.lb_async_unapplied += 1;
  }
  for (auto& pe : state.pe) {
    for (auto batch = pe->inbox.take_all(); batch.first != nullptr;) {
      Message* next = batch.first->next;
      free_message(batch.first);
      batch.first = next;
    }
    free_ring_messages(*pe);
    pe->queues.free_all();
    for (auto& [key, waiting] : pe->locations.parked) {
      for (Message* m : waiting) free_message(m);
    }
    pe->locations.parked.clear();
  }
}

}  // namespace vela::rt::detail
