// Quiescence across processes: the in-process rule made a message round. Process 0's
// progress-maker asks every process for its PEs' idle flags and sent/taken counts (messages to
// other processes are counted by the sending PE when handed over and by the receiving PE when
// taken from its inbox); two rounds in a row with every PE idle and equal, unchanged totals
// mean nothing was running or in flight at one instant, and process 0 tells every process to
// stop. A process's counts are the runtime's Wave (read_wave), sent as they are.
//
// Invariants: only process 0 runs rounds, one at a time; a reply to an older round is ignored.
// A round starts only while process 0's own PEs are all idle, and a balanced round is confirmed
// by the next one at once.
//
// Costs: a round is one small control message to and from every other process, and reads every
// PE's counters once per process. After an unbalanced round the next waits 200 µs, and the clock
// is read only once every few passes (on an idle PE reading it is a good part of a pass).
#pragma once

#include <cstdint>
#include <vector>

#include "core/runtime_state.hpp"

namespace vela::rt::detail::mpi_transport {

// Process 0's rounds.
struct Waves {
  std::uint64_t number = 0;  // of the current or last round
  bool open = false;         // a round is waiting for replies
  int replies = 0;
  Wave total;
  bool have_previous = false;  // the last round was balanced
  Wave previous;
  Ticks next = 0;  // no round before then (0: at once)

  // Whether a round starts now (then it is open, its requests to be sent): none is open, the
  // run goes on, the wait after an unbalanced round is over (looked at only when `clock_due`)
  // and this process's PEs are all idle.
  bool start(const RuntimeState& state, bool clock_due) {
    if (open || state.stopping.load(std::memory_order_relaxed)) return false;
    if (next != 0 && (!clock_due || tick_clock::now() < next)) return false;
    const Wave mine = read_wave(state);
    if (!mine.all_passive) {
      have_previous = false;
      return false;
    }
    ++number;
    open = true;
    replies = 0;
    total = Wave{};
    return true;
  }

  // A reply (wave_reply's bytes) from one of the other `processes - 1`; with the last one the
  // round closes and decides: stop the run, fail it (messages held for elements that never
  // arrived), or ask again.
  void add_reply(RuntimeState& state, int processes, const std::vector<std::byte>& bytes);
};

// Any process: the reply to round request `bytes`, this process's counts now.
std::vector<std::byte> wave_reply(const RuntimeState& state, const std::vector<std::byte>& bytes);

}  // namespace vela::rt::detail::mpi_transport
