// Sending between PEs: to the PE's own queues, another PE's inbox, or the transport for a PE
// of another process; crossing clusters marks the message for the delay device. Stopping the
// run and recording its first error.
#include "core/runtime_state.hpp"

namespace vela::rt::detail {

namespace {

// A message from `from` to PE `to` in another cluster: counted as WAN traffic, and marked for
// the receiver's delay device; an element whose entry method sends it is a border object,
// whose messages its PE serves first.
void cross_clusters(RuntimeState& state, PeState& from, PeId to, Message* message) {
  if (state.topology.cluster[static_cast<std::size_t>(to)] == from.cluster) return;
  if (state.topology.grid_queue && message->kind == Kind::entry && from.current != nullptr) {
    ElementAccess::border(*from.current) = true;
  }
  ++from.stats.wan_messages;
  from.stats.wan_bytes += message->ops != nullptr ? message->ops->packed_size(message->args()) : 0;
  message->wan = state.topology.wan_ticks > 0;
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
      if (state.topology.clusters > 1) cross_clusters(state, *self, to, message);
    } else {
      state.external_sent.fetch_add(1, std::memory_order_seq_cst);
    }
    state.transport->send(to, message);
    return;
  }
  PeState& target = *state.pe[local];
  if (state.topology.clusters > 1 && self != nullptr) [[unlikely]]
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
    // Entry messages between two PEs take their pair's ring (core/pe_ring.cpp); the runtime's
    // own messages, which overtake them on the receiver anyway, keep the inbox.
    if (message->kind == Kind::entry && self != &target) [[likely]] {
      post_on_ring(*self, target, message);
      return;
    }
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
  watch_the_stop(state);
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

}  // namespace vela::rt::detail
