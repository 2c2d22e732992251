// MPI's collective communication (the standard's chapter 5) on any intracommunicator: vp's
// collectives over the communicator's members (vp::Members: its group and context), with the
// reduction operators of operators.cpp. vp's collectives read and write distinct buffers: a
// buffer given as MPI_IN_PLACE is made into one of them here (InPlace). The gather-like calls
// move each rank's block as bytes, so that the send and receive datatypes need only agree on
// their size. Reductions combine in rank order along a tree fixed by the communicator's size
// (the same bits for any placement); MPI_Scan and MPI_Exscan pass a prefix along the ranks
// (n - 1 steps), MPI_Reduce_scatter reduces at rank 0 and scatters.
#include <cstring>
#include <numeric>

#include "internal.hpp"
#include "operators.hpp"

namespace vela::mpi::detail {
namespace {

// The communicator of a collective: an intracommunicator (collectives on intercommunicators are
// not implemented yet).
Communicator& collective_comm(const char* call, const Label& label, MPI_Comm comm) {
  Communicator& c = active(call, label, comm);
  if (c.inter) {
    fail(call, MPI_ERR_COMM,
         "collectives on an intercommunicator are not supported yet (merge it with "
         "MPI_Intercomm_merge)");
  }
  return c;
}

// A collective's buffer given as MPI_IN_PLACE, made into one vp takes. On the send side the
// caller's own contribution already lies in its receive buffer: it is sent from a copy (vp
// writes the receive buffer while it reads the send buffer). On the receive side (a scatter's
// root, whose block stays where it is in its send buffer) the block is received into scratch.
class InPlace {
 public:
  // Whether `buffer`, the call's `side` ("send" or "receive") buffer, is MPI_IN_PLACE: an
  // error where the call takes it at the root only (`root_only`) and this rank is not the root.
  InPlace(const char* call, const void* buffer, const char* side, bool root_only, bool at_root)
      : in_place_(buffer == MPI_IN_PLACE) {
    if (in_place_ && root_only && !at_root) {
      fail(call, MPI_ERR_BUFFER,
           std::string("MPI_IN_PLACE is the ") + side + " buffer of the root only");
    }
  }
  InPlace(const InPlace&) = delete;
  InPlace& operator=(const InPlace&) = delete;

  explicit operator bool() const { return in_place_; }

  // `sendbuf`, or in place a copy of the `bytes` bytes at `offset` in `recvbuf`.
  const void* send(const void* sendbuf, const void* recvbuf, std::size_t offset,
                   std::size_t bytes) {
    if (!in_place_) return sendbuf;
    scratch_.resize(bytes);
    if (bytes > 0)
      std::memcpy(scratch_.data(), static_cast<const std::byte*>(recvbuf) + offset, bytes);
    return scratch_.data();
  }

  // `recvbuf`, or in place `bytes` bytes that no one reads.
  void* receive(void* recvbuf, std::size_t bytes) {
    if (!in_place_) return recvbuf;
    scratch_.resize(bytes);
    return scratch_.data();
  }

