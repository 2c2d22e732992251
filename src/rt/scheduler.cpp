// Each PE's message-driven loop: drain the inbox, run one message at a time (runtime messages
// first, then by priority, FIFO among equals), sleep when there is nothing to do.
#include <ctime>

#include "state.hpp"
#include "trace/timeline.hpp"

namespace vela::rt::detail {

namespace {

thread_local PeState* current_pe = nullptr;

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

void enqueue_local(PeState& pe, MessagePtr message) {
  if (message->priority == 0) {
    pe.fifo.push_back(std::move(message));
  } else {
    const int priority = message->priority;
    pe.prioritized.push({priority, pe.arrivals++, message.release()});
  }
}

// The next message to run, or nullptr.
MessagePtr next_local(PeState& pe) {
  if (!pe.prioritized.empty() && (pe.fifo.empty() || pe.prioritized.top().priority < 0)) {
    MessagePtr m(pe.prioritized.top().message);
    pe.prioritized.pop();
    return m;
  }
  if (pe.fifo.empty()) return nullptr;
  MessagePtr m = std::move(pe.fifo.front());
  pe.fifo.pop_front();
  return m;
}

void stop_all(RuntimeState& state) {
  state.stopping = true;
  for (auto& pe : state.pe) {
    std::lock_guard lock(pe->mutex);
    pe->wake.notify_one();
  }
}

void dispatch(PeState& pe, MessagePtr message) {
  switch (message->kind) {
    case Kind::entry:
      deliver_entry(pe, std::move(message));
      return;
    case Kind::create:
      create_elements(pe, *message);
      return;
    case Kind::call:
      message->call();
      return;
    case Kind::migrate_order:
      migrate_out(pe, *message);
      return;
    case Kind::migrate_in:
      migrate_in(pe, *message);
      return;
    case Kind::location:
      update_location(pe, *message);
      return;
    case Kind::at_sync:
      on_at_sync(pe, *message);
      return;
    case Kind::lb_collect:
      on_lb_collect(pe, *message);
      return;
    case Kind::lb_report:
      on_lb_report(pe, *message);
      return;
    case Kind::migrated:
      on_migrated(pe, *message);
      return;
    case Kind::resume:
      on_resume(pe, *message);
      return;
    case Kind::contribution:
      on_contribution(pe, *message);
      return;
  }
}

void pe_loop(PeState& pe) {
  RuntimeState& state = *pe.runtime;
  current_pe = &pe;
  if (state.pinning) state.pinning->pin(pe.id, nullptr);  // best effort: unpinned still runs
  pe.period_start = Clock::now();
  // PE 0 also keeps the clock of periodic balancing.
  const bool periodic = pe.id == 0 && state.options.lb_interval > 0.0 && !state.options.lb.empty();
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(state.options.lb_interval));
  if (periodic) state.next_periodic_lb = pe.period_start + interval;
  std::vector<MessagePtr> arrived;
  while (!state.stopping.load(std::memory_order_relaxed)) {
    if (periodic && Clock::now() >= state.next_periodic_lb) {
      balance_periodic_collections(pe);
      state.next_periodic_lb = Clock::now() + interval;
    }
    {
      std::unique_lock lock(pe.mutex);
      if (pe.inbox.empty() && pe.fifo.empty() && pe.prioritized.empty()) {
        const auto idle_from = Clock::now();
        pe.waiting = true;
        const auto ready = [&] { return !pe.inbox.empty() || state.stopping.load(); };
        if (periodic) {
          pe.wake.wait_until(lock, state.next_periodic_lb, ready);
        } else {
          pe.wake.wait(lock, ready);
        }
        pe.waiting = false;
        const auto idle_to = Clock::now();
        pe.idle_seconds += seconds(idle_to - idle_from);
        if (state.timeline)
          state.timeline->complete(pe.id, trace::Category::idle, "idle", idle_from, idle_to);
      }
      arrived.swap(pe.inbox);
    }
    for (MessagePtr& m : arrived) enqueue_local(pe, std::move(m));
    arrived.clear();
    // At most a batch of local messages between two looks at the inbox.
    for (int batch = 0; batch < 64; ++batch) {
      MessagePtr message = next_local(pe);
      if (!message) break;
      try {
        dispatch(pe, std::move(message));
      } catch (...) {
        {
          std::lock_guard lock(state.error_mutex);
          if (!state.error) state.error = std::current_exception();
        }
        stop_all(state);
      }
      if (state.outstanding.fetch_sub(1, std::memory_order_acq_rel) == 1) stop_all(state);
      if (state.stopping.load(std::memory_order_relaxed)) break;
    }
  }
  // Drop what is left (after exit()); counted messages no longer matter.
  pe.fifo.clear();
  while (!pe.prioritized.empty()) {
    delete pe.prioritized.top().message;
    pe.prioritized.pop();
  }
  current_pe = nullptr;
}

}  // namespace

PeState* this_pe() {
  return current_pe;
}

void post(RuntimeState& state, PeId to, MessagePtr message) {
  state.outstanding.fetch_add(1, std::memory_order_relaxed);
  PeState& target = *state.pe[static_cast<std::size_t>(to)];
  if (current_pe == &target) {
    enqueue_local(target, std::move(message));
    return;
  }
  std::lock_guard lock(target.mutex);
  target.inbox.push_back(std::move(message));
  if (target.waiting) target.wake.notify_one();
}

void post_system(RuntimeState& state, PeId to, Kind kind, CollectionId collection,
                 std::uint64_t element, std::vector<std::byte> payload) {
  auto m = std::make_unique<Message>();
  m->kind = kind;
  m->priority = system_priority;
  m->collection = collection;
  m->element = element;
  m->origin = current_pe != nullptr ? current_pe->id : -1;
  m->payload = std::move(payload);
  post(state, to, std::move(m));
}

namespace {

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

EntryStart begin_entry(PeState& pe, ElementBase& element) {
  const RuntimeState& state = *pe.runtime;
  pe.current = &element;
  if (!state.options.instrument && !state.timeline) return {};
  // The thread CPU clock is a system call (~250 ns here), so it is read only when asked for.
  return {Clock::now(), state.options.measure_cpu ? thread_cpu_seconds() : 0.0};
}

void end_entry(PeState& pe, ElementBase& element, const char* name, const EntryStart& start) {
  RuntimeState& state = *pe.runtime;
  pe.current = nullptr;
  if (!state.options.instrument && !state.timeline) return;
  const auto to = Clock::now();
  const double wall = seconds(to - start.wall);
  ElementAccess::wall_seconds(element) += wall;
  if (state.options.measure_cpu) {
    ElementAccess::cpu_seconds(element) += thread_cpu_seconds() - start.cpu;
  }
  if (state.timeline) {
    state.timeline->complete(pe.id, trace::Category::entry, name, start.wall, to,
                             to_string(element.index(), element.shape().dims));
  }
}

void start_pes(RuntimeState& state) {
  for (auto& pe : state.pe) pe->thread = std::thread([p = pe.get()] { pe_loop(*p); });
}

void join_pes(RuntimeState& state) {
  for (auto& pe : state.pe) {
    if (pe->thread.joinable()) pe->thread.join();
  }
}

}  // namespace vela::rt::detail
