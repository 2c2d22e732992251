// MPI's collective communication (the standard's chapter 5) on any intracommunicator (and the
// blocking ones on intercommunicators, below): vp's
// collectives over the communicator's members (vp::Members: its group and context), with the
// reduction operators of operators.cpp.
//
// Data: vp moves runs of bytes. A buffer of a predefined or contiguous datatype is used where it
// lies; any other is packed into a run (Outgoing) or received into one and unpacked (Incoming),
// one pass over its type map. vp's collectives read and write distinct buffers, so a send
// buffer given as MPI_IN_PLACE is sent from a packed copy of the receive buffer. The gather-like
// calls move each rank's block as bytes: the send and receive type signatures need only agree
// on their size. Reductions run on the elements of one basic type (a derived type must have a
// single one), combining along one tree fixed by the communicator's size, the lower ranks the
// left operand (the same bits for any placement, and for MPI_Reduce, MPI_Allreduce and
// MPI_Reduce_scatter alike); MPI_Scan and MPI_Exscan pass a prefix along the ranks (n - 1
// steps); MPI_Reduce_scatter reduces at rank 0 and scatters, or by blocks when large.
#include <cstring>
#include <numeric>

#include "derived_types.hpp"
#include "internal.hpp"
#include "operators.hpp"

namespace vela::mpi::detail {

Communicator& collective_comm(const char* call, const Label& label, MPI_Comm comm) {
  Communicator& c = active(call, label, comm);
  if (c.inter) {
    fail(call, MPI_ERR_COMM,
         "this call is not defined on an intercommunicator (MPI_Scan, MPI_Exscan, their "
         "nonblocking forms and the windows' constructors need an intracommunicator: merge it "
         "with MPI_Intercomm_merge)");
  }
  return c;
}

void no_in_place(const char* call, const void* buffer) {
  if (buffer == MPI_IN_PLACE) {
    fail(call, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed on an intercommunicator");
  }
}

RootSide root_side(const char* call, const Communicator& c, int root) {
  if (root == MPI_ROOT) return RootSide::root;
  if (root == MPI_PROC_NULL) return RootSide::idle;
  check_peer(c.remote.size(), call, "root", root, false, false);
  return RootSide::other;
}

namespace {

// `count` elements of `type` at `buffer` as a run of bytes: in place, or packed (always copied
// when `copy`: the caller will write the buffer while the run is read).
class Outgoing {
 public:
  Outgoing(const void* buffer, std::size_t count, const Datatype& type, bool copy = false)
      : bytes_(count * type.size) {
    if (copy && type.contiguous) {
      const auto* from = static_cast<const std::byte*>(gathered(buffer, count, type, scratch_));
      scratch_.assign(from, from + bytes_);
      data_ = scratch_.data();
    } else {
      data_ = gathered(buffer, count, type, scratch_);
    }
  }
  const void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  std::vector<std::byte> scratch_;
  const void* data_ = nullptr;
  std::size_t bytes_;
};

// Where `count` elements of `type` for `buffer` arrive as bytes; done() puts them in place.
class Incoming {
 public:
  Incoming(void* buffer, std::size_t count, const Datatype& type)
      : buffer_(buffer), count_(count), type_(type), bytes_(count * type.size) {
    data_ = receiving(buffer, count, type, scratch_);
  }
  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  void done() { scattered(scratch_, bytes_, buffer_, count_, type_); }

 private:
  void* buffer_;
  std::size_t count_;
  const Datatype& type_;
  std::size_t bytes_;
  std::vector<std::byte> scratch_;
  void* data_ = nullptr;
};

void check_bytes(const char* call, const void* buffer, std::size_t bytes, const Datatype& type,
                 const char* what) {
  if (buffer == MPI_IN_PLACE)
    fail(call, MPI_ERR_BUFFER, std::string(what) + " cannot be MPI_IN_PLACE here");
  if (bytes > 0 && buffer == nullptr && type.map == nullptr) {
    fail(call, MPI_ERR_BUFFER,
         std::string(what) + " is NULL for " + std::to_string(bytes) + " bytes");
  }
}

// One side of a block of a gather-like call: `count` elements of `type`, checked.
struct Side {
  const Datatype* type = nullptr;
  std::size_t count = 0;
  std::size_t bytes() const { return type == nullptr ? 0 : count * type->size; }
};

Side side_of(const char* call, int count, MPI_Datatype datatype, const char* count_name,
             const char* type_name) {
  const Datatype& t = datatype_of(call, datatype, type_name);
  return {&t, count_of(call, count, count_name)};
}

// The send and receive sides of a block must hold the same number of bytes where both count.
void check_match(const char* call, const Side& send, const Side& receive) {
  if (send.type == nullptr || receive.type == nullptr || send.bytes() == receive.bytes()) return;
  fail(call, MPI_ERR_TRUNCATE,
       "recvcount " + std::to_string(receive.count) + " of " + receive.type->name + " (" +
           std::to_string(receive.bytes()) + " bytes) does not match sendcount " +
           std::to_string(send.count) + " of " + send.type->name + " (" +
           std::to_string(send.bytes()) + " bytes)");
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

// Block i of a v-collective: displs[i] extents of `type` into `base`.
template <class T>
T* block_at(T* base, const int* displs, int i, const Datatype& type) {
  const auto offset =
      static_cast<std::intptr_t>(displs[i]) * static_cast<std::intptr_t>(type.extent);
  return reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(base) +
                              static_cast<std::uintptr_t>(offset));
}

// Element `index` of a buffer of `type` (blocks of a gather are consecutive elements).
template <class T>
T* element_at(T* base, std::size_t index, const Datatype& type) {
  const auto offset = static_cast<std::intptr_t>(index) * static_cast<std::intptr_t>(type.extent);
  return reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(base) +
                              static_cast<std::uintptr_t>(offset));
}

// Passes a running reduction along the members: member i receives the combination of members
// 0..i-1 (`prefix`; empty at member 0), and sends on that combined with its own values. What
// MPI_Scan (inclusive: the result is prefix op own) and MPI_Exscan (the prefix) share.
void prefix_chain(const char* call, Communicator& c, const void* own, void* result,
                  const Reduction& r, bool inclusive) {
  const vp::Members members = c.members();
  const vp::Collective chain(members, call);
  const std::size_t bytes = r.bytes();
  std::vector<std::byte> running(bytes);
  if (bytes > 0) std::memcpy(running.data(), own, bytes);
  if (members.index > 0) {
    std::vector<std::byte> prefix(bytes);
    chain.get(prefix.data(), bytes, members.index - 1);
    if (!inclusive && bytes > 0) std::memcpy(result, prefix.data(), bytes);
    // running = prefix op own (prefix holds the lower ranks)
    if (r.elements > 0)
      r.operation.function(prefix.data(), running.data(), r.elements, &r.operation);
  }
  if (inclusive && bytes > 0) std::memcpy(result, running.data(), bytes);
  if (members.index + 1 < members.size) chain.put(running.data(), bytes, members.index + 1);
}

// MPI_Scan and MPI_Exscan.
int scan(const char* call, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
         MPI_Op op, MPI_Comm comm, bool inclusive) {
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = collective_comm(call, label, comm);
    const Reduction r = reduction_of(call, objects, count, datatype, op);
    check_buffer(call, recvbuf, r.count, r.type, "recvbuf");
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place) check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    const Outgoing in(in_place ? recvbuf : sendbuf, r.count, r.type, in_place);
    Incoming out(recvbuf, r.count, r.type);
    prefix_chain(call, c, in.data(), out.data(), r, inclusive);
    // Exscan leaves rank 0's receive buffer as it was.
    if (inclusive || c.rank != 0) out.done();
  });
}

