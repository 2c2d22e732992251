// Quiescence rounds across processes (waves.hpp): the replies' format and the decision at the
// end of a round.
//
// Invariants: a reply carries the round's number and the replying process's Wave (idle flag as
// one byte, then the sent, taken and parked counts); process 0 adds its own counts only after
// every reply came, so its PEs are read last.
//
// Costs: a reply is 33 bytes; deciding a round is a handful of additions.
#include "waves.hpp"

#include <stdexcept>
#include <string>

namespace vela::rt::detail::mpi_transport {

std::vector<std::byte> wave_reply(const RuntimeState& state, const std::vector<std::byte>& bytes) {
  std::uint64_t number = 0;
  pup::unpack(bytes, number);
  const Wave w = read_wave(state);
  std::vector<std::byte> reply;
  pup::pack_values(reply, number, w.all_passive, w.sent, w.received, w.parked);
  return reply;
}

void Waves::add_reply(RuntimeState& state, int processes, const std::vector<std::byte>& bytes) {
  std::uint64_t round = 0;
  Wave w;
  pup::Unpacker in(bytes);
  pup::unpack_values(in, round, w.all_passive, w.sent, w.received, w.parked);
  if (round != number) return;
  total.all_passive = total.all_passive && w.all_passive;
  total.sent += w.sent;
  total.received += w.received;
  total.parked += w.parked;
  if (++replies < processes - 1) return;
  open = false;
  // Own PEs, read after every reply came.
  const Wave mine = read_wave(state);
  total.all_passive = total.all_passive && mine.all_passive;
  total.sent += mine.sent;
  total.received += mine.received;
  total.parked += mine.parked;
  const bool balanced = total.all_passive && total.sent == total.received;
  if (balanced && have_previous && previous.sent == total.sent &&
      previous.received == total.received) {
    if (total.parked > 0) {
      state.fail(std::make_exception_ptr(std::logic_error(
          "quiescence with " + std::to_string(total.parked) +
          " message(s) held for elements that never arrived (a message was sent to an "
          "element that is neither here nor on its way, or to one that called destroy() with "
          "none inserted at its index since)")));
      return;
    }
    stop_all(state);
    return;
  }
  have_previous = balanced;
  previous = total;
  // A balanced round is confirmed at once; otherwise wait a little before asking again.
  next = balanced ? 0 : tick_clock::now() + tick_clock::from_seconds(200e-6);
}

}  // namespace vela::rt::detail::mpi_transport
