// The shared-memory side of the transport: processes of one machine exchange data messages
// through rings (shm_ring.hpp), one per ordered pair of processes, in the receiver's part of an
// MPI shared window. A message up to shm_inline_bytes is copied into the ring; a larger one is
// announced in the ring (packed, or an entry message's arguments but their large blocks) and
// its bytes follow by MPI on a communicator of their own (so they keep the ring's order).
//
// Invariants: each ring has one writer and one reader, the two processes' progress-makers (one
// thread at a time on each side), so it needs no lock. Data for a ring that was full waits in
// order in its peer's `waiting`, and nothing is written to that ring before it; a reader whose
// ring announced a large message reads that ring no further until the message's bytes are in
// (or, for one deferred block, matched). Control messages never use the rings.
//
// Costs: a small message is one copy into the ring by the sender and one out of it by the
// receiver (into the message block itself when its arguments fit there, see router.hpp), a
// cache line or so each way and no MPI call; reading looks at one word per ring while nothing
// arrives. The window holds a 1 MiB ring per process of the machine in every process.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "core/runtime_state.hpp"
#include "outbox.hpp"
#include "router.hpp"
#include "shm_ring.hpp"
#include "wire_header.hpp"

namespace vela::rt::detail::mpi_transport {

inline constexpr std::size_t shm_ring_bytes = std::size_t{1} << 20;
inline constexpr std::size_t shm_inline_bytes = std::size_t{256} << 10;
static_assert(shm_inline_bytes <= shm_ring_bytes / 2 - 16);

// A peer process on this machine: the ring this process writes and the one it reads.
struct ShmPeer {
  ShmRing out;
  ShmRing in;
  std::deque<Message*> waiting;  // data for `out` when it was full, in order
  // A large message announced in `in`: its bytes, arriving by MPI (the ring waits for them),
  // into bulk_bytes or, for a typed record, into the vectors of bulk_message's arguments.
  MPI_Request bulk = MPI_REQUEST_NULL;
  RawBytes bulk_bytes;
  Message* bulk_message = nullptr;
  WireHeader bulk_header;
  // A typed record whose one block is deferred (DeferrableBytes): bulk_message goes once its
  // bytes' MPI message is matched (by a probe), without waiting for the bytes.
  ByteBlock deferred{nullptr, 0};
  int process;  // its rank in the run's communicator
  ShmPeer(ShmRing o, ShmRing i, int p) : out(o), in(i), process(p) {}
};

// The rings with the other processes of this machine (--no-shm, or alone on it: none).
struct ShmRings {
  MPI_Comm bulk_comm = MPI_COMM_NULL;  // large messages' bytes
  MPI_Win window = MPI_WIN_NULL;
  std::vector<std::unique_ptr<ShmPeer>> on_node;
  // The peer of each process of the run's communicator (null for the other machines' and this
  // one); empty without rings.
  std::vector<ShmPeer*> peer_of;
  bool any_waiting = false;  // some peer's `waiting` is not empty
  bool all_on_node = false;  // every other process has a ring

  // Collective over `node` (the processes of this machine, in `comm` of `processes`, where this
  // one is `process`): the rings, in a shared window where each process holds the rings it
  // reads (one per process of the machine).
  void open(MPI_Comm comm, MPI_Comm node, int process, int processes);
  // After the closing barrier (every process is there): the window and its communicator.
  void close();
  // Tear-down without the closing handshake: what waits is freed, receives cancelled.
  void cancel();

  // The ring to process `to`, or null.
  ShmPeer* peer(int to) const {
    return peer_of.empty() ? nullptr : peer_of[static_cast<std::size_t>(to)];
  }

  // Writes data message `m` (packed bytes) into the peer's ring, or announces it there and
  // sends its bytes by MPI; false (nothing done) when the ring is full.
  bool write(ShmPeer& peer, Message* m, Outbox& outbox) {
    const auto& bytes = *static_cast<std::vector<std::byte>*>(m->args());
    if (bytes.size() <= shm_inline_bytes) {
      if (!peer.out.try_write(ShmRing::data, bytes, {})) return false;
      free_message(m);
      return true;
    }
    const std::uint64_t size = bytes.size();
    if (!peer.out.try_write(ShmRing::bulk, std::as_bytes(std::span{&size, 1}), {})) return false;
    MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, peer.process, tag_data,
              bulk_comm, outbox.track(m));
    return true;
  }
  // What waited for full rings, in order, as far as they take it.
  bool send_waiting(Outbox& outbox) {
    bool moved = false;
    any_waiting = false;
    for (auto& p : on_node) {
      ShmPeer& peer = *p;
      while (!peer.waiting.empty() && write(peer, peer.waiting.front(), outbox)) {
        peer.waiting.pop_front();
        moved = true;
      }
      any_waiting = any_waiting || !peer.waiting.empty();
    }
    return moved;
  }
  // Closing: what waits for full rings is freed.
  void drop_waiting();

  // Direct writes (MpiProgress::pe, by the sending PE): the peer whose ring may take a record
  // of `bytes` bytes for process `to` straight from the PE, or null.
  ShmPeer* direct_peer(int to, std::size_t bytes) const {
    if (peer_of.empty() || bytes > shm_inline_bytes) return nullptr;
    return peer_of[static_cast<std::size_t>(to)];
  }
  // A record of `bytes` bytes and `type`, written by fill(where) straight into the peer's ring
  // when nothing waits to go there before it and it fits; false when not done. The caller is
  // the progress-maker and has sent what was queued before.
  template <class Fill>
  static bool write_now(ShmPeer& peer, std::size_t bytes, ShmRing::Type type, Fill&& fill) {
    if (!peer.waiting.empty()) return false;
    std::byte* at = peer.out.reserve(bytes);
    if (at == nullptr) return false;
    fill(at);
    peer.out.commit(type);
    return true;
  }

  // Arrivals in the rings of this machine's processes (up to 64 from each), to `router` (freed
  // instead while `closing`); a ring whose large message is still arriving by MPI waits for it.
  // True when something arrived.
  bool receive(Router& router, const std::atomic<bool>& closing);

 private:
  // Called by receive() only (shm.cpp), declared inline for it.
  inline void receive_typed(ShmPeer& peer, std::span<const std::byte> payload);
  inline bool match_deferred(ShmPeer& peer, Router& router, const std::atomic<bool>& closing);
};

}  // namespace vela::rt::detail::mpi_transport
