// The runtime's side of the rank seam (vela/rt/rank_seam.hpp): what a rank may ask of its PE,
// answered from the PE's and the run's state. Each call is a few loads and no allocation.
#include "vela/rt/rank_seam.hpp"

#include <mutex>

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
