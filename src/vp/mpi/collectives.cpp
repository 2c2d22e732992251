// MPI's collective communication, and the reduction operators it combines with. vp's
// collectives read and write distinct buffers: a buffer given as MPI_IN_PLACE is made into one
// of them here (InPlace). The gather-like calls move each rank's block as bytes, so that the
// send and receive datatypes need only agree on their size.
#include "internal.hpp"

#include <cstring>

namespace vela::mpi::detail {
namespace {

struct Operator {
  const char* name;
  vp::Op op;
};

// In the order of the indices vela/mpi.h gives the operators.
constexpr Operator operators[VMPI_OP_COUNT] = {
    {"MPI_MAX", vp::Op::max},       {"MPI_MIN", vp::Op::min},   {"MPI_SUM", vp::Op::sum},
    {"MPI_PROD", vp::Op::prod},     {"MPI_LAND", vp::Op::land}, {"MPI_LOR", vp::Op::lor},
    {"MPI_BAND", vp::Op::band},     {"MPI_BOR", vp::Op::bor},   {"MPI_MAXLOC", vp::Op::maxloc},
    {"MPI_MINLOC", vp::Op::minloc},
};

const Operator& operator_of(const char* call, MPI_Op op) {
  const auto value = reinterpret_cast<std::uintptr_t>(op);
  if (value < VMPI_OP_BASE || value >= VMPI_OP_BASE + VMPI_OP_COUNT) {
    fail(call, "op " + (op == MPI_OP_NULL ? std::string("MPI_OP_NULL") : handle_text(op)) +
                   " is not one of vela/mpi.h's operators");
  }
  return operators[value - VMPI_OP_BASE];
}

bool is_pair(vp::Type type) {
  return type == vp::Type::pair_f64_i32 || type == vp::Type::pair_i32_i32;
}

// A reduction's arguments, checked: the datatype, the operator, their pairing, the count.
struct Reduction {
  const Datatype& type;
  vp::Op op;
  vp::Type element;  // what vp combines: MPI_BYTE is reduced as unsigned bytes
  std::size_t count;
};

Reduction reduction_of(const char* call, int count, MPI_Datatype datatype, MPI_Op op) {
  const Datatype& type = datatype_of(call, datatype);
  const Operator& o = operator_of(call, op);
  const bool located = o.op == vp::Op::maxloc || o.op == vp::Op::minloc;
  if (located && !is_pair(type.type)) {
    fail(call, std::string(o.name) + " of " + type.name +
                   ": it needs a {value, index} datatype (MPI_DOUBLE_INT or MPI_2INT)");
  }
  if (!located && is_pair(type.type)) {
    fail(call, std::string(o.name) + " of " + type.name +
                   ": a {value, index} datatype takes MPI_MAXLOC or MPI_MINLOC");
  }
  const bool floating =
      type.type == vp::Type::f32 || type.type == vp::Type::f64 || type.type == vp::Type::f128;
  if ((o.op == vp::Op::band || o.op == vp::Op::bor) && floating) {
    fail(call,
         std::string(o.name) + " of " + type.name + ": bitwise operators need an integer datatype");
  }
  const vp::Type element = type.type == vp::Type::bytes ? vp::Type::u8 : type.type;
  return {type, o.op, element, count_of(call, count)};
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
      fail(call, std::string("MPI_IN_PLACE is the ") + side + " buffer of the root only");
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
    fail(call, "recvcount " + std::to_string(recvcount) + " of " + rtype->name + " (" +
                   std::to_string(receive_bytes) + " bytes) does not match sendcount " +
                   std::to_string(sendcount) + " of " + stype->name + " (" +
                   std::to_string(send_bytes) + " bytes)");
  }
  return send_side ? send_bytes : receive_bytes;
}

void check_bytes(const char* call, const void* buffer, std::size_t bytes, const char* what) {
  if (buffer == MPI_IN_PLACE) fail(call, std::string(what) + " cannot be MPI_IN_PLACE here");
  if (bytes > 0 && buffer == nullptr) {
    fail(call, std::string(what) + " is NULL for " + std::to_string(bytes) + " bytes");
  }
}

// MPI_Allgather and MPI_Alltoall: every rank receives a block from each rank, and sends its
// own block to all (`all_blocks` false) or a block to each (true). In place, what it sends is
// a copy of its own block of the receive buffer, or of all of it.
int exchange(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, bool all_blocks,
             void (*collective)(const void*, std::size_t, vp::Type, void*)) {
  return guarded(call, [&](const Label& label) {
    active(call, label, comm);
    InPlace in_place(call, sendbuf, "send", false, true);
    const std::size_t bytes =
        block_bytes(call, sendcount, sendtype, recvcount, recvtype, !in_place, true);
    const std::size_t all = bytes * static_cast<std::size_t>(label.size());
    check_bytes(call, recvbuf, all, "recvbuf");
    sendbuf = all_blocks
                  ? in_place.send(sendbuf, recvbuf, 0, all)
                  : in_place.send(sendbuf, recvbuf, static_cast<std::size_t>(me()) * bytes, bytes);
    check_bytes(call, sendbuf, all_blocks ? all : bytes, "sendbuf");
    collective(sendbuf, bytes, vp::Type::bytes, recvbuf);
  });
}

}  // namespace
}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VMPI_Barrier(MPI_Comm comm) {
  constexpr const char* call = "MPI_Barrier";
  return guarded(call, [&](const Label& label) {
    active(call, label, comm);
    vp::barrier();
  });
}

int VMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Bcast";
  return guarded(call, [&](const Label& label) {
    active(call, label, comm);
    const Buffer b = buffer_of(call, buffer, count, datatype, {.buffer = "buffer"});
    check_peer(label, call, "root", root, false, false);
    vp::bcast(buffer, b.count, b.type.type, root);
  });
}

int VMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Reduce";
  return guarded(call, [&](const Label& label) {
    active(call, label, comm);
    const Reduction r = reduction_of(call, count, datatype, op);
    check_peer(label, call, "root", root, false, false);
    const bool at_root = me() == root;
    InPlace in_place(call, sendbuf, "send", true, at_root);
    if (in_place) check_buffer(call, recvbuf, r.count, r.type, "recvbuf");
    sendbuf = in_place.send(sendbuf, recvbuf, 0, bytes_of(r.count, r.type));
    check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    if (at_root) check_buffer(call, recvbuf, r.count, r.type, "recvbuf");
    vp::reduce(sendbuf, recvbuf, r.count, r.element, r.op, root);
  });
}

int VMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm) {
  constexpr const char* call = "MPI_Allreduce";
  return guarded(call, [&](const Label& label) {
    active(call, label, comm);
    const Reduction r = reduction_of(call, count, datatype, op);
    check_buffer(call, recvbuf, r.count, r.type, "recvbuf");
    InPlace in_place(call, sendbuf, "send", false, true);
    sendbuf = in_place.send(sendbuf, recvbuf, 0, bytes_of(r.count, r.type));
    check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    vp::allreduce(sendbuf, recvbuf, r.count, r.element, r.op);
  });
}

int VMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Gather";
  return guarded(call, [&](const Label& label) {
    active(call, label, comm);
    check_peer(label, call, "root", root, false, false);
    const bool at_root = me() == root;
    InPlace in_place(call, sendbuf, "send", true, at_root);
    // The receive arguments count at the root only.
    const std::size_t bytes =
        block_bytes(call, sendcount, sendtype, recvcount, recvtype, !in_place, at_root);
    if (at_root)
      check_bytes(call, recvbuf, bytes * static_cast<std::size_t>(label.size()), "recvbuf");
    sendbuf = in_place.send(sendbuf, recvbuf, static_cast<std::size_t>(root) * bytes, bytes);
    check_bytes(call, sendbuf, bytes, "sendbuf");
    vp::gather(sendbuf, bytes, vp::Type::bytes, recvbuf, root);
  });
}

int VMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return exchange("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                  false, vp::allgather);
}

int VMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Scatter";
  return guarded(call, [&](const Label& label) {
    active(call, label, comm);
    check_peer(label, call, "root", root, false, false);
    const bool at_root = me() == root;
    InPlace in_place(call, recvbuf, "receive", true, at_root);
    // The send arguments count at the root only.
    const std::size_t bytes =
        block_bytes(call, sendcount, sendtype, recvcount, recvtype, at_root, !in_place);
    if (at_root)
      check_bytes(call, sendbuf, bytes * static_cast<std::size_t>(label.size()), "sendbuf");
    recvbuf = in_place.receive(recvbuf, bytes);
    check_bytes(call, recvbuf, bytes, "recvbuf");
    vp::scatter(sendbuf, bytes, vp::Type::bytes, recvbuf, root);
  });
}

int VMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return exchange("MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                  true, vp::alltoall);
}

}  // extern "C"
