// A PE's queues (core/queues.cpp): runtime messages first, then by priority with FIFO order
// among equals; with several clusters, the Grid Queue of border elements' messages and the
// delay device's held messages. Only the PE's own thread touches them; no operation
// allocates but the priority heaps' growth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <queue>
#include <utility>

#include "core/clock.hpp"
#include "core/message.hpp"
#include "core/pe_ring.hpp"

namespace vela::rt::detail {

struct PeState;

struct PeQueues {
  MessageList system;  // runtime messages, first
  MessageList fifo;    // priority 0, the common case
  struct Queued {
    int priority;
    std::uint64_t order;
    Message* message;
    bool operator<(const Queued& o) const {  // std::priority_queue pops the largest
      return priority != o.priority ? priority > o.priority : order > o.order;
    }
  };
  std::priority_queue<Queued> prioritized;  // any other priority
  std::uint64_t arrivals = 0;
  // Border prioritization: messages to this PE's border elements, served before the queues
  // above (by priority, then order), at most grid_period in a row while others wait.
  std::priority_queue<Queued> grid;
  int grid_run = 0;
  // The delay device: messages from other clusters with their release time, in arrival order
  // (the same latency for all, so release order too).
  std::deque<std::pair<Ticks, Message*>> delayed;

  // Whether a message waits anywhere but the FIFO of ordinary messages (the delay device
  // included).
  bool queued_elsewhere() const {
    return !system.empty() || !grid.empty() || !prioritized.empty() || !delayed.empty();
  }
  // Frees every message queued (after the PEs have stopped).
  void free_all();
};

// Queues `message` on `pe` (its own thread).
void enqueue_local(PeState& pe, Message* message);
// The next message to run, or nullptr.
Message* next_local(PeState& pe);
// Queues the held messages whose time has come (only the head needs checking).
void release_delayed(PeState& pe);
// Moves what other PEs sent into the local queues (what came on the PE rings first, then the
// inbox); false when nothing had come.
bool take_inbox(PeState& pe);
// Whether another PE or thread sent something not taken yet (a relaxed look, for polling).
bool arrivals_waiting(PeState& pe);

// PE rings (core/pe_ring.cpp). Makes `pes` local PEs' empty ring tables (before they run).
void prepare_rings(PeState& pe, std::size_t pes);
// An entry message from `from` (its own thread) to another local PE `to`, in order behind any
// held for it; wakes `to` when it sleeps.
void post_on_ring(PeState& from, PeState& to, Message* message);
// A compact message (`header`, then PeRing::compact_bytes of arguments at `args`) from `from`
// (its own thread) to another local PE `to`, when nothing is held for `to` and its ring has
// room; wakes `to` when it sleeps. False, having put nothing, otherwise.
bool post_compact_on_ring(PeState& from, PeState& to, const PeRing::Compact& header,
                          const std::byte* args);
// Puts what `from` holds into its rings as they have room.
void flush_held(PeState& from);
// Whether a message waits on one of `pe`'s incoming rings.
bool rings_ready(PeState& pe);
// Appends the messages waiting on `pe`'s rings to `out`; returns how many.
std::size_t take_rings(PeState& pe, MessageList& out);
// The first message waiting on `pe`'s rings (the one take_inbox would queue first) when it lies
// in compact form, with its ring; null when none waits or it came otherwise (PeRing::next_compact).
const std::byte* first_compact(PeState& pe, PeRing*& ring);
// Takes the message first_compact() showed from `ring` (its line copied out already): published
// to the sender and counted as received, as take_inbox counts what it takes.
void took_compact(PeState& pe, PeRing& ring);
// Frees what the rings and the held lists still have (after the PEs have stopped).
void free_ring_messages(PeState& pe);

}  // namespace vela::rt::detail