 private:
  bool in_place_;
  std::vector<std::byte> scratch_;
};

// The bytes each rank contributes to a gather-like call: sendcount of sendtype, which must
// match recvcount of recvtype where the receive side counts.
std::size_t block_bytes(const char* call, int sendcount, MPI_Datatype sendtype, int recvcount,
                        MPI_Datatype recvtype, bool send_side, bool receive_side) {
  std::size_t send_bytes = 0;
  std::size_t receive_bytes = 0;
  const Datatype* stype = nullptr;
  const Datatype* rtype = nullptr;
  if (send_side) {
    stype = &datatype_of(call, sendtype, "sendtype");
    send_bytes = bytes_of(count_of(call, sendcount, "sendcount"), *stype);
  }
  if (receive_side) {
    rtype = &datatype_of(call, recvtype, "recvtype");
    receive_bytes = bytes_of(count_of(call, recvcount, "recvcount"), *rtype);
  }
  if (send_side && receive_side && send_bytes != receive_bytes) {
    fail(call, MPI_ERR_TRUNCATE,
         "recvcount " + std::to_string(recvcount) + " of " + rtype->name + " (" +
             std::to_string(receive_bytes) + " bytes) does not match sendcount " +
             std::to_string(sendcount) + " of " + stype->name + " (" + std::to_string(send_bytes) +
             " bytes)");
  }
  return send_side ? send_bytes : receive_bytes;
}

void check_bytes(const char* call, const void* buffer, std::size_t bytes, const char* what) {
  if (buffer == MPI_IN_PLACE)
    fail(call, MPI_ERR_BUFFER, std::string(what) + " cannot be MPI_IN_PLACE here");
  if (bytes > 0 && buffer == nullptr) {
    fail(call, MPI_ERR_BUFFER,
         std::string(what) + " is NULL for " + std::to_string(bytes) + " bytes");
  }
}

// A reduction's arguments, checked: the datatype, the count, the operator on the datatype.
struct Reduction {
  const Datatype& type;
  std::size_t count;
  Operation operation;
  std::size_t bytes() const { return count * type.size; }
};

Reduction reduction_of(const char* call, Objects& objects, int count, MPI_Datatype datatype,
                       MPI_Op op) {
  const Datatype& type = datatype_of(call, datatype);
  const std::size_t n = count_of(call, count);
  return {type, n, operation_of(call, objects, op, datatype, type)};
}

// `count` counts of `what` (one per member), checked; their sum.
std::size_t check_counts(const char* call, const int* counts, int members, const char* what) {
  check_out(call, counts, what);
  std::size_t total = 0;
  for (int i = 0; i < members; ++i) {
    total += count_of(call, counts[i], what);
  }
  return total;
}

// The byte offset of block i of a v-collective: displs[i] elements of `type`.
std::size_t at(const int* displs, int i, const Datatype& type) {
  return static_cast<std::size_t>(static_cast<std::ptrdiff_t>(displs[i]) *
                                  static_cast<std::ptrdiff_t>(type.size));
}

// Passes a running reduction along the members: member i receives the combination of members
// 0..i-1 (`prefix`; empty at member 0), and sends on that combined with its own values. What
// MPI_Scan (inclusive: the result is prefix op own) and MPI_Exscan (the prefix) share.
void prefix_chain(const char* call, const Communicator& c, const void* own, void* result,
                  const Reduction& r, bool inclusive) {
  const vp::Members members = const_cast<Communicator&>(c).members();
  const vp::Collective chain(members, call);
  const std::size_t bytes = r.bytes();
  std::vector<std::byte> running(bytes);
  if (bytes > 0) std::memcpy(running.data(), own, bytes);
  if (members.index > 0) {
    std::vector<std::byte> prefix(bytes);
    chain.get(prefix.data(), bytes, members.index - 1);
    if (!inclusive && bytes > 0) std::memcpy(result, prefix.data(), bytes);
    // running = prefix op own (prefix holds the lower ranks)
    if (r.count > 0) r.operation.function(prefix.data(), running.data(), r.count, &r.operation);
  }
  if (inclusive && bytes > 0) std::memcpy(result, running.data(), bytes);
  if (members.index + 1 < members.size) chain.put(running.data(), bytes, members.index + 1);
}

// MPI_Allgather and MPI_Alltoall: every rank receives a block from each rank, and sends its
// own block to all (`all_blocks` false) or a block to each (true). In place, what it sends is
// a copy of its own block of the receive buffer, or of all of it.
int exchange(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, bool all_blocks,
             void (*collective)(const vp::Members&, const void*, std::size_t, void*, const char*)) {
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = collective_comm(call, label, comm);
    InPlace in_place(call, sendbuf, "send", false, true);
    const std::size_t bytes =
        block_bytes(call, sendcount, sendtype, recvcount, recvtype, !in_place, true);
    const std::size_t all = bytes * static_cast<std::size_t>(c.group.size());
    check_bytes(call, recvbuf, all, "recvbuf");
    sendbuf = all_blocks ? in_place.send(sendbuf, recvbuf, 0, all)
                         : in_place.send(sendbuf, recvbuf, static_cast<std::size_t>(c.rank) * bytes,
                                         bytes);
    check_bytes(call, sendbuf, all_blocks ? all : bytes, "sendbuf");
    collective(c.members(), sendbuf, bytes, recvbuf, call);
  });
}