// On intercommunicators (below).
void inter_blocks(const char* call, Communicator& c, const void* sendbuf, const Side& send,
                  void* recvbuf, const Side& receive, bool all_blocks);

// MPI_Allgather and MPI_Alltoall: every rank receives a block from each rank, and sends its
// own block to all (`all_blocks` false) or a block to each (true). In place, what it sends is
// a copy of its own block of the receive buffer, or of all of it.
int exchange(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, bool all_blocks,
             void (*collective)(const vp::Members&, const void*, std::size_t, void*, const char*)) {
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    const auto n = static_cast<std::size_t>(c.group.size());
    const Side receive = side_of(call, recvcount, recvtype, "recvcount", "recvtype");
    if (c.inter) {
      no_in_place(call, sendbuf);
      const Side send = side_of(call, sendcount, sendtype, "sendcount", "sendtype");
      check_match(call, send, receive);
      inter_blocks(call, c, sendbuf, send, recvbuf, receive, all_blocks);
      return;
    }
    check_bytes(call, recvbuf, receive.bytes() * n, *receive.type, "recvbuf");
    const bool in_place = sendbuf == MPI_IN_PLACE;
    Side send = receive;
    if (!in_place) {
      send = side_of(call, sendcount, sendtype, "sendcount", "sendtype");
      check_match(call, send, receive);
      check_bytes(call, sendbuf, send.bytes() * (all_blocks ? n : 1), *send.type, "sendbuf");
    }
    // In place: the own block (allgather) or every block (alltoall) of the receive buffer.
    const void* source =
        in_place
            ? (all_blocks ? recvbuf
                          : element_at(recvbuf, receive.count * static_cast<std::size_t>(c.rank),
                                       *receive.type))
            : sendbuf;
    const Outgoing in(source, send.count * (all_blocks ? n : 1), *send.type, in_place);
    Incoming out(recvbuf, receive.count * n, *receive.type);
    collective(c.members(), in.data(), receive.bytes(), out.data(), call);
    out.done();
  });
}

// MPI_Reduce_scatter and MPI_Reduce_scatter_block on an intracommunicator: block i (counts[i]
// elements of r.type) of the reduction to member i (vp::group::reduce_scatter).
void reduce_scatter(const char* call, Communicator& c, const void* sendbuf, void* recvbuf,
                    const Reduction& r, const std::vector<int>& counts) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const Outgoing in(in_place ? recvbuf : sendbuf, r.count, r.type, in_place);
  const std::size_t per = r.count == 0 ? 0 : r.bytes() / r.count / r.element.size;
  std::vector<std::size_t> elements(counts.size());  // of r.element
  for (std::size_t i = 0; i < counts.size(); ++i)
    elements[i] = static_cast<std::size_t>(counts[i]) * per;
  Incoming out(recvbuf, static_cast<std::size_t>(counts[static_cast<std::size_t>(c.rank)]), r.type);
  vp::group::reduce_scatter(c.members(), in.data(), out.data(), elements, r.element.size,
                            r.operation.combine(), call);
  out.done();
}

