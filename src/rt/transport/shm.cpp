// The shared-memory rings with the other processes of this machine (shm.hpp): opening and
// closing the window, writing packed messages into the rings (or announcing large ones there,
// their bytes sent by MPI), and reading what arrives in them.
//
// Invariants: as in shm.hpp; a ring's large message (bulk) blocks only that ring, and while
// closing, what arrives is read and freed, never routed, so senders' sends complete.
//
// Costs: see shm.hpp. Opening is collective over the machine's processes (an allgather, the
// window's allocation, a barrier); a pass over the rings with nothing in them reads one word
// per peer.
#include "shm.hpp"

#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "bulk.hpp"

namespace vela::rt::detail::mpi_transport {

namespace {

std::byte* cache_line(void* at) {
  const auto address = reinterpret_cast<std::uintptr_t>(at);
  return static_cast<std::byte*>(at) + (64 - address % 64) % 64;
}

}  // namespace

void ShmRings::open(MPI_Comm comm, MPI_Comm node, int process, int processes) {
  int size = 1, me = 0;
  MPI_Comm_size(node, &size);
  MPI_Comm_rank(node, &me);
  if (size < 2) return;
  std::vector<int> world(static_cast<std::size_t>(size));
  MPI_Allgather(&process, 1, MPI_INT, world.data(), 1, MPI_INT, node);
  const std::size_t ring = ShmRing::footprint(shm_ring_bytes);
  // 64 bytes more, to start the rings on a cache line (a window's part need not be aligned;
  // its address modulo 64 is the same in every process, which maps whole pages).
  const auto bytes = static_cast<MPI_Aint>(ring * static_cast<std::size_t>(size) + 64);
  void* window_base = nullptr;
  MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, node, &window_base, &window);
  std::byte* base = cache_line(window_base);
  std::memset(base, 0, ring * static_cast<std::size_t>(size));
  for (int k = 0; k < size; ++k) {
    ::new (base + ring * static_cast<std::size_t>(k)) ShmRing::Control{};
  }
  MPI_Win_lock_all(MPI_MODE_NOCHECK, window);
  MPI_Barrier(node);  // every ring is ready
  MPI_Comm_dup(comm, &bulk_comm);
  peer_of.assign(static_cast<std::size_t>(processes), nullptr);
  for (int k = 0; k < size; ++k) {
    if (k == me) continue;
    MPI_Aint their_bytes = 0;
    int unit = 0;
    void* theirs = nullptr;
    MPI_Win_shared_query(window, k, &their_bytes, &unit, &theirs);
    // Mine to them: ring `me` of their part; theirs to me: ring k of mine.
    ShmRing out(cache_line(theirs) + ring * static_cast<std::size_t>(me), shm_ring_bytes);
    ShmRing in(base + ring * static_cast<std::size_t>(k), shm_ring_bytes);
    const int process_k = world[static_cast<std::size_t>(k)];
    on_node.push_back(std::make_unique<ShmPeer>(out, in, process_k));
    peer_of[static_cast<std::size_t>(process_k)] = on_node.back().get();
  }
  all_on_node = size == processes;
}

void ShmRings::close() {
  for (auto& peer : on_node) {
    if (peer->bulk != MPI_REQUEST_NULL) MPI_Wait(&peer->bulk, MPI_STATUS_IGNORE);
    if (peer->bulk_message != nullptr) free_message(std::exchange(peer->bulk_message, nullptr));
  }
  drain_incoming();
  peer_of.clear();
  on_node.clear();
  if (window != MPI_WIN_NULL) {
    MPI_Win_unlock_all(window);
    MPI_Win_free(&window);
  }
  if (bulk_comm != MPI_COMM_NULL) MPI_Comm_free(&bulk_comm);
}

void ShmRings::cancel() {
  for (auto& peer : on_node) {
    for (Message* m : peer->waiting) free_message(m);
    if (peer->bulk != MPI_REQUEST_NULL) {
      MPI_Cancel(&peer->bulk);
      MPI_Request_free(&peer->bulk);
    }
  }
}

void ShmRings::drop_waiting() {
  for (auto& peer : on_node) {
    for (Message* m : peer->waiting) free_message(m);
    peer->waiting.clear();
  }
  any_waiting = false;
}

