// Large messages' bytes by MPI (bulk.hpp): MPI datatypes over byte blocks, and the registry of
// matched but not yet received messages behind IncomingBytes.
//
// Invariants: a registered message is received exactly once, by whichever comes first of its
// IncomingBytes (receive_into, drop) and drain_incoming(); the `received` flag, set under the
// registry's lock, decides which. Blocks over 1 GiB go in pieces, since MPI counts are ints.
//
// Costs: blocks_type() walks the blocks once and commits one datatype per message; the
// registry's lock is taken twice per deferred receive and never on the path of small messages.
#include "bulk.hpp"

#include <algorithm>
#include <climits>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace vela::rt::detail {

namespace mpi_transport {

namespace {

// An MPI datatype of the blocks' bytes at their addresses (for MPI_BOTTOM), committed; blocks
// over 1 GiB in pieces (counts are ints). Sender and receiver build it from blocks of the same
// sizes.
MPI_Datatype blocks_type(const ByteBlocks& blocks) {
  constexpr std::size_t piece = std::size_t{1} << 30;
  std::vector<int> lengths;
  std::vector<MPI_Aint> at;
  for (const ByteBlock& b : blocks) {
    for (std::size_t from = 0; from < b.size; from += piece) {
      MPI_Aint address = 0;
      MPI_Get_address(b.data + from, &address);
      at.push_back(address);
      lengths.push_back(static_cast<int>(std::min(piece, b.size - from)));
    }
  }
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), at.data(), MPI_BYTE,
                           &type);
  MPI_Type_commit(&type);
  return type;
}

// The bytes of a large argument, matched by MPI_Improbe but not yet received (IncomingBytes).
// Every one is in `incoming` until received, so that closing can receive what the PEs left
// (a sender waits for its send to complete before it closes).
struct PendingBytes {
  MPI_Message message = MPI_MESSAGE_NULL;
  std::size_t size = 0;
  bool received = false;
};
std::mutex incoming_mutex;
std::vector<PendingBytes*> incoming;

// Receives a matched message of `size` bytes into `where` (in pieces of 1 GiB when larger).
void receive_matched(MPI_Message& message, std::byte* where, std::size_t size) {
  if (size <= static_cast<std::size_t>(INT_MAX)) {
    MPI_Mrecv(where, static_cast<int>(size), MPI_BYTE, &message, MPI_STATUS_IGNORE);
    return;
  }
  MPI_Datatype type = blocks_type(ByteBlocks{{where, size}});
  MPI_Mrecv(MPI_BOTTOM, 1, type, &message, MPI_STATUS_IGNORE);
  MPI_Type_free(&type);
}

// Takes `p` out of `incoming`, or false when closing already received it.
bool claim(PendingBytes* p) {
  std::lock_guard lock(incoming_mutex);
  if (p->received) return false;
  p->received = true;
  std::erase(incoming, p);
  return true;
}

}  // namespace

void post_blocks(bool send, const ByteBlocks& blocks, int peer, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  if (blocks.size() == 1 && blocks[0].size <= static_cast<std::size_t>(INT_MAX)) {
    const int n = static_cast<int>(blocks[0].size);
    if (send) {
      MPI_Isend(blocks[0].data, n, MPI_BYTE, peer, tag, comm, request);
    } else {
      MPI_Irecv(blocks[0].data, n, MPI_BYTE, peer, tag, comm, request);
    }
    return;
  }
  MPI_Datatype type = blocks_type(blocks);
  if (send) {
    MPI_Isend(MPI_BOTTOM, 1, type, peer, tag, comm, request);
  } else {
    MPI_Irecv(MPI_BOTTOM, 1, type, peer, tag, comm, request);
  }
  MPI_Type_free(&type);
}

IncomingBytes incoming_bytes(MPI_Message matched, std::size_t size) {
  auto* pending = new PendingBytes{matched, size};
  {
    std::lock_guard lock(incoming_mutex);
    incoming.push_back(pending);
  }
  return IncomingBytes(pending, size);
}

void drain_incoming() {
  std::vector<PendingBytes*> left;
  {
    std::lock_guard lock(incoming_mutex);
    left.swap(incoming);
    for (PendingBytes* p : left) p->received = true;
  }
  for (PendingBytes* p : left) {
    RawBytes scratch = unzeroed(p->size);
    receive_matched(p->message, scratch.data.get(), p->size);
  }
}

}  // namespace mpi_transport

void IncomingBytes::receive_into(std::byte* where) {
  auto* p = static_cast<mpi_transport::PendingBytes*>(std::exchange(pending_, nullptr));
  if (p == nullptr) throw std::logic_error("IncomingBytes::receive_into: nothing to receive");
  if (mpi_transport::claim(p)) mpi_transport::receive_matched(p->message, where, p->size);
  delete p;
  size_ = 0;
}

void IncomingBytes::drop() noexcept {
  if (pending_ == nullptr) return;
  const RawBytes scratch = mpi_transport::unzeroed(size_);
  receive_into(scratch.data.get());
}

}  // namespace vela::rt::detail
