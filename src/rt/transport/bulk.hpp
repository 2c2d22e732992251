// Large messages' bytes by MPI, outside the rings' records: byte blocks (ByteBlock: a large
// vector of an entry message's arguments, sent from where it lies and received where it will
// lie) as one MPI message, and the deferred receives of such bytes (IncomingBytes: matched by
// the progress-maker, received later by the PE whose element says where they go).
//
// Invariants: sender and receiver post blocks of the same sizes. A matched message waits in the
// process's registry until it is received, by its IncomingBytes or, when the run closes first,
// into scratch by drain_incoming(): a sender waits for its send to complete before it closes,
// so nothing matched may be left unreceived. The registry is guarded by a mutex, since a PE
// receives its element's bytes while the progress-maker may be closing.
//
// Costs: one block of at most INT_MAX bytes is posted as plain bytes; several, or a larger one,
// as an MPI datatype built and committed for that one message. A deferred receive costs an
// allocation and two turns of the registry's lock.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>

#include "core/runtime_state.hpp"

namespace vela::rt::detail::mpi_transport {

// A buffer of `size` bytes, not zeroed (a receive overwrites it whole).
inline RawBytes unzeroed(std::size_t size) {
  return RawBytes{std::make_unique_for_overwrite<std::byte[]>(size), size};
}

// Sends or receives the blocks' bytes on `comm`: one block as bytes (Open MPI's single-copy
// path between processes of a machine takes only contiguous buffers), several as a datatype.
void post_blocks(bool send, const ByteBlocks& blocks, int peer, int tag, MPI_Comm comm,
                 MPI_Request* request);

// The bytes of a large argument whose MPI message (`size` bytes) MPI_Improbe matched: recorded
// in the registry and handed out for the receiving argument to receive.
IncomingBytes incoming_bytes(MPI_Message matched, std::size_t size);

// Closing: what the PEs left matched but not received is received into scratch.
void drain_incoming();

}  // namespace vela::rt::detail::mpi_transport
