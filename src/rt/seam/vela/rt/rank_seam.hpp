// What the rank layer (src/vp) may ask of the runtime beyond the public headers: the one seam
// between a rank and the PE that runs it. Everything else of a PE (its queues, its services'
// state) stays private to src/rt; src/vp links this header through the CMake target
// vela::rt_rank_seam and sees no other file of src/rt.
//
// Invariants: every function here runs on a PE's thread (on_pe() is true) unless it says
// otherwise; none allocates but queue_behind_waiting (a message from the PE's pool) and
// post_to_pe (a message); on_pe() and the thread-local below cost one TLS read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "vela/rt/element.hpp"
#include "vela/rt/entry.hpp"

namespace vela::rt::detail {

struct PeState;  // opaque here: src/rt/core/pe.hpp

// The PE whose thread is running, or nullptr outside the PEs. Defined here (rather than with
// PeState) so that the privatization of thread-locals can carry it to a rank's own copy.
constinit inline thread_local PeState* current_pe = nullptr;
inline PeState* this_pe() {
  return current_pe;
}
inline bool on_pe() {
  return current_pe != nullptr;
}

// Why an element is being packed, as the PE running it knows: a move within the process, a
// move to another process (state valid only here must travel whole), or a checkpoint.
enum class PackingFor : std::uint8_t { same_process, other_process, checkpoint };
PackingFor packing_for();

// Where the code sat when the runtime was made (a hash of the program's mappings): a rank's
// stack, full of return addresses, resumes elsewhere only where this matches.
std::uint64_t code_layout();

// Ends the whole run (every PE of every process) with exit status `code`, unless `code_taken`
// (the caller's flag, read and set under the runtime's error lock) says an earlier call of the
// caller's set the status already: the first abort's code wins.
void abort_run(int code, bool& code_taken);

// Called before the process is ended without its exit functions (a stopped run whose PEs do
// not come back: core/scheduler.hpp, watch_the_stop): `flush` writes out what a library keeps
// buffered (libgfortran's units). At most 4; registered once each, before the run.
void at_forced_exit(void (*flush)());

// Whether messages wait to run on this PE beyond the running entry (its queues or its inbox).
bool pe_has_waiting_messages();

// Queues `self`'s entry `Method` (no arguments; `self` runs on this PE) behind every message
// waiting on this PE, its inbox's included, as the PE's own work: not a message between
// elements (no edge of the communication graph, nothing for quiescence to count). A rank whose
// wait an arrival ended resumes so, in turn, when other messages wait: they may let other ranks
// of the PE send what ranks elsewhere wait for, where resuming it at once would keep them
// waiting through its whole next stretch of computation.
void queue_behind_waiting_message(const Outgoing& out, ElementBase& self, HandlerId handler);
template <auto Method>
void queue_behind_waiting(ElementBase& self) {
  using Parameters = typename MethodTraits<decltype(Method)>::Parameters;
  static_assert(std::tuple_size_v<Parameters> == 0, "an entry without arguments");
  queue_behind_waiting_message(
      new_entry_message(EntryArgs<Method>::ops, sizeof(Parameters), alignof(Parameters)), self,
      handler_id<Method>);
}

// Called from inside an entry method of `self` (a rank's fiber blocked in a receive) on this
// PE's thread: when the PE has nothing else to run, waits as the idle PE would (counted as idle
// time, quiescence and the transport served alike), and if the first message to run then is
// an entry of `self` with one of `handlers`, runs it here, nested, and returns true. Returns
// false, having run nothing, when the PE has other work, the first message is another's, or the run
// stops: the caller then gives the PE back to its scheduler. The time of the calling entry so
// far is charged to `self` before the wait; the nested entry's time is charged with what the
// caller runs after it (traced, it is an entry of its own).
bool wait_in_place(ElementBase& self, std::span<const HandlerId> handlers);

// PE to PE, for the rank layer's own protocols (its per-PE collectives): `payload` is posted to
// PE `to` of any process and run there by the handler set with set_layer_handler, on that PE's
// thread outside any element, ahead of its entry methods (a runtime message). Counted for
// quiescence like any message; `collection` is the rank layer's (a process that has not made it
// yet holds the message until it has).
void post_to_pe(PeId to, CollectionId collection, std::vector<std::byte> payload);
using LayerHandler = void (*)(std::span<const std::byte> payload);
// Set before any post_to_pe; a later call replaces it (every process sets the same handler).
void set_layer_handler(LayerHandler handler);
// Runs a Kind::layer message's payload through the handler (core/dispatch.cpp).
void run_layer_message(std::span<const std::byte> payload);

// This PE's number in the whole run, how many elements of `collection` live on it now, and
// whether element `linear` of it does (a lookup in the PE's table).
PeId pe_id();
std::uint64_t elements_here(CollectionId collection);
bool element_here(CollectionId collection, std::uint64_t linear);
// Whether element `linear` of `collection` lives on a PE of this process, as far as this PE
// knows (where it last heard of it; a move under way may make it wrong, never unsafe to ask).
bool element_in_process(CollectionId collection, std::uint64_t linear);

}  // namespace vela::rt::detail