// An intercommunicator's reduce-scatter: member 0's `whole` (elements of r.type, packed) scattered
// by `counts`: block i to member i.
void scatter_from_first(const char* call, Communicator& c, const std::vector<std::byte>& whole,
                        void* recvbuf, const Reduction& r, const std::vector<int>& counts) {
  const vp::Members members = c.members();
  const vp::Collective scatter(members, call);
  const std::size_t per = r.count == 0 ? 0 : r.bytes() / r.count;  // bytes per element of type
  Incoming out(recvbuf, static_cast<std::size_t>(counts[static_cast<std::size_t>(c.rank)]), r.type);
  if (c.rank != 0) {
    scatter.get(out.data(), out.bytes(), 0);
    out.done();
    return;
  }
  std::size_t offset = 0;
  for (int i = 0; i < members.size; ++i) {
    const std::size_t bytes = static_cast<std::size_t>(counts[static_cast<std::size_t>(i)]) * per;
    if (i == 0) {
      if (bytes > 0) std::memmove(out.data(), whole.data(), bytes);  // its own block
    } else {
      scatter.put(whole.data() + offset, bytes, i);
    }
    offset += bytes;
  }
  out.done();
}

// MPI_Alltoallv and MPI_Alltoallw: block i of the send side goes to member i, block j of the
// receive side comes from member j; each block is `count` elements of its type at its address.
struct Block {
  const void* address;
  std::size_t count;
  const Datatype* type;
};

void all_to_all(const char* call, Communicator& c, const std::vector<Block>& sends,
                const std::vector<Block>& receives) {
  const vp::Members members = c.members();
  const vp::Collective exchange(members, call);
  const int n = members.size;
  const int me = members.index;
  // Every receive posted before the first send and the sends all under way at once (as vp's
  // alltoall): each block lands in its place, or in its unpacking buffer, with no buffer of its
  // own in between, and receivers copy large blocks in parallel.
  std::vector<Incoming> arriving;
  std::vector<vp::Request> posted;
  arriving.reserve(static_cast<std::size_t>(n));
  for (int d = 1; d < n; ++d) {
    const int source = (me - d + n) % n;
    const Block& b = receives[static_cast<std::size_t>(source)];
    arriving.emplace_back(const_cast<void*>(b.address), b.count, *b.type);
    posted.push_back(exchange.post(arriving.back().data(), arriving.back().bytes(), source));
  }
  std::vector<Outgoing> leaving;
  std::vector<vp::Collective::Piece> pieces;
  leaving.reserve(static_cast<std::size_t>(n));
  for (int d = 1; d < n; ++d) {
    const int dest = (me + d) % n;
    const Block& b = sends[static_cast<std::size_t>(dest)];
    leaving.emplace_back(b.address, b.count, *b.type);
    pieces.push_back({leaving.back().data(), leaving.back().bytes(), dest});
  }
  exchange.put_each(pieces);
  const Block& own = sends[static_cast<std::size_t>(me)];
  const Block& into = receives[static_cast<std::size_t>(me)];
  const Outgoing mine(own.address, own.count, *own.type);
  Incoming here(const_cast<void*>(into.address), into.count, *into.type);
  if (mine.bytes() > here.bytes()) {
    fail(call, MPI_ERR_TRUNCATE, "the block to itself is longer than its receive block");
  }
  if (mine.bytes() > 0) std::memmove(here.data(), mine.data(), mine.bytes());
  here.done();
  for (std::size_t i = 0; i < posted.size(); ++i) {
    vp::wait(posted[i]);
    arriving[i].done();
  }
}

// MPI_BYTE's record: what a run of packed bytes is.
const Datatype& bytes_type() {
  return datatypes[reinterpret_cast<std::uintptr_t>(MPI_BYTE) - VMPI_DATATYPE_BASE];
}

// In place, the send blocks are packed copies of the receive blocks (sent from a snapshot, since
// the receive buffer is written meanwhile).
std::vector<Block> snapshot(const std::vector<Block>& receives,
                            std::vector<std::vector<std::byte>>& copies,
                            const Datatype& bytes_type) {
  std::vector<Block> sends;
  for (const Block& b : receives) {
    const Outgoing packed(b.address, b.count, *b.type, true);
    const auto* from = static_cast<const std::byte*>(packed.data());
    copies.emplace_back(from, from + packed.bytes());
    sends.push_back({copies.back().data(), packed.bytes(), &bytes_type});
  }
  return sends;
}

// ---- intercommunicators (the standard's §5.2.2) ----
// Each group does its part over its own members (c.members()); the two leaders (rank 0 of each
// group), or a root and the other group's leader, exchange the data on the communicator's
// context above 2^31 (apart from the program's messages on it), tag 0, in the order of the
// calls (messages between two ranks on one context and tag do not overtake each other).

// The leaders swap `bytes` bytes (mine out, theirs in).
void leaders_swap(Communicator& c, const void* mine, void* theirs, std::size_t bytes) {
  const int other = c.remote.rank_of(0);
  vp::sendrecv(mine, bytes, vp::Type::bytes, other, 0, theirs, bytes, vp::Type::bytes, other, 0,
               inter_context(c));
}

void inter_barrier(Communicator& c, const char* call) {
  vp::group::barrier(c.members(), call);
  if (c.rank == 0) leaders_swap(c, nullptr, nullptr, 0);
  vp::group::barrier(c.members(), call);  // no member leaves before the other group came
}

