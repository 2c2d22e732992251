// A PE: one worker thread's state, composed of the core's (inbox, queues, measurement,
// quiescence counts) and each service's part (services/*.hpp). The core loop is in
// core/scheduler.cpp; the fields written by other threads are marked.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "core/inbox.hpp"
#include "core/message.hpp"
#include "core/pe_ring.hpp"
#include "core/queues.hpp"
#include "services/checkpoint.hpp"
#include "services/lb_manager.hpp"
#include "services/location.hpp"
#include "vela/rt/runtime.hpp"

namespace vela::rt::detail {

struct RuntimeState;

struct PeState {
  PeState() = default;
  PeState(const PeState&) = delete;
  PeState& operator=(const PeState&) = delete;
  ~PeState();  // deletes the elements living here first

  PeId id = 0;
  RuntimeState* runtime = nullptr;

  // Written by other threads: messages in, message blocks back.
  Inbox<Message> inbox;
  MessagePool pool;

  // Entry messages from the process's other PEs (core/pe_ring.cpp): rings_in[p] is made and
  // written by local PE p at its first message here (null before), rings_made counts them, so
  // that this PE looks for new ones only when it moved.
  std::unique_ptr<std::atomic<PeRing*>[]> rings_in;
  std::atomic<std::uint32_t> rings_made{0};

  // Quiescence detection (core/idle.cpp): written by this PE only, read by any PE looking for
  // quiescence and by the transport's waves.
  alignas(64) std::atomic<bool> passive{false};
  std::atomic<std::uint64_t> sent{0};      // messages posted to other PEs
  std::atomic<std::uint64_t> received{0};  // messages taken from the inbox
  std::atomic<std::uint64_t> parked_count{0};

  // Only this PE's thread touches what follows.
  alignas(64) PeQueues queues;
  std::int32_t cluster = 0;
  double stretch = 0.0;  // an emulated slow PE's entries take (1 + stretch) times as long

  // The rings this PE polls (those of rings_in made when it last looked), the ones it sends on
  // (by local PE, made on first use), and the messages waiting for room in them, in order
  // (`holding`: how many PEs have some).
  std::vector<PeRing*> rings_from;
  std::vector<std::unique_ptr<PeRing>> rings_to;
  std::vector<MessageList> held;
  std::uint32_t holding = 0;

  ElementTables locations;  // the location manager's part (services/location.hpp)
  PeBalancing lb;           // balancing steps under way (services/lb_manager.hpp)
  PeCheckpoint checkpoint;  // services/checkpoint.hpp

  ElementBase* current = nullptr;  // element whose entry method is running
  // While the scheduler's loop runs one queued entry message (and nothing else of the loop's
  // waits on it): an entry may then wait in place (wait_in_place). Not while the runtime runs
  // several elements' entries in one pass (resuming them after a sync point).
  bool delivering = false;

  // Measurement, in clock ticks: `mark` is the last entry boundary (the end of one entry is
  // the start of the next); idle and the period since the last balancing step.
  Ticks mark = 0;
  double cpu_mark = 0.0;             // thread CPU seconds at the start of the running entry
  const char* entry_name = nullptr;  // the running entry's trace name (when tracing)
  Ticks idle_ticks = 0;
  Ticks period_start = 0;

  RunStats stats;
  std::thread thread;
  // Bound to its core (--no-pin not given and the binding took); how often its polling found
  // that the core had run something else, and whether it concluded that another busy process
  // shares the core (then it no longer yields while it polls: idle.cpp, watch_core_share).
  bool pinned = false;
  int descheduled = 0;
  bool core_shared = false;
  // Adaptive idle: how long this PE polls before it parks, from --spin-us up to
  // max_spin_seconds as its parks show its waits (idle.cpp, adapt_spin).
  Ticks spin_window = 0;

  // This PE's table of `collection` (services/location.hpp), made on first use.
  CollectionTable& table(CollectionId collection) {
    CollectionTable& t = locations.tables[collection];
    if (t.slots.empty()) [[unlikely]]
      make_table(collection);
    return t;
  }
  void make_table(CollectionId collection);
};

}  // namespace vela::rt::detail
