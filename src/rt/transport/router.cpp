// Arrivals in buffers of their own (router.hpp): a message received by MPI, or one from a ring
// whose arguments do not fit in the message block (copied out of the ring first), keeps its
// buffer as its arguments.
//
// Invariants: the wire header is read from the buffer's end and dropped by shrinking the
// buffer, so the arguments are not moved; a buffer too short for a header is dropped.
//
// Costs: no further copy of the arguments; a pooled message block per arrival. Kept out of the
// header so that the small-record path (deliver_record, route) stays small enough to be inlined
// into the rings' reader.
#include "router.hpp"

namespace vela::rt::detail::mpi_transport {

void Router::deliver(std::vector<std::byte> bytes) {
  WireHeader h;
  std::size_t args = 0;
  if (!read_header(bytes, h, args)) return;
  bytes.resize(args);
  Message* m = header_message(h);
  ::new (m->storage) std::vector<std::byte>(std::move(bytes));
  m->ops = &packed_args;
  route(m, h);
}

void Router::deliver(RawBytes raw) {
  WireHeader h;
  if (!read_header({raw.data.get(), raw.size}, h, raw.size)) return;
  Message* m = header_message(h);
  ::new (m->storage) RawBytes(std::move(raw));
  m->ops = &raw_args;
  route(m, h);
}

}  // namespace vela::rt::detail::mpi_transport
