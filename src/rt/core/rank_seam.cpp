// The runtime's side of the rank seam (vela/rt/rank_seam.hpp): what a rank may ask of its PE,
// answered from the PE's and the run's state. Each call is a few loads and no allocation, but
// those that post a message (queue_behind_waiting, post_to_pe).
#include "vela/rt/rank_seam.hpp"

#include <atomic>
#include <mutex>
#include <stdexcept>

#include "core/queues.hpp"
#include "core/run_entry.hpp"
#include "core/runtime_state.hpp"

namespace vela::rt::detail {

PackingFor packing_for() {
  const PeState& pe = *this_pe();
  if (pe.checkpoint.packing) return PackingFor::checkpoint;
  if (pe.locations.migrating_out_of_process) return PackingFor::other_process;
  return PackingFor::same_process;
}

std::uint64_t code_layout() {
  return this_pe()->runtime->code_layout;
}

bool pe_has_waiting_messages() {
  PeState& pe = *this_pe();
  return !pe.queues.fifo.empty() || pe.queues.queued_elsewhere() || arrivals_waiting(pe);
}

void queue_behind_waiting_message(const Outgoing& out, ElementBase& self, HandlerId handler) {
  PeState& pe = *this_pe();
  Message* m = out.message;
  m->collection = ElementAccess::collection(self);
  m->element = ElementAccess::linear(self);
  m->handler = handler;
  m->priority = 0;
  ++pe.table(m->collection).sent;  // in flight until it runs, as any message to the collection
  take_inbox(pe);                  // what other PEs sent so far goes first
  enqueue_local(pe, m);
}

void abort_run(int code, bool& code_taken) {
  RuntimeState& state = *this_pe()->runtime;
  {
    std::lock_guard lock(state.error_mutex);
    if (!code_taken) state.exit_code = code;
    code_taken = true;
  }
  stop_all(state);
}

namespace {
std::atomic<LayerHandler> layer_handler{nullptr};
}  // namespace

void set_layer_handler(LayerHandler handler) {
  layer_handler.store(handler, std::memory_order_release);
}

void post_to_pe(PeId to, CollectionId collection, std::vector<std::byte> payload) {
  post_system(*this_pe()->runtime, to, Kind::layer, collection, 0, std::move(payload));
}

void run_layer_message(std::span<const std::byte> payload) {
  const LayerHandler handler = layer_handler.load(std::memory_order_acquire);
  if (handler == nullptr) throw std::logic_error("a layer message, and no layer handler is set");
  handler(payload);
}

PeId pe_id() {
  return this_pe()->id;
}

std::uint64_t elements_here(CollectionId collection) {
  return this_pe()->table(collection).local;
}

bool element_here(CollectionId collection, std::uint64_t linear) {
  const CollectionTable& table = this_pe()->table(collection);
  return linear < table.slots.size() && table.slots[linear].element != nullptr;
}

bool element_in_process(CollectionId collection, std::uint64_t linear) {
  PeState& pe = *this_pe();
  const CollectionTable& table = pe.table(collection);
  if (linear >= table.slots.size()) return false;
  const Slot& slot = table.slots[linear];
  if (slot.element != nullptr) return true;
  RuntimeState& state = *pe.runtime;
  const PeId to =
      slot.location.pe >= 0 ? slot.location.pe : state.collection(collection).home[linear];
  return static_cast<std::size_t>(to - state.layout.first_pe) < state.pe.size();
}

}  // namespace vela::rt::detail