// MPI_Reduce_scatter and MPI_Reduce_scatter_block: the reduction of every member's `total`
// elements at member 0, then block i (counts[i] elements at offsets[i]) to member i.
void reduce_then_scatter(const char* call, Communicator& c, const void* sendbuf, void* recvbuf,
                         const Reduction& r, const std::vector<int>& counts) {
  const vp::Members members = c.members();
  std::vector<std::byte> whole(c.rank == 0 ? r.bytes() : 0);
  vp::group::reduce(members, sendbuf, whole.data(), r.count, r.type.size, r.operation.combine(), 0,
                    call);
  const vp::Collective scatter(members, call);
  const std::size_t mine =
      static_cast<std::size_t>(counts[static_cast<std::size_t>(c.rank)]) * r.type.size;
  if (c.rank != 0) {
    scatter.get(recvbuf, mine, 0);
    return;
  }
  std::size_t offset = 0;
  for (int i = 0; i < members.size; ++i) {
    const std::size_t bytes =
        static_cast<std::size_t>(counts[static_cast<std::size_t>(i)]) * r.type.size;
    if (i == 0) {
      if (bytes > 0) std::memmove(recvbuf, whole.data(), bytes);
    } else {
      scatter.put(whole.data() + offset, bytes, i);
    }
    offset += bytes;
  }
}

}  // namespace
}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VPMPI_Barrier(MPI_Comm comm) {
  constexpr const char* call = "MPI_Barrier";
  return guarded_on(call, comm, [&](const Label& label) {
    vp::group::barrier(collective_comm(call, label, comm).members(), call);
  });
}

int VPMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Bcast";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = collective_comm(call, label, comm);
    const Buffer b = buffer_of(call, buffer, count, datatype, {.buffer = "buffer"});
    check_peer(c.group.size(), call, "root", root, false, false);
    vp::group::bcast(c.members(), buffer, bytes_of(b.count, b.type), root, call);
  });
}

int VPMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Reduce";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = collective_comm(call, label, comm);
    const Reduction r = reduction_of(call, objects, count, datatype, op);
    check_peer(c.group.size(), call, "root", root, false, false);
    const bool at_root = c.rank == root;
    InPlace in_place(call, sendbuf, "send", true, at_root);
    if (in_place) check_buffer(call, recvbuf, r.count, r.type, "recvbuf");
    sendbuf = in_place.send(sendbuf, recvbuf, 0, r.bytes());
    check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    if (at_root) check_buffer(call, recvbuf, r.count, r.type, "recvbuf");
    vp::group::reduce(c.members(), sendbuf, recvbuf, r.count, r.type.size, r.operation.combine(),
                      root, call);
  });
}

int VPMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm) {
  constexpr const char* call = "MPI_Allreduce";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = collective_comm(call, label, comm);
    const Reduction r = reduction_of(call, objects, count, datatype, op);
    check_buffer(call, recvbuf, r.count, r.type, "recvbuf");
    InPlace in_place(call, sendbuf, "send", false, true);
    sendbuf = in_place.send(sendbuf, recvbuf, 0, r.bytes());
    check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    vp::group::allreduce(c.members(), sendbuf, recvbuf, r.count, r.type.size, r.operation.combine(),
                         call);
  });
}

int VPMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype,
                       MPI_Op op) {
  constexpr const char* call = "MPI_Reduce_local";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    const Reduction r = reduction_of(call, objects, count, datatype, op);
    check_buffer(call, inbuf, r.count, r.type, "inbuf");
    check_buffer(call, inoutbuf, r.count, r.type, "inoutbuf");
    if (r.count > 0) r.operation.function(inbuf, inoutbuf, r.count, &r.operation);
  });
}

int VPMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  constexpr const char* call = "MPI_Reduce_scatter_block";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = collective_comm(call, label, comm);
    const int n = c.group.size();
    count_of(call, recvcount, "recvcount");
    const Reduction r = reduction_of(call, objects, recvcount * n, datatype, op);
    InPlace in_place(call, sendbuf, "send", false, true);
    sendbuf = in_place.send(sendbuf, recvbuf, 0, r.bytes());
    check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    check_buffer(call, recvbuf, static_cast<std::size_t>(recvcount), r.type, "recvbuf");
    reduce_then_scatter(call, c, sendbuf, recvbuf, r,
                        std::vector<int>(static_cast<std::size_t>(n), recvcount));
  });
}

int VPMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  constexpr const char* call = "MPI_Reduce_scatter";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = collective_comm(call, label, comm);
    const int n = c.group.size();
    const std::size_t total = check_counts(call, recvcounts, n, "recvcounts");
    const Reduction r = reduction_of(call, objects, static_cast<int>(total), datatype, op);
    InPlace in_place(call, sendbuf, "send", false, true);
    sendbuf = in_place.send(sendbuf, recvbuf, 0, r.bytes());
    check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    check_buffer(call, recvbuf, static_cast<std::size_t>(recvcounts[c.rank]), r.type, "recvbuf");
    reduce_then_scatter(call, c, sendbuf, recvbuf, r, std::vector<int>(recvcounts, recvcounts + n));
  });
}

int VPMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm) {
  constexpr const char* call = "MPI_Scan";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = collective_comm(call, label, comm);
    const Reduction r = reduction_of(call, objects, count, datatype, op);
    check_buffer(call, recvbuf, r.count, r.type, "recvbuf");
    InPlace in_place(call, sendbuf, "send", false, true);
    sendbuf = in_place.send(sendbuf, recvbuf, 0, r.bytes());
    check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    prefix_chain(call, c, sendbuf, recvbuf, r, true);
  });
}

int VPMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm) {
  constexpr const char* call = "MPI_Exscan";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = collective_comm(call, label, comm);
    const Reduction r = reduction_of(call, objects, count, datatype, op);
    check_buffer(call, recvbuf, r.count, r.type, "recvbuf");
    InPlace in_place(call, sendbuf, "send", false, true);
    sendbuf = in_place.send(sendbuf, recvbuf, 0, r.bytes());
    check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    prefix_chain(call, c, sendbuf, recvbuf, r, false);
  });
}

int VPMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Gather";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = collective_comm(call, label, comm);
    check_peer(c.group.size(), call, "root", root, false, false);
    const bool at_root = c.rank == root;
    InPlace in_place(call, sendbuf, "send", true, at_root);
    // The receive arguments count at the root only.
    const std::size_t bytes =
        block_bytes(call, sendcount, sendtype, recvcount, recvtype, !in_place, at_root);
    if (at_root)
      check_bytes(call, recvbuf, bytes * static_cast<std::size_t>(c.group.size()), "recvbuf");
    sendbuf = in_place.send(sendbuf, recvbuf, static_cast<std::size_t>(root) * bytes, bytes);
    check_bytes(call, sendbuf, bytes, "sendbuf");
    vp::group::gather(c.members(), sendbuf, bytes, recvbuf, root, call);
  });
}

int VPMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm) {
  constexpr const char* call = "MPI_Gatherv";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = collective_comm(call, label, comm);
    const int n = c.group.size();
    check_peer(n, call, "root", root, false, false);
    const bool at_root = c.rank == root;
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (in_place && !at_root) fail(call, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's only");
    const vp::Collective gather(c.members(), call);
    if (!at_root) {
      const Buffer s =
          buffer_of(call, sendbuf, sendcount, sendtype,
                    {.buffer = "sendbuf", .count = "sendcount", .datatype = "sendtype"});
      gather.put(sendbuf, bytes_of(s.count, s.type), root);
      return;
    }
    const Datatype& rtype = datatype_of(call, recvtype, "recvtype");
    check_counts(call, recvcounts, n, "recvcounts");
    check_out(call, displs, "displs");
    auto* out = static_cast<std::byte*>(recvbuf);
    for (int i = 0; i < n; ++i) {
      const std::size_t bytes = bytes_of(static_cast<std::size_t>(recvcounts[i]), rtype);
      if (bytes > 0) check_bytes(call, recvbuf, bytes, "recvbuf");
      if (i == root) {
        if (in_place) continue;
        const Buffer s =
            buffer_of(call, sendbuf, sendcount, sendtype,
                      {.buffer = "sendbuf", .count = "sendcount", .datatype = "sendtype"});
        const std::size_t own = bytes_of(s.count, s.type);
        if (own != bytes) {
          fail(call, MPI_ERR_TRUNCATE,
               "the root's sendcount is " + std::to_string(own) + " bytes, recvcounts[root] " +
                   std::to_string(bytes));
        }
        if (own > 0) std::memmove(out + at(displs, i, rtype), sendbuf, own);
        continue;
      }
      const std::size_t got = gather.get(out + at(displs, i, rtype), bytes, i);
      if (got != bytes) {
        fail(call, MPI_ERR_TRUNCATE,
             "rank " + std::to_string(i) + " sent " + std::to_string(got) + " bytes, recvcounts[" +
                 std::to_string(i) + "] is " + std::to_string(bytes));
      }
    }
  });
}

int VPMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Scatter";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = collective_comm(call, label, comm);
    check_peer(c.group.size(), call, "root", root, false, false);
    const bool at_root = c.rank == root;
    InPlace in_place(call, recvbuf, "receive", true, at_root);
    // The send arguments count at the root only.
    const std::size_t bytes =
        block_bytes(call, sendcount, sendtype, recvcount, recvtype, at_root, !in_place);
    if (at_root)
      check_bytes(call, sendbuf, bytes * static_cast<std::size_t>(c.group.size()), "sendbuf");
    recvbuf = in_place.receive(recvbuf, bytes);
    check_bytes(call, recvbuf, bytes, "recvbuf");
    vp::group::scatter(c.members(), sendbuf, bytes, recvbuf, root, call);
  });
}

int VPMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Scatterv";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = collective_comm(call, label, comm);
    const int n = c.group.size();
    check_peer(n, call, "root", root, false, false);
    const bool at_root = c.rank == root;
    const bool in_place = recvbuf == MPI_IN_PLACE;
    if (in_place && !at_root) fail(call, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's only");
    const vp::Collective scatter(c.members(), call);
    if (!at_root) {
      const Buffer r =
          buffer_of(call, recvbuf, recvcount, recvtype,
                    {.buffer = "recvbuf", .count = "recvcount", .datatype = "recvtype"});
      const std::size_t got = scatter.get(recvbuf, bytes_of(r.count, r.type), root);
      static_cast<void>(got);
      return;
    }
    const Datatype& stype = datatype_of(call, sendtype, "sendtype");
    check_counts(call, sendcounts, n, "sendcounts");
    check_out(call, displs, "displs");
    const auto* from = static_cast<const std::byte*>(sendbuf);
    for (int i = 0; i < n; ++i) {
      const std::size_t bytes = bytes_of(static_cast<std::size_t>(sendcounts[i]), stype);
      if (bytes > 0) check_bytes(call, sendbuf, bytes, "sendbuf");
      if (i == root) {
        if (in_place) continue;
        const Buffer r =
            buffer_of(call, recvbuf, recvcount, recvtype,
                      {.buffer = "recvbuf", .count = "recvcount", .datatype = "recvtype"});
        if (bytes_of(r.count, r.type) < bytes) {
          fail(call, MPI_ERR_TRUNCATE,
               "sendcounts[root] is " + std::to_string(bytes) + " bytes, the root's recvcount " +
                   std::to_string(bytes_of(r.count, r.type)));
        }
        if (bytes > 0) std::memmove(recvbuf, from + at(displs, i, stype), bytes);
        continue;
      }
      scatter.put(from + at(displs, i, stype), bytes, i);
    }
  });
}

int VPMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return exchange("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                  false, vp::group::allgather);
}

int VPMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm) {
  constexpr const char* call = "MPI_Allgatherv";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = collective_comm(call, label, comm);
    const int n = c.group.size();
    const Datatype& rtype = datatype_of(call, recvtype, "recvtype");
    const std::size_t total = check_counts(call, recvcounts, n, "recvcounts");
    check_out(call, displs, "displs");
    auto* out = static_cast<std::byte*>(recvbuf);
    // Every block gathered at member 0, packed in rank order, broadcast, then put in place
    // (the gaps between blocks are not written).
    const std::size_t own = bytes_of(static_cast<std::size_t>(recvcounts[c.rank]), rtype);
    const void* mine = sendbuf == MPI_IN_PLACE ? out + at(displs, c.rank, rtype) : sendbuf;
    if (sendbuf != MPI_IN_PLACE) {
      const Buffer s =
          buffer_of(call, sendbuf, sendcount, sendtype,
                    {.buffer = "sendbuf", .count = "sendcount", .datatype = "sendtype"});
      if (bytes_of(s.count, s.type) != own) {
        fail(call, MPI_ERR_TRUNCATE,
             "sendcount is " + std::to_string(bytes_of(s.count, s.type)) + " bytes, recvcounts[" +
                 std::to_string(c.rank) + "] " + std::to_string(own));
      }
    }
    const vp::Members members = c.members();
    std::vector<std::byte> packed(bytes_of(total, rtype));
    const vp::Collective gather(members, call);
    if (c.rank != 0) {
      gather.put(mine, own, 0);
    } else {
      std::size_t offset = 0;
      for (int i = 0; i < n; ++i) {
        const std::size_t bytes = bytes_of(static_cast<std::size_t>(recvcounts[i]), rtype);
        if (i == 0) {
          if (bytes > 0) std::memcpy(packed.data(), mine, bytes);
        } else {
          gather.get(packed.data() + offset, bytes, i);
        }
        offset += bytes;
      }
    }
    vp::group::bcast(members, packed.data(), packed.size(), 0, call);
    std::size_t offset = 0;
    for (int i = 0; i < n; ++i) {
      const std::size_t bytes = bytes_of(static_cast<std::size_t>(recvcounts[i]), rtype);
      if (bytes > 0) std::memmove(out + at(displs, i, rtype), packed.data() + offset, bytes);
      offset += bytes;
    }
  });
}

int VPMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return exchange("MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                  true, vp::group::alltoall);
}

namespace {

// MPI_Alltoallv and MPI_Alltoallw: block i of the send buffer (bytes at an offset) goes to
// member i, block j of the receive buffer comes from member j.
struct Block {
  std::size_t offset;
  std::size_t bytes;
};

void all_to_all(const char* call, Communicator& c, const void* sendbuf,
                const std::vector<Block>& sends, void* recvbuf,
                const std::vector<Block>& receives) {
  const vp::Members members = c.members();
  const vp::Collective exchange(members, call);
  const int n = members.size;
  const int me = members.index;
  const auto* from = static_cast<const std::byte*>(sendbuf);
  auto* to = static_cast<std::byte*>(recvbuf);
  for (int d = 1; d < n; ++d) {
    const int dest = (me + d) % n;
    const Block& b = sends[static_cast<std::size_t>(dest)];
    exchange.put(from + b.offset, b.bytes, dest);
  }
  const Block& own = sends[static_cast<std::size_t>(me)];
  const Block& into = receives[static_cast<std::size_t>(me)];
  if (own.bytes > into.bytes) {
    fail(call, MPI_ERR_TRUNCATE, "the block to itself is longer than its receive block");
  }
  if (own.bytes > 0) std::memmove(to + into.offset, from + own.offset, own.bytes);
  for (int d = 1; d < n; ++d) {
    const int source = (me - d + n) % n;
    const Block& b = receives[static_cast<std::size_t>(source)];
    exchange.get(to + b.offset, b.bytes, source);
  }
}

}  // namespace

int VPMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr const char* call = "MPI_Alltoallv";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = collective_comm(call, label, comm);
    const int n = c.group.size();
    const Datatype& rtype = datatype_of(call, recvtype, "recvtype");
    check_counts(call, recvcounts, n, "recvcounts");
    check_out(call, rdispls, "rdispls");
    std::vector<Block> receives;
    for (int i = 0; i < n; ++i)
      receives.push_back(
          {at(rdispls, i, rtype), bytes_of(static_cast<std::size_t>(recvcounts[i]), rtype)});
    std::vector<std::byte> copy;
    std::vector<Block> sends;
    if (sendbuf == MPI_IN_PLACE) {
      // In place: each rank sends what its receive buffer holds, with the receive layout.
      std::size_t end = 0;
      for (const Block& b : receives) end = std::max(end, b.offset + b.bytes);
      copy.assign(static_cast<const std::byte*>(recvbuf),
                  static_cast<const std::byte*>(recvbuf) + end);
      sendbuf = copy.data();
      sends = receives;
    } else {
      const Datatype& stype = datatype_of(call, sendtype, "sendtype");
      check_counts(call, sendcounts, n, "sendcounts");
      check_out(call, sdispls, "sdispls");
      for (int i = 0; i < n; ++i)
        sends.push_back(
            {at(sdispls, i, stype), bytes_of(static_cast<std::size_t>(sendcounts[i]), stype)});
    }
    all_to_all(call, c, sendbuf, sends, recvbuf, receives);
  });
}

int VPMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  constexpr const char* call = "MPI_Alltoallw";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = collective_comm(call, label, comm);
    const int n = c.group.size();
    check_counts(call, recvcounts, n, "recvcounts");
    check_out(call, rdispls, "rdispls");
    check_out(call, recvtypes, "recvtypes");
    std::vector<Block> receives;
    for (int i = 0; i < n; ++i) {
      const Datatype& t = datatype_of(call, recvtypes[i], "recvtypes[i]");
      receives.push_back({static_cast<std::size_t>(rdispls[i]),
                          bytes_of(static_cast<std::size_t>(recvcounts[i]), t)});
    }
    std::vector<std::byte> copy;
    std::vector<Block> sends;
    if (sendbuf == MPI_IN_PLACE) {
      std::size_t end = 0;
      for (const Block& b : receives) end = std::max(end, b.offset + b.bytes);
      copy.assign(static_cast<const std::byte*>(recvbuf),
                  static_cast<const std::byte*>(recvbuf) + end);
      sendbuf = copy.data();
      sends = receives;
    } else {
      check_counts(call, sendcounts, n, "sendcounts");
      check_out(call, sdispls, "sdispls");
      check_out(call, sendtypes, "sendtypes");
      for (int i = 0; i < n; ++i) {
        const Datatype& t = datatype_of(call, sendtypes[i], "sendtypes[i]");
        sends.push_back({static_cast<std::size_t>(sdispls[i]),
                         bytes_of(static_cast<std::size_t>(sendcounts[i]), t)});
      }
    }
    all_to_all(call, c, sendbuf, sends, recvbuf, receives);
  });
}

}  // extern "C"

// The MPI names, weak aliases of the profiling names (a tool's own MPI_x takes their place).
VMPI_PROFILED(Barrier);
VMPI_PROFILED(Bcast);
VMPI_PROFILED(Reduce);
VMPI_PROFILED(Allreduce);
VMPI_PROFILED(Reduce_local);
VMPI_PROFILED(Reduce_scatter_block);
VMPI_PROFILED(Reduce_scatter);
VMPI_PROFILED(Scan);
VMPI_PROFILED(Exscan);
VMPI_PROFILED(Gather);
VMPI_PROFILED(Gatherv);
VMPI_PROFILED(Scatter);
VMPI_PROFILED(Scatterv);
VMPI_PROFILED(Allgather);
VMPI_PROFILED(Allgatherv);
VMPI_PROFILED(Alltoall);
VMPI_PROFILED(Alltoallv);
VMPI_PROFILED(Alltoallw);
