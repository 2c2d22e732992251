// The scheduler's interface inside src/rt: sending between PEs, stopping, the PE threads and
// their idle waits (core/scheduler.cpp, core/post.cpp, core/idle.cpp, core/dispatch.cpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/message.hpp"
#include "vela/rt/entry.hpp"

namespace vela::rt::detail {

struct PeState;
struct RuntimeState;

// Queues `message` for `to` (locally, without an atomic, when `to` is the calling PE).
void post(RuntimeState& state, PeId to, Message* message);
void post_system(RuntimeState& state, PeId to, Kind kind, CollectionId collection,
                 std::uint64_t element, std::vector<std::byte> payload);
// Sends an entry message whose arguments are already packed (a reduction's result).
// broadcast: one of a dynamic collection's broadcast's messages (Message::broadcast).
void send_packed_entry(CollectionId collection, std::uint64_t linear, HandlerId handler,
                       int priority, std::vector<std::byte> payload, bool broadcast = false);
// Ends the run on every PE (of every process).
void stop_all(RuntimeState& state);
// Ends the run on this process's PEs.
void stop_locally(RuntimeState& state);

// After the run is stopped (an MPI_Abort, a failure, the end): a PE whose element never returns
// to the scheduler (a rank computing in a loop without calling the runtime, as programs wait
// for mpirun to kill them after MPI_Abort) cannot stop, since fibers are not preempted. A
// watchdog thread, started once, ends the process with the run's exit code if the PEs have not
// all stopped `stop_grace` later, saying so; join_pes calls it off.
inline constexpr std::chrono::seconds stop_grace{3};
void watch_the_stop(RuntimeState& state);

// Starts a thread per PE of this process; joins them and frees what is still queued.
void start_pes(RuntimeState& state);
void join_pes(RuntimeState& state);

// Runs one message taken from `pe`'s queues (core/dispatch.cpp): an entry through
// deliver_entry, a runtime message through its service's handler.
void run_message(PeState& pe, Message* message);
// Takes the message. `separate`: measured as an entry of its own; else (an entry run in place
// of the element's own entry, wait_in_place) its time falls in the running entry's segment
// (core/delivery.cpp).
void deliver_entry(PeState& pe, Message* message, bool separate = true);

// PE 0 keeps the clock of periodic balancing, when there is one.
bool balances_periodically(const PeState& pe);
// `pe` has nothing to run: waits (polling, then parked) until something arrives, the run stops
// or (periodic) the next balancing step is due; counted as idle time from `from` (the clock,
// read by the caller just before) (core/idle.cpp).
void idle(PeState& pe, bool periodic, Ticks from);
// How long an adaptive idle PE only pauses between looks at its inbox before it also yields.
inline constexpr double pause_seconds = 2e-6;
// The longest an adaptive idle PE's polling window grows to (core/idle.cpp, adapt_spin), unless
// --spin-us asks for longer.
inline constexpr double max_spin_seconds = 2e-3;

// Sums of this process's PE counts, and whether every one was idle when read (quiescence).
struct Wave {
  bool all_passive = true;
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t parked = 0;
};
Wave read_wave(const RuntimeState& state);

}  // namespace vela::rt::detail
