// Transport::Impl, the MPI transport of one process: its communicator and the parts that share
// it. Each part keeps its own state: the outbox (outbox.hpp: what waits to be sent, the sends in
// flight), the rings with this machine's processes (shm.hpp), the router of arrivals into the
// PEs' inboxes (router.hpp: with the messages held for collections not known yet), and process
// 0's quiescence rounds (waves.hpp). What is really shared is here: the communicators and this
// process's place in them, who makes progress (`own_thread`, `busy`), and `closing`. The
// channel that drives the parts (a progress pass, sends, receives, closing) is in channel.cpp;
// set-up and tear-down in setup.cpp; the main thread's collectives in collectives.cpp.
//
// Invariants: exactly one thread at a time makes progress (calls MPI for the run, reads and
// writes the rings, touches the outbox's sends in flight, the router and the rounds): the
// communication thread (MpiProgress::thread), else whichever PE holds `busy`
// (MpiProgress::pe). Any thread may push onto the outbox's queue. Once `closing` is set the PEs
// have stopped, and what arrives is read and dropped.
//
// Costs: a pass with nothing to do reads the outbox's head, one word per ring and, unless every
// process shares this machine, MPI's progress engine (MPI_Improbe); with rings to every
// process, MPI is looked at once every mpi_probe_every passes and at most once per
// mpi_look_seconds while no send by MPI is in flight.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "core/runtime_state.hpp"
#include "outbox.hpp"
#include "peer_watch.hpp"
#include "router.hpp"
#include "shm.hpp"
#include "transport.hpp"
#include "waves.hpp"

namespace vela::rt::detail {

namespace mpi_transport {

// The communication thread's idle policy: how long it polls after its last progress, and how
// long it then sleeps between looks at MPI (a PE's outgoing message wakes it at once).
inline constexpr double poll_seconds = 2e-3;
inline constexpr double sleep_seconds = 100e-6;
// With every process on this machine, a pass looks at MPI once in this many passes ...
inline constexpr std::uint32_t mpi_probe_every = 16;
// ... and, while no send by MPI is in flight, at most once in this many seconds: then MPI
// carries only control messages, which can wait that long, and a look (a lock and MPI's whole
// progress engine) would delay a ring message arriving meanwhile.
inline constexpr double mpi_look_seconds = 10e-6;

}  // namespace mpi_transport

struct Transport::Impl {
  RuntimeState& state;
  // The run's communicator (a dup of the world's), this process's rank in it and its size;
  // `node`: the processes of this machine (for the rings, the oversubscription count and
  // --clusters node).
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm node = MPI_COMM_NULL;
  int process = 0;
  int processes = 1;
  const bool own_thread;
  std::thread thread;
  // MpiProgress::pe: the PE making progress holds it (another skips its pass; a pass that
  // queues a reply leaves it for the next pass).
  std::atomic<bool> busy{false};
  std::atomic<bool> closing{false};  // the PEs have stopped: the closing handshake

  mpi_transport::Outbox outbox;
  mpi_transport::ShmRings shm;
  mpi_transport::Router router;
  mpi_transport::Waves waves;        // process 0
  std::unique_ptr<PeerWatch> watch;  // heartbeats (--peer-timeout)

  // Pacing the looks at MPI when every other process has a ring (progress()).
  std::uint32_t passes = 0;
  Ticks next_mpi_look = 0;
  const Ticks mpi_look_ticks = tick_clock::from_seconds(mpi_transport::mpi_look_seconds);

  explicit Impl(RuntimeState& s)
      : state(s), own_thread(s.options.mpi_progress == MpiProgress::thread), router(s) {}

  // Defined in channel.cpp. The ones marked inline are called there only: declared inline, the
  // compiler may fold them into the per-message path (Transport::send, Transport::poll) as it
  // may a function defined in its class.

  // Queues bytes for process `to` under `tag` (control messages are sent synchronously, so
  // they have been received once their send completes).
  inline void queue(int to, int tag, std::vector<std::byte> bytes);
  void queue_all(int tag, const std::vector<std::byte>& bytes);

  // MpiProgress::pe: a pass, unless another PE is making one.
  inline bool poll();
  // One pass: what is queued goes out, finished sends are freed, arrivals are delivered (up
  // to 64), and process 0 runs its quiescence rounds. True when something happened.
  inline bool progress();
  inline bool send_queued();
  inline bool receive_one();
  inline void arrived(int source, int tag, std::vector<std::byte> bytes);
  inline bool mpi_look_due();

  // MpiProgress::pe, on a PE: sends without the outbox, straight into a ring.
  template <class Fill>
  inline bool write_direct(int to, std::size_t bytes, ShmRing::Type type, Fill&& fill);
  inline bool send_direct(int to, Message* m, const WireHeader& h, std::size_t header,
                          std::size_t args);
  inline bool send_typed(int to, Message* m, const WireHeader& h, std::size_t header);

  // MpiProgress::thread: the communication thread's loop.
  inline void run();
  // The closing handshake.
  inline void close();
};

}  // namespace vela::rt::detail
