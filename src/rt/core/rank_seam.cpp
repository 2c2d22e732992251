// The runtime's side of the rank seam (vela/rt/rank_seam.hpp): what a rank may ask of its PE,
// answered from the PE's and the run's state. Each call is a few loads and no allocation.
#include "vela/rt/rank_seam.hpp"

#include <mutex>

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
  const PeState& pe = *this_pe();
  return !pe.queues.fifo.empty() || pe.queues.queued_elsewhere() || !pe.inbox.empty();
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

}  // namespace vela::rt::detail