bool ShmRings::receive(Router& router, const std::atomic<bool>& closing) {
  bool moved = false;
  for (auto& p : on_node) {
    ShmPeer& peer = *p;
    const int from = peer.process;
    for (int i = 0; i < 64; ++i) {
      if (peer.deferred.defer != nullptr) {
        if (!match_deferred(peer, router, closing)) break;
        moved = true;
      }
      if (peer.bulk != MPI_REQUEST_NULL) {
        int done = 0;
        MPI_Test(&peer.bulk, &done, MPI_STATUS_IGNORE);
        if (done == 0) break;
        if (peer.bulk_message != nullptr) {
          Message* m = std::exchange(peer.bulk_message, nullptr);
          if (closing.load(std::memory_order_relaxed)) {
            free_message(m);
          } else {
            router.route(m, peer.bulk_header);
          }
        } else if (!closing.load(std::memory_order_relaxed)) {
          router.deliver(std::move(peer.bulk_bytes));
        }
        peer.bulk_bytes = {};
        moved = true;
      }
      ShmRing::Type type{};
      std::span<const std::byte> payload;
      if (!peer.in.peek(type, payload)) break;
      moved = true;
      if (type == ShmRing::data) {
        if (!closing.load(std::memory_order_relaxed)) router.deliver_record(payload);
        peer.in.pop();
        continue;
      }
      if (type == ShmRing::typed) {
        receive_typed(peer, payload);
        peer.in.pop();
        continue;
      }
      std::uint64_t size = 0;
      std::memcpy(&size, payload.data(), sizeof size);
      peer.in.pop();
      peer.bulk_bytes = unzeroed(static_cast<std::size_t>(size));
      MPI_Irecv(peer.bulk_bytes.data.get(), static_cast<int>(size), MPI_BYTE, from, tag_data,
                bulk_comm, &peer.bulk);
    }
  }
  return moved;
}

// A typed record: the entry message is built here, its arguments unpacked but for their large
// vectors, which are sized and receive their bytes by MPI straight from the sender's (or, one
// deferrable block, receive them later where the receiving element says: match_deferred).
inline void ShmRings::receive_typed(ShmPeer& peer, std::span<const std::byte> payload) {
  WireHeader h;
  std::size_t args = 0;
  if (!read_header(payload, h, args)) {
    throw std::logic_error("MPI transport: a short typed record");
  }
  const ArgsOps* ops = handler_ops(h.handler);
  if (ops == nullptr || ops->scatter == nullptr) {
    throw std::logic_error("MPI transport: entry method " + std::to_string(h.handler) +
                           " unknown here (mismatched binaries)");
  }
  const Outgoing out = new_entry_message(*ops, ops->size, ops->align);
  ByteBlocks blocks;
  try {
    pup::Unpacker in(payload.first(args));
    ops->scatter(out.args, in, blocks);
  } catch (...) {
    discard_message(out);
    throw;
  }
  Router::set_header(out.message, h);
  peer.bulk_message = out.message;
  peer.bulk_header = h;
  if (blocks.size() == 1 && blocks[0].defer != nullptr) {
    peer.deferred = blocks[0];  // routed once matched (match_deferred)
    return;
  }
  for (ByteBlock& b : blocks) {
    if (b.data == nullptr) b.data = b.allocate(b.value, b.size);
  }
  post_blocks(false, blocks, peer.process, tag_data, bulk_comm, &peer.bulk);
}

// The deferred block of peer's typed record, once its MPI message is matched: handed to its
// argument, and the message routed. False while not matched yet.
inline bool ShmRings::match_deferred(ShmPeer& peer, Router& router,
                                     const std::atomic<bool>& closing) {
  int flag = 0;
  MPI_Message matched = MPI_MESSAGE_NULL;
  MPI_Improbe(peer.process, tag_data, bulk_comm, &flag, &matched, MPI_STATUS_IGNORE);
  if (flag == 0) return false;
  const ByteBlock b = std::exchange(peer.deferred, ByteBlock{nullptr, 0});
  b.defer(b.value, incoming_bytes(matched, b.size));
  Message* m = std::exchange(peer.bulk_message, nullptr);
  if (closing.load(std::memory_order_relaxed)) {
    free_message(m);  // its bytes are received into scratch
  } else {
    router.route(m, peer.bulk_header);
  }
  return true;
}

}  // namespace vela::rt::detail::mpi_transport