// root: MPI_ROOT at the root, MPI_PROC_NULL in the rest of its group, the root's rank in the
// other group.
void inter_bcast(Communicator& c, void* buffer, const Buffer& b, int root, const char* call) {
  if (root == MPI_PROC_NULL) return;
  if (root != MPI_ROOT) check_peer(c.remote.size(), call, "root", root, false, false);
  std::vector<std::byte> scratch;
  if (root == MPI_ROOT) {
    const void* data = gathered(buffer, b.count, b.type, scratch);
    vp::send(data, bytes_of(b.count, b.type), vp::Type::bytes, c.remote.rank_of(0), 0,
             inter_context(c));
    return;
  }
  Incoming in(buffer, b.count, b.type);
  if (c.rank == 0) {
    vp::recv(in.data(), in.bytes(), vp::Type::bytes, c.remote.rank_of(root), 0, inter_context(c));
  }
  vp::group::bcast(c.members(), in.data(), in.bytes(), 0, call);
  in.done();
}

// Each group's result is the other group's reduction.
void inter_allreduce(Communicator& c, const void* sendbuf, void* recvbuf, const Reduction& r,
                     const char* call) {
  no_in_place(call, sendbuf);
  check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
  const Outgoing in(sendbuf, r.count, r.type);
  Incoming out(recvbuf, r.count, r.type);
  std::vector<std::byte> ours(out.bytes());
  vp::group::allreduce(c.members(), in.data(), ours.data(), r.elements, r.element.size,
                       r.operation.combine(), call);
  if (c.rank == 0) leaders_swap(c, ours.data(), out.data(), out.bytes());
  vp::group::bcast(c.members(), out.data(), out.bytes(), 0, call);
  out.done();
}

// A rank of the other group and the block it sends or receives.
struct Peer {
  int rank;
  Block block;
};

// Sends each of `sends` to its rank of the other group and receives each of `receives` from
// its rank; the sends start first, so the members' order of calls cannot deadlock.
void inter_exchange(Communicator& c, const std::vector<Peer>& sends,
                    const std::vector<Peer>& receives) {
  const std::uint32_t context = inter_context(c);
  std::vector<std::vector<std::byte>> scratch(sends.size());
  std::vector<vp::Request> started;
  for (std::size_t i = 0; i < sends.size(); ++i) {
    const Block& b = sends[i].block;
    const void* data = gathered(b.address, b.count, *b.type, scratch[i]);
    started.push_back(vp::isend(data, bytes_of(b.count, *b.type), vp::Type::bytes,
                                c.remote.rank_of(sends[i].rank), 0, context));
  }
  for (const Peer& p : receives) {
    Incoming in(const_cast<void*>(p.block.address), p.block.count, *p.block.type);
    vp::recv(in.data(), in.bytes(), vp::Type::bytes, c.remote.rank_of(p.rank), 0, context);
    in.done();
  }
  for (vp::Request& r : started) vp::wait(r);
}

// Block i of `count` elements of `type` at `base`, for each rank i of the other group.
std::vector<Peer> each_remote(const Communicator& c, const void* base, std::size_t count,
                              const Datatype& type, bool same_block = false) {
  std::vector<Peer> peers;
  for (int i = 0; i < c.remote.size(); ++i) {
    const std::size_t at = same_block ? 0 : count * static_cast<std::size_t>(i);
    peers.push_back({i, {element_at(base, at, type), count, &type}});
  }
  return peers;
}

// Blocks by counts and displacements (in elements of `type`), for each rank of the other group.
std::vector<Peer> each_remote_v(const Communicator& c, const void* base, const int* counts,
                                const int* displs, const Datatype& type) {
  std::vector<Peer> peers;
  for (int i = 0; i < c.remote.size(); ++i) {
    peers.push_back(
        {i, {block_at(base, displs, i, type), static_cast<std::size_t>(counts[i]), &type}});
  }
  return peers;
}

// A rooted call on an intercommunicator (the gathers, `gathers`, and the scatters): the root
// moves one block per rank of the other group (`root_blocks()`, made there only); each rank of
// the other group its one block, `count` of `type` at `buffer`, to or from the root; the rest of
// the root's group nothing.
template <class RootBlocks>
void inter_rooted(const char* call, Communicator& c, int root, bool gathers, RootBlocks root_blocks,
                  const void* buffer, int count, MPI_Datatype type) {
  const RootSide side = root_side(call, c, root);
  if (side == RootSide::idle) return;
  if (side == RootSide::root) {
    const std::vector<Peer> blocks = root_blocks();
    gathers ? inter_exchange(c, {}, blocks) : inter_exchange(c, blocks, {});
    return;
  }
  no_in_place(call, buffer);
  const Side mine = gathers ? side_of(call, count, type, "sendcount", "sendtype")
                            : side_of(call, count, type, "recvcount", "recvtype");
  check_bytes(call, buffer, mine.bytes(), *mine.type, gathers ? "sendbuf" : "recvbuf");
  const std::vector<Peer> one{{root, {buffer, mine.count, mine.type}}};
  gathers ? inter_exchange(c, one, {}) : inter_exchange(c, {}, one);
}

// MPI_Allgather (every rank's block to every rank of the other group) and MPI_Alltoall.
void inter_blocks(const char* call, Communicator& c, const void* sendbuf, const Side& send,
                  void* recvbuf, const Side& receive, bool all_blocks) {
  no_in_place(call, sendbuf);
  const auto n = static_cast<std::size_t>(c.remote.size());
  check_bytes(call, recvbuf, receive.bytes() * n, *receive.type, "recvbuf");
  check_bytes(call, sendbuf, send.bytes() * (all_blocks ? n : 1), *send.type, "sendbuf");
  inter_exchange(c, each_remote(c, sendbuf, send.count, *send.type, !all_blocks),
                 each_remote(c, recvbuf, receive.count, *receive.type));
}

