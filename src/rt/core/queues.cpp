// A PE's queues (core/queues.hpp): taking the inbox, the delay device's holding, the Grid
// Queue's order and its starvation guard. Each operation is O(1) but the priority heaps'
// O(log n); none allocates in steady state.
#include "core/queues.hpp"

#include "core/runtime_state.hpp"

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

}  // namespace

void enqueue_local(PeState& pe, Message* message) {
  if (message->priority == system_priority) [[unlikely]] {
    pe.queues.system.push(message);
    return;
  }
  if (pe.runtime->topology.grid_queue) [[unlikely]] {
    // Messages to an element that sent to another cluster go to the Grid Queue, unless some of
    // its messages already wait in the ordinary queues (they came before it was a border
    // element, or before it arrived here): those are served after the Grid Queue, so these
    // follow them there, and one sender's messages keep their order.
    if (std::uint32_t* waiting = ordinary_count(pe, *message)) {
      ElementBase* element = pe.table(message->collection).slots[message->element].element;
      if (*waiting == 0 && element != nullptr && ElementAccess::border(*element)) {
        pe.queues.grid.push({message->priority, pe.queues.arrivals++, message});
        return;
      }
      ++*waiting;
    }
  }
  if (message->priority == 0) {
    pe.queues.fifo.push(message);
  } else {
    pe.queues.prioritized.push({message->priority, pe.queues.arrivals++, message});
  }
}

namespace {

// A message leaves the ordinary queues (with a Grid Queue, its element's count drops).
Message* leave_ordinary(PeState& pe, Message* message) {
  if (pe.runtime->topology.grid_queue) [[unlikely]] {
    if (std::uint32_t* waiting = ordinary_count(pe, *message)) --*waiting;
  }
  return message;
}

}  // namespace

Message* next_local(PeState& pe) {
  if (!pe.queues.system.empty()) [[unlikely]]
    return pe.queues.system.pop();
  if (!pe.queues.grid.empty()) [[unlikely]] {
    // The Grid Queue first, but after grid_queue_period of its messages in a row one ordinary
    // message that waits runs (the starvation guard).
    const bool others_wait = !pe.queues.fifo.empty() || !pe.queues.prioritized.empty();
    if (pe.queues.grid_run < pe.runtime->options.grid_queue_period || !others_wait) {
      ++pe.queues.grid_run;
      ++pe.stats.grid_messages;
      Message* m = pe.queues.grid.top().message;
      pe.queues.grid.pop();
      return m;
    }
    pe.queues.grid_run = 0;
  }
  if (!pe.queues.prioritized.empty() &&
      (pe.queues.fifo.empty() || pe.queues.prioritized.top().priority < 0)) [[unlikely]] {
    Message* m = pe.queues.prioritized.top().message;
    pe.queues.prioritized.pop();
    return leave_ordinary(pe, m);
  }
  if (pe.queues.fifo.empty()) return nullptr;
  return leave_ordinary(pe, pe.queues.fifo.pop());
}

namespace {

// The delay device's receiving side: a message from another cluster waits until its arrival
// plus the WAN latency.
void hold(PeState& pe, Message* message, Ticks now) {
  message->wan = false;
  pe.queues.delayed.emplace_back(now + pe.runtime->topology.wan_ticks, message);
}

}  // namespace

void release_delayed(PeState& pe) {
  if (pe.queues.delayed.empty()) [[likely]]
    return;
  const Ticks now = tick_clock::now();
  while (!pe.queues.delayed.empty() && pe.queues.delayed.front().first <= now) {
    enqueue_local(pe, pe.queues.delayed.front().second);
    pe.queues.delayed.pop_front();
  }
}

bool arrivals_waiting(PeState& pe) {
  return !pe.inbox.empty() || rings_ready(pe);
}

bool take_inbox(PeState& pe) {
  // The rings first: a runtime message sent to the inbox before an entry message on a ring is
  // then taken with it, never after it.
  MessageList arrived;
  std::size_t count = take_rings(pe, arrived);
  const auto batch = pe.inbox.take_all();
  arrived.append(batch.first, batch.last);
  count += batch.count;
  if (count == 0) return false;
  // Release: a PE looking for quiescence that reads this count also sees the PE's `passive`
  // cleared before it (core/idle.cpp, idle()).
  pe.received.store(pe.received.load(std::memory_order_relaxed) + count, std::memory_order_release);
  Ticks now = 0;
  for (Message* m = arrived.first; m != nullptr;) {
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

void PeQueues::free_all() {
  while (!system.empty()) free_message(system.pop());
  while (!fifo.empty()) free_message(fifo.pop());
  while (!prioritized.empty()) {
    free_message(prioritized.top().message);
    prioritized.pop();
  }
  while (!grid.empty()) {
    free_message(grid.top().message);
    grid.pop();
  }
  for (auto& [release, m] : delayed) free_message(m);
  delayed.clear();
}

}  // namespace vela::rt::detail