// MPI_Reduce: the other group's reduction at the root.
void inter_reduce(const char* call, Communicator& c, const void* sendbuf, void* recvbuf,
                  const Reduction& r, int root) {
  const RootSide side = root_side(call, c, root);
  if (side == RootSide::idle) return;
  if (side == RootSide::root) {
    check_buffer(call, recvbuf, r.count, r.type, "recvbuf");
    inter_exchange(c, {}, {{0, {recvbuf, r.count, &r.type}}});
    return;
  }
  no_in_place(call, sendbuf);
  check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
  const Outgoing in(sendbuf, r.count, r.type);
  std::vector<std::byte> whole(c.rank == 0 ? r.bytes() : 0);
  vp::group::reduce(c.members(), in.data(), whole.data(), r.elements, r.element.size,
                    r.operation.combine(), 0, call);
  if (c.rank == 0) {
    inter_exchange(c, {{root, {whole.data(), whole.size(), &bytes_type()}}}, {});
  }
}

// MPI_Reduce_scatter and its block form on an intercommunicator: each group's reduction (`r`:
// its send side) at its leader, the leaders swap them, and each scatters the other group's by
// `counts` (its own group's blocks; the standard has both groups reduce as many elements).
void inter_reduce_scatter(const char* call, Communicator& c, const void* sendbuf, void* recvbuf,
                          const Reduction& r, const std::vector<int>& counts) {
  no_in_place(call, sendbuf);
  check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
  const Outgoing in(sendbuf, r.count, r.type);
  std::vector<std::byte> ours(c.rank == 0 ? r.bytes() : 0);
  vp::group::reduce(c.members(), in.data(), ours.data(), r.elements, r.element.size,
                    r.operation.combine(), 0, call);
  const std::size_t per = r.count == 0 ? 0 : r.bytes() / r.count;
  const auto elements = static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), 0L));
  std::vector<std::byte> theirs(c.rank == 0 ? elements * per : 0);
  if (c.rank == 0) {
    inter_exchange(c, {{0, {ours.data(), ours.size(), &bytes_type()}}},
                   {{0, {theirs.data(), theirs.size(), &bytes_type()}}});
  }
  scatter_from_first(call, c, theirs, recvbuf, r, counts);
}

// MPI_Alltoallv and MPI_Alltoallw: block i to and from rank i of the group or, on an
// intercommunicator, of the other group.
void every_to_every(const char* call, Communicator& c, const std::vector<Block>& sends,
                    const std::vector<Block>& receives) {
  if (!c.inter) {
    all_to_all(call, c, sends, receives);
    return;
  }
  std::vector<Peer> to, from;
  for (std::size_t i = 0; i < sends.size(); ++i) to.push_back({static_cast<int>(i), sends[i]});
  for (std::size_t i = 0; i < receives.size(); ++i)
    from.push_back({static_cast<int>(i), receives[i]});
  inter_exchange(c, to, from);
}

}  // namespace
}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VPMPI_Barrier(MPI_Comm comm) {
  constexpr const char* call = "MPI_Barrier";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    if (c.inter) {
      inter_barrier(c, call);
      return;
    }
    vp::group::barrier(c.members(), call);
    after_world_collective(active(call, label), comm, vp::BalanceAt::barrier);
  });
}

int VPMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Bcast";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    const Buffer b = buffer_of(call, buffer, count, datatype, {.buffer = "buffer"});
    if (c.inter) {
      inter_bcast(c, buffer, b, root, call);
      return;
    }
    check_peer(c.group.size(), call, "root", root, false, false);
    if (b.type.contiguous) {
      Incoming in_place(buffer, b.count, b.type);
      vp::group::bcast(c.members(), in_place.data(), in_place.bytes(), root, call);
      return;
    }
    std::vector<std::byte> packed(bytes_of(b.count, b.type));
    if (c.rank == root) b.type.map->pack(buffer, b.count, packed.data());
    vp::group::bcast(c.members(), packed.data(), packed.size(), root, call);
    if (c.rank != root) scattered(packed, packed.size(), buffer, b.count, b.type);
  });
}

int VPMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Reduce";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    const Reduction r = reduction_of(call, objects, count, datatype, op);
    if (c.inter) {
      inter_reduce(call, c, sendbuf, recvbuf, r, root);
      return;
    }
    check_peer(c.group.size(), call, "root", root, false, false);
    const bool at_root = c.rank == root;
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (in_place && !at_root)
      fail(call, MPI_ERR_BUFFER, "MPI_IN_PLACE is the send buffer of the root only");
    if (at_root) check_buffer(call, recvbuf, r.count, r.type, "recvbuf");
    if (!in_place) check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    const Outgoing in(in_place ? recvbuf : sendbuf, r.count, r.type, in_place);
    if (!at_root) {
      vp::group::reduce(c.members(), in.data(), nullptr, r.elements, r.element.size,
                        r.operation.combine(), root, call);
      return;
    }
    Incoming out(recvbuf, r.count, r.type);
    vp::group::reduce(c.members(), in.data(), out.data(), r.elements, r.element.size,
                      r.operation.combine(), root, call);
    out.done();
  });
}

int VPMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm) {
  constexpr const char* call = "MPI_Allreduce";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    const Reduction r = reduction_of(call, objects, count, datatype, op);
    check_buffer(call, recvbuf, r.count, r.type, "recvbuf");
    if (c.inter) {
      inter_allreduce(c, sendbuf, recvbuf, r, call);
      return;
    }
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place) check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    const Outgoing in(in_place ? recvbuf : sendbuf, r.count, r.type, in_place);
    Incoming out(recvbuf, r.count, r.type);
    vp::group::allreduce(c.members(), in.data(), out.data(), r.elements, r.element.size,
                         r.operation.combine(), call);
    out.done();
    after_world_collective(objects, comm, vp::BalanceAt::allreduce);
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
    const Outgoing in(inbuf, r.count, r.type);
    const Outgoing current(inoutbuf, r.count, r.type, true);
    Incoming out(inoutbuf, r.count, r.type);
    if (r.elements > 0) {
      if (out.data() != current.data() && r.bytes() > 0)
        std::memcpy(out.data(), current.data(), r.bytes());
      r.operation.function(in.data(), out.data(), r.elements, &r.operation);
    }
    out.done();
  });
}

int VPMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  constexpr const char* call = "MPI_Reduce_scatter_block";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    const int n = c.group.size();
    count_of(call, recvcount, "recvcount");
    // recvcount for each rank of the group (on an intercommunicator the other group's vectors,
    // as long as this group's, are scattered so).
    const Reduction r = reduction_of(call, objects, recvcount * n, datatype, op);
    check_buffer(call, recvbuf, static_cast<std::size_t>(recvcount), r.type, "recvbuf");
    if (c.inter) {
      inter_reduce_scatter(call, c, sendbuf, recvbuf, r,
                           std::vector<int>(static_cast<std::size_t>(n), recvcount));
      return;
    }
    if (sendbuf != MPI_IN_PLACE) check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    reduce_scatter(call, c, sendbuf, recvbuf, r,
                   std::vector<int>(static_cast<std::size_t>(n), recvcount));
  });
}

int VPMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  constexpr const char* call = "MPI_Reduce_scatter";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    const int n = c.group.size();
    const std::size_t total = check_counts(call, recvcounts, n, "recvcounts");
    const Reduction r = reduction_of(call, objects, static_cast<int>(total), datatype, op);
    if (c.inter) {
      check_buffer(call, recvbuf, static_cast<std::size_t>(recvcounts[c.rank]), r.type, "recvbuf");
      inter_reduce_scatter(call, c, sendbuf, recvbuf, r,
                           std::vector<int>(recvcounts, recvcounts + n));
      return;
    }
    if (sendbuf != MPI_IN_PLACE) check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    check_buffer(call, recvbuf, static_cast<std::size_t>(recvcounts[c.rank]), r.type, "recvbuf");
    reduce_scatter(call, c, sendbuf, recvbuf, r, std::vector<int>(recvcounts, recvcounts + n));
  });
}

int VPMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm) {
  return scan("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, true);
}

int VPMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm) {
  return scan("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, false);
}

int VPMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Gather";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    if (c.inter) {
      inter_rooted(
          call, c, root, true,
          [&] {
            const Side receive = side_of(call, recvcount, recvtype, "recvcount", "recvtype");
            check_bytes(call, recvbuf, receive.bytes() * static_cast<std::size_t>(c.remote.size()),
                        *receive.type, "recvbuf");
            return each_remote(c, recvbuf, receive.count, *receive.type);
          },
          sendbuf, sendcount, sendtype);
      return;
    }
    check_peer(c.group.size(), call, "root", root, false, false);
    const auto n = static_cast<std::size_t>(c.group.size());
    const bool at_root = c.rank == root;
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (in_place && !at_root)
      fail(call, MPI_ERR_BUFFER, "MPI_IN_PLACE is the send buffer of the root only");
    // The receive arguments count at the root only.
    Side receive;
    if (at_root) {
      receive = side_of(call, recvcount, recvtype, "recvcount", "recvtype");
      check_bytes(call, recvbuf, receive.bytes() * n, *receive.type, "recvbuf");
    }
    Side send = receive;
    if (!in_place) {
      send = side_of(call, sendcount, sendtype, "sendcount", "sendtype");
      check_match(call, send, receive);
      check_bytes(call, sendbuf, send.bytes(), *send.type, "sendbuf");
    }
    const void* source =
        in_place
            ? element_at(recvbuf, receive.count * static_cast<std::size_t>(root), *receive.type)
            : sendbuf;
    const Outgoing in(source, send.count, *send.type, in_place);
    if (!at_root) {
      vp::group::gather(c.members(), in.data(), in.bytes(), nullptr, root, call);
      return;
    }
    Incoming out(recvbuf, receive.count * n, *receive.type);
    vp::group::gather(c.members(), in.data(), receive.bytes(), out.data(), root, call);
    out.done();
  });
}

int VPMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Scatter";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    if (c.inter) {
      inter_rooted(
          call, c, root, false,
          [&] {
            const Side send = side_of(call, sendcount, sendtype, "sendcount", "sendtype");
            check_bytes(call, sendbuf, send.bytes() * static_cast<std::size_t>(c.remote.size()),
                        *send.type, "sendbuf");
            return each_remote(c, sendbuf, send.count, *send.type);
          },
          recvbuf, recvcount, recvtype);
      return;
    }
    check_peer(c.group.size(), call, "root", root, false, false);
    const auto n = static_cast<std::size_t>(c.group.size());
    const bool at_root = c.rank == root;
    const bool in_place = recvbuf == MPI_IN_PLACE;
    if (in_place && !at_root)
      fail(call, MPI_ERR_BUFFER, "MPI_IN_PLACE is the receive buffer of the root only");
    // The send arguments count at the root only.
    Side send;
    if (at_root) {
      send = side_of(call, sendcount, sendtype, "sendcount", "sendtype");
      check_bytes(call, sendbuf, send.bytes() * n, *send.type, "sendbuf");
    }
    Side receive = send;
    if (!in_place) {
      receive = side_of(call, recvcount, recvtype, "recvcount", "recvtype");
      check_match(call, send, receive);
      check_bytes(call, recvbuf, receive.bytes(), *receive.type, "recvbuf");
    }
    std::vector<std::byte> unused(in_place ? send.bytes() : 0);
    const Outgoing in(at_root ? sendbuf : nullptr, at_root ? send.count * n : 0,
                      at_root ? *send.type : datatypes[0]);
    if (in_place) {
      vp::group::scatter(c.members(), in.data(), send.bytes(), unused.data(), root, call);
      return;
    }
    Incoming out(recvbuf, receive.count, *receive.type);
    vp::group::scatter(c.members(), in.data(), receive.bytes(), out.data(), root, call);
    out.done();
  });
}

int VPMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return exchange("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                  false, vp::group::allgather);
}

int VPMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return exchange("MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                  true, vp::group::alltoall);
}

int VPMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm) {
  constexpr const char* call = "MPI_Gatherv";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    if (c.inter) {
      inter_rooted(
          call, c, root, true,
          [&] {
            const Datatype& rtype = datatype_of(call, recvtype, "recvtype");
            check_counts(call, recvcounts, c.remote.size(), "recvcounts");
            check_out(call, displs, "displs");
            return each_remote_v(c, recvbuf, recvcounts, displs, rtype);
          },
          sendbuf, sendcount, sendtype);
      return;
    }
    const int n = c.group.size();
    check_peer(n, call, "root", root, false, false);
    const bool at_root = c.rank == root;
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (in_place && !at_root) fail(call, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's only");
    const vp::Collective gather(c.members(), call);
    Side send;
    if (!in_place) {
      send = side_of(call, sendcount, sendtype, "sendcount", "sendtype");
      check_bytes(call, sendbuf, send.bytes(), *send.type, "sendbuf");
    }
    if (!at_root) {
      const Outgoing out(sendbuf, send.count, *send.type);
      gather.put(out.data(), out.bytes(), root);
      return;
    }
    const Datatype& rtype = datatype_of(call, recvtype, "recvtype");
    check_counts(call, recvcounts, n, "recvcounts");
    check_out(call, displs, "displs");
    for (int i = 0; i < n; ++i) {
      const auto count = static_cast<std::size_t>(recvcounts[i]);
      if (i == root && in_place) continue;
      Incoming in(block_at(recvbuf, displs, i, rtype), count, rtype);
      if (i == root) {
        check_match(call, send, {&rtype, count});
        const Outgoing own(sendbuf, send.count, *send.type);
        if (own.bytes() > 0) std::memmove(in.data(), own.data(), own.bytes());
      } else {
        const std::size_t got = gather.get(in.data(), in.bytes(), i);
        if (got != in.bytes()) {
          fail(call, MPI_ERR_TRUNCATE,
               "rank " + std::to_string(i) + " sent " + std::to_string(got) +
                   " bytes, recvcounts[" + std::to_string(i) + "] holds " +
                   std::to_string(in.bytes()));
        }
      }
      in.done();
    }
  });
}

int VPMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Scatterv";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    if (c.inter) {
      inter_rooted(
          call, c, root, false,
          [&] {
            const Datatype& stype = datatype_of(call, sendtype, "sendtype");
            check_counts(call, sendcounts, c.remote.size(), "sendcounts");
            check_out(call, displs, "displs");
            return each_remote_v(c, sendbuf, sendcounts, displs, stype);
          },
          recvbuf, recvcount, recvtype);
      return;
    }
    const int n = c.group.size();
    check_peer(n, call, "root", root, false, false);
    const bool at_root = c.rank == root;
    const bool in_place = recvbuf == MPI_IN_PLACE;
    if (in_place && !at_root) fail(call, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's only");
    const vp::Collective scatter(c.members(), call);
    Side receive;
    if (!in_place) {
      receive = side_of(call, recvcount, recvtype, "recvcount", "recvtype");
      check_bytes(call, recvbuf, receive.bytes(), *receive.type, "recvbuf");
    }
    if (!at_root) {
      Incoming in(recvbuf, receive.count, *receive.type);
      scatter.get(in.data(), in.bytes(), root);
      in.done();
      return;
    }
    const Datatype& stype = datatype_of(call, sendtype, "sendtype");
    check_counts(call, sendcounts, n, "sendcounts");
    check_out(call, displs, "displs");
    for (int i = 0; i < n; ++i) {
      if (i == root && in_place) continue;
      const Outgoing out(block_at(sendbuf, displs, i, stype),
                         static_cast<std::size_t>(sendcounts[i]), stype);
      if (i != root) {
        scatter.put(out.data(), out.bytes(), i);
        continue;
      }
      Incoming own(recvbuf, receive.count, *receive.type);
      if (out.bytes() > own.bytes()) {
        fail(call, MPI_ERR_TRUNCATE,
             "sendcounts[root] is " + std::to_string(out.bytes()) +
                 " bytes, the root's recvcount " + std::to_string(own.bytes()));
      }
      if (out.bytes() > 0) std::memmove(own.data(), out.data(), out.bytes());
      own.done();
    }
  });
}

int VPMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm) {
  constexpr const char* call = "MPI_Allgatherv";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    if (c.inter) {
      no_in_place(call, sendbuf);
      const Datatype& rtype = datatype_of(call, recvtype, "recvtype");
      check_counts(call, recvcounts, c.remote.size(), "recvcounts");
      check_out(call, displs, "displs");
      const Side send = side_of(call, sendcount, sendtype, "sendcount", "sendtype");
      check_bytes(call, sendbuf, send.bytes(), *send.type, "sendbuf");
      inter_exchange(c, each_remote(c, sendbuf, send.count, *send.type, true),
                     each_remote_v(c, recvbuf, recvcounts, displs, rtype));
      return;
    }
    const int n = c.group.size();
    const Datatype& rtype = datatype_of(call, recvtype, "recvtype");
    const std::size_t total = check_counts(call, recvcounts, n, "recvcounts");
    check_out(call, displs, "displs");
    const auto own_count = static_cast<std::size_t>(recvcounts[c.rank]);
    Side send{&rtype, own_count};
    if (sendbuf != MPI_IN_PLACE) {
      send = side_of(call, sendcount, sendtype, "sendcount", "sendtype");
      check_match(call, send, {&rtype, own_count});
    }
    const void* source =
        sendbuf == MPI_IN_PLACE ? block_at(recvbuf, displs, c.rank, rtype) : sendbuf;
    const Outgoing mine(source, send.count, *send.type, sendbuf == MPI_IN_PLACE);
    // Every block gathered at member 0, packed in rank order, broadcast, then put in place
    // (the gaps between blocks are not written).
    const vp::Members members = c.members();
    std::vector<std::byte> packed(total * rtype.size);
    const vp::Collective gather(members, call);
    if (c.rank != 0) {
      gather.put(mine.data(), mine.bytes(), 0);
    } else {
      std::size_t offset = 0;
      for (int i = 0; i < n; ++i) {
        const std::size_t bytes = static_cast<std::size_t>(recvcounts[i]) * rtype.size;
        if (i == 0) {
          if (bytes > 0) std::memcpy(packed.data(), mine.data(), bytes);
        } else {
          gather.get(packed.data() + offset, bytes, i);
        }
        offset += bytes;
      }
    }
    vp::group::bcast(members, packed.data(), packed.size(), 0, call);
    std::size_t offset = 0;
    for (int i = 0; i < n; ++i) {
      const auto count = static_cast<std::size_t>(recvcounts[i]);
      Incoming in(block_at(recvbuf, displs, i, rtype), count, rtype);
      if (in.bytes() > 0) std::memmove(in.data(), packed.data() + offset, in.bytes());
      in.done();
      offset += in.bytes();
    }
  });
}

int VPMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr const char* call = "MPI_Alltoallv";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    if (c.inter) no_in_place(call, sendbuf);
    const int n = c.peers().size();
    const Datatype& rtype = datatype_of(call, recvtype, "recvtype");
    check_counts(call, recvcounts, n, "recvcounts");
    check_out(call, rdispls, "rdispls");
    std::vector<Block> receives;
    for (int i = 0; i < n; ++i) {
      receives.push_back(
          {block_at(recvbuf, rdispls, i, rtype), static_cast<std::size_t>(recvcounts[i]), &rtype});
    }
    std::vector<std::vector<std::byte>> copies;
    std::vector<Block> sends;
    if (sendbuf == MPI_IN_PLACE) {
      sends = snapshot(receives, copies, bytes_type());
    } else {
      const Datatype& stype = datatype_of(call, sendtype, "sendtype");
      check_counts(call, sendcounts, n, "sendcounts");
      check_out(call, sdispls, "sdispls");
      for (int i = 0; i < n; ++i) {
        sends.push_back({block_at(sendbuf, sdispls, i, stype),
                         static_cast<std::size_t>(sendcounts[i]), &stype});
      }
    }
    every_to_every(call, c, sends, receives);
  });
}

int VPMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  constexpr const char* call = "MPI_Alltoallw";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    if (c.inter) no_in_place(call, sendbuf);
    const int n = c.peers().size();
    check_counts(call, recvcounts, n, "recvcounts");
    check_out(call, rdispls, "rdispls");
    check_out(call, recvtypes, "recvtypes");
    // Displacements in bytes.
    const auto at = [](const void* base, int displacement) {
      return reinterpret_cast<const void*>(
          reinterpret_cast<std::uintptr_t>(base) +
          static_cast<std::uintptr_t>(static_cast<std::intptr_t>(displacement)));
    };
    std::vector<Block> receives;
    for (int i = 0; i < n; ++i) {
      receives.push_back({at(recvbuf, rdispls[i]), static_cast<std::size_t>(recvcounts[i]),
                          &datatype_of(call, recvtypes[i], "recvtypes[i]")});
    }
    std::vector<std::vector<std::byte>> copies;
    std::vector<Block> sends;
    if (sendbuf == MPI_IN_PLACE) {
      sends = snapshot(receives, copies, bytes_type());
    } else {
      check_counts(call, sendcounts, n, "sendcounts");
      check_out(call, sdispls, "sdispls");
      check_out(call, sendtypes, "sendtypes");
      for (int i = 0; i < n; ++i) {
        sends.push_back({at(sendbuf, sdispls[i]), static_cast<std::size_t>(sendcounts[i]),
                         &datatype_of(call, sendtypes[i], "sendtypes[i]")});
      }
    }
    every_to_every(call, c, sends, receives);
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
VMPI_PROFILED(Scatter);
VMPI_PROFILED(Allgather);
VMPI_PROFILED(Alltoall);
VMPI_PROFILED(Gatherv);
VMPI_PROFILED(Scatterv);
VMPI_PROFILED(Allgatherv);
VMPI_PROFILED(Alltoallv);
VMPI_PROFILED(Alltoallw);
