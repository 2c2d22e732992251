// MPI's nonblocking collectives (the standard's §5.12 and §7.7): each one, when it starts, makes
// every send it will make and posts every receive it will need, on the communicator's
// collective channel under the call's number; completing it (MPI_Wait, MPI_Test, ...) waits for
// those receives and then combines or unpacks (requests.hpp's PendingCollective). No step waits
// on another rank's progress, so a started collective completes whatever the ranks do meanwhile
// (a tree would need its inner ranks to forward while they compute).
//
// Costs: the algorithms are direct. A rooted call sends n - 1 messages from or to the root; an
// all-to-all call (allgather, alltoall, allreduce, scan, reduce_scatter, barrier) sends n - 1
// from each rank: O(n^2) messages in all, against O(n log n) for the blocking trees. Reductions
// combine the n contributions along the blocking calls' tree (vp::group::combine_along_tree),
// so MPI_Ireduce and MPI_Iallreduce give the bits of MPI_Reduce and MPI_Allreduce, the same on
// every rank and for any placement; the scans combine left to right in rank order.
//
// On an intercommunicator (the standard's §5.2.2) the same direct paths run between the two
// groups: a call's collective has the other group's ranks for members (remote_members: the
// intercommunicator's context for the library's own messages, the calls numbered alike in both
// groups) and the caller is none of them (index -1; the root's too at MPI_ROOT). A rooted call
// moves one message between the root and each rank of the other group (m of them), the rest of
// the root's group (MPI_PROC_NULL) none; barrier, allgather, alltoall and allreduce send m from
// each rank, n * m in all; reductions combine the other group's contributions along the tree
// over its ranks. MPI_Ireduce_scatter_block sends each rank of the other group its block, but
// MPI_Ireduce_scatter, not knowing the other group's counts, its whole vector (m times the
// bytes), each receiver keeping its own block of it. As for the blocking calls, MPI_IN_PLACE is
// refused there (MPI_ERR_BUFFER) and the scans, not defined there, with MPI_ERR_COMM.
#include <algorithm>
#include <cstring>
#include <optional>

#include "derived_types.hpp"
#include "internal.hpp"
#include "operators.hpp"
#include "requests.hpp"
#include "topology.hpp"

namespace vela::mpi::detail {
namespace {

// `count` elements of `type` at `buffer`, packed (or copied) into a run of bytes of its own.
std::vector<std::byte> packed(const void* buffer, std::size_t count, const Datatype& type) {
  std::vector<std::byte> scratch;
  const auto* data = static_cast<const std::byte*>(gathered(buffer, count, type, scratch));
  if (type.contiguous) return std::vector<std::byte>(data, data + count * type.size);
  return scratch;
}

// Where the bytes of `count` elements of `type` for `buffer` arrive: the buffer itself, or a
// buffer of the request that a finishing step unpacks (with a copy of the type map: the program
// may free the type meanwhile).
void* landing(PendingCollective& pc, void* buffer, std::size_t count, const Datatype& type) {
  if (type.contiguous) {
    return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(buffer) +
                                   static_cast<std::uintptr_t>(type.true_lb));
  }
  pc.buffers.emplace_back(count * type.size);
  const std::size_t which = pc.buffers.size() - 1;
  pc.steps.emplace_back([which, buffer, count, map = *type.map](PendingCollective& p) {
    map.unpack(p.buffers[which].data(), p.buffers[which].size(), buffer, count);
  });
  return pc.buffers.back().data();
}

template <class T>
T* displaced(T* base, std::intptr_t bytes) {
  return reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(base) +
                              static_cast<std::uintptr_t>(bytes));
}

// Starts a nonblocking collective: `build` makes its sends and posts its receives on the
// communicator's next collective (an intercommunicator's over the other group); the request.
template <class Build>
MPI_Request start(const char* call, Communicator& c, Build build) {
  const InRankHeap heap;  // the request and its buffers move with the rank
  auto pc = std::make_unique<PendingCollective>();
  const vp::Collective k(c.inter ? remote_members(c) : c.members(), call);
  build(k, *pc);
  return handle_of(pc.release());
}

// The caller's index among the members of its collectives: its rank, or none of the other
// group's ranks (-1) on an intercommunicator.
int self(const Communicator& c) {
  return c.inter ? -1 : c.rank;
}

// Where the caller of a rooted call stands among the members: `root` the root's index (on an
// intercommunicator the caller's, -1, at MPI_ROOT; none at MPI_PROC_NULL, the rest of the root's
// group, which takes no part), `me` its own.
struct Rooted {
  std::optional<int> root;
  int me = 0;
  bool inter = false;
  bool at_root() const { return root == me; }
  // Whether it moves a block of its own to or from the root: every member of an
  // intracommunicator (the root's to itself), the other group's ranks of an intercommunicator.
  bool own_block() const { return root.has_value() && !(inter && at_root()); }
};

Rooted rooted(const char* call, const Communicator& c, int root) {
  if (!c.inter) {
    check_peer(c.group.size(), call, "root", root, false, false);
    return {root, c.rank, false};
  }
  switch (root_side(call, c, root)) {
    case RootSide::root:
      return {-1, -1, true};
    case RootSide::idle:
      return {std::nullopt, -1, true};
    case RootSide::other:
      break;
  }
  return {root, -1, true};
}

// Whether `buffer`, the one a rooted call's root may give as MPI_IN_PLACE (a gather's send
// buffer, a scatter's receive buffer), is: at an intracommunicator's root only, and never on an
// intercommunicator (where the root's is not used).
bool in_place_at_root(const char* call, const Communicator& c, const void* buffer,
                      const Rooted& at) {
  if (c.inter) {
    if (at.own_block()) no_in_place(call, buffer);
    return false;
  }
  const bool in_place = buffer == MPI_IN_PLACE;
  if (in_place && !at.at_root()) fail(call, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's only");
  return in_place;
}

// Every member's block of `bytes` bytes, in member order, as the finishing steps see them:
// buffers[first + i] (the caller's own block copied in at the start; an intercommunicator's
// caller, -1, is no member: it sends to every member, or to the root, or is the root, -1).
std::size_t gather_blocks(const vp::Collective& k, PendingCollective& pc,
                          std::vector<std::byte> own, std::size_t bytes, bool to_everyone,
                          int root) {
  const int n = k.members().size;
  const int me = k.members().index;
  if (to_everyone || me != root) {
    for (int i = 0; i < n; ++i) {
      if (i != me && (to_everyone || i == root)) k.put(own.data(), bytes, i);
    }
  }
  const std::size_t first = pc.buffers.size();
  if (!to_everyone && me != root) return first;
  for (int i = 0; i < n; ++i)
    pc.buffers.emplace_back(i == me ? own : std::vector<std::byte>(bytes));
  for (int i = 0; i < n; ++i) {
    if (i != me)
      pc.receives.push_back(
          k.post(pc.buffers[first + static_cast<std::size_t>(i)].data(), bytes, i));
  }
  return first;
}

// Combines blocks first .. first + upto - 1 along the reductions' tree (the blocking calls'
// association) into the last of them.
void combine_along_tree(PendingCollective& p, std::size_t first, int upto,
                        const Operation& operation, std::size_t elements) {
  vp::group::combine_along_tree(upto, [&](int left, int right) {
    if (elements > 0)
      operation.function(p.buffers[first + static_cast<std::size_t>(left)].data(),
                         p.buffers[first + static_cast<std::size_t>(right)].data(), elements,
                         &operation);
  });
}

// Combines blocks first .. first + upto - 1 left to right into the last of them (a scan's
// prefix): block i becomes block i - 1 op block i.
void combine_prefix(PendingCollective& p, std::size_t first, int upto, const Operation& operation,
                    std::size_t elements) {
  for (int i = 1; i < upto && elements > 0; ++i) {
    const std::size_t next = first + static_cast<std::size_t>(i);
    operation.function(p.buffers[next - 1].data(), p.buffers[next].data(), elements, &operation);
  }
}

// Writes block `which` (the result) to `count` elements of `type` at `buffer`.
void result_to(PendingCollective& pc, std::size_t which, void* buffer, std::size_t count,
               const Datatype& type) {
  if (type.contiguous) {
    pc.steps.emplace_back([which, to = displaced(buffer, type.true_lb)](PendingCollective& p) {
      if (!p.buffers[which].empty())
        std::memcpy(to, p.buffers[which].data(), p.buffers[which].size());
    });
    return;
  }
  pc.steps.emplace_back([which, buffer, count, map = *type.map](PendingCollective& p) {
    map.unpack(p.buffers[which].data(), p.buffers[which].size(), buffer, count);
  });
}

// Ireduce, Iallreduce, Iscan, Iexscan: every member's values to the members that combine them
// (on an intercommunicator, every rank's to the other group's root, or to each of its ranks).
enum class Reduce { rooted, everyone, inclusive_scan, exclusive_scan };

int start_reduction(const char* call, const void* sendbuf, void* recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, Reduce kind,
                    MPI_Request* request) {
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    const bool scan = kind == Reduce::inclusive_scan || kind == Reduce::exclusive_scan;
    Communicator& c = scan ? collective_comm(call, label, comm) : active(call, label, comm);
    const Reduction r = reduction_of(call, objects, count, datatype, op);
    check_out(call, request, "request");
    // Whether it receives a result and gives values, and to which member they go (all but the
    // rooted form: every member takes part, `at.root` unused).
    Rooted at{0, self(c), c.inter};
    bool gets = true;
    bool gives = true;
    if (kind == Reduce::rooted) {
      at = rooted(call, c, root);
      gets = at.at_root();
      gives = at.own_block();
    }
    if (c.inter && gives) no_in_place(call, sendbuf);
    if (sendbuf == MPI_IN_PLACE && gives && !gets)
      fail(call, MPI_ERR_BUFFER, "MPI_IN_PLACE is the send buffer of the root only");
    if (gets) check_buffer(call, recvbuf, r.count, r.type, "recvbuf");
    if (gives && sendbuf != MPI_IN_PLACE) check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    std::vector<std::byte> own;
    if (gives) own = packed(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, r.count, r.type);
    *request = start(call, c, [&](const vp::Collective& k, PendingCollective& pc) {
      if (!at.root) return;  // MPI_PROC_NULL: nothing to move
      const int n = k.members().size;
      const int me = k.members().index;
      const std::size_t bytes = r.bytes();
      std::size_t first = 0;
      int upto = n;
      if (scan) {
        // To every higher member; from every lower one.
        for (int i = me + 1; i < n; ++i) k.put(own.data(), bytes, i);
        first = pc.buffers.size();
        for (int i = 0; i <= me; ++i)
          pc.buffers.emplace_back(i == me ? own : std::vector<std::byte>(bytes));
        for (int i = 0; i < me; ++i)
          pc.receives.push_back(
              k.post(pc.buffers[first + static_cast<std::size_t>(i)].data(), bytes, i));
        upto = kind == Reduce::inclusive_scan ? me + 1 : me;
        if (upto == 0) return;  // MPI_Exscan leaves rank 0's buffer as it was
      } else {
        first = gather_blocks(k, pc, std::move(own), bytes, kind == Reduce::everyone, *at.root);
        if (!gets) return;
      }
      const std::size_t result = first + static_cast<std::size_t>(upto - 1);
      pc.steps.emplace_back([first, upto, scan, operation = r.operation,
                             elements = r.elements](PendingCollective& p) {
        if (scan) {
          combine_prefix(p, first, upto, operation, elements);
        } else {
          combine_along_tree(p, first, upto, operation, elements);
        }
      });
      result_to(pc, result, recvbuf, r.count, r.type);
    });
  });
}

// Parts of a reduce_scatter's vector as {offset, bytes}: block i of `counts` elements of `per`
// bytes each, for rank i of the caller's group.
using Part = std::pair<std::size_t, std::size_t>;
std::vector<Part> blocks_of(const std::vector<int>& counts, std::size_t per) {
  std::vector<Part> parts;
  std::size_t offset = 0;
  for (const int k : counts) {
    parts.emplace_back(offset, static_cast<std::size_t>(k) * per);
    offset += parts.back().second;
  }
  return parts;
}

// The part of the caller's vector that each member's block comes from: its block on an
// intracommunicator; on an intercommunicator, whose members (the other group) have counts the
// caller does not know, block j of as many equal blocks (`equal`: the block form), or else the
// whole vector.
std::vector<Part> parts_for(const char* call, const Communicator& c, const std::vector<int>& counts,
                            std::size_t per, bool equal) {
  std::vector<Part> parts = blocks_of(counts, per);
  if (!c.inter) return parts;
  const auto m = static_cast<std::size_t>(c.remote.size());
  const std::size_t whole = parts.empty() ? 0 : parts.back().first + parts.back().second;
  if (!equal) return std::vector<Part>(m, Part{0, whole});
  if (per > 0 && (whole / per) % m != 0) {
    fail(call, MPI_ERR_COUNT,
         std::to_string(whole / per) + " elements (recvcount times this group's size) do not " +
             "split into equal blocks for the other group's " + std::to_string(m) + " ranks");
  }
  parts.clear();
  for (std::size_t j = 0; j < m; ++j) parts.emplace_back(j * (whole / m), whole / m);
  return parts;
}

// Ireduce_scatter(_block): block j of every member's values to member j, combined there (on an
// intercommunicator, each rank's block of the other group's vectors, cut out of the whole
// vectors where they come whole).
int start_reduce_scatter(const char* call, const void* sendbuf, void* recvbuf,
                         const std::vector<int>& counts, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm, bool equal, MPI_Request* request) {
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = active(call, label, comm);
    std::size_t total = 0;
    for (const int k : counts) total += count_of(call, k, "recvcounts");
    const Reduction r = reduction_of(call, objects, static_cast<int>(total), datatype, op);
    check_out(call, request, "request");
    const auto mine = static_cast<std::size_t>(counts[static_cast<std::size_t>(c.rank)]);
    check_buffer(call, recvbuf, mine, r.type, "recvbuf");
    if (c.inter) no_in_place(call, sendbuf);
    if (sendbuf != MPI_IN_PLACE) check_buffer(call, sendbuf, r.count, r.type, "sendbuf");
    const std::vector<std::byte> all =
        packed(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, r.count, r.type);
    const std::size_t per = r.type.size;
    const std::vector<Part> parts = parts_for(call, c, counts, per, equal);
    // What each member sends this rank, and where its block lies in that.
    const std::size_t bytes = mine * per;
    const Part own = blocks_of(counts, per)[static_cast<std::size_t>(c.rank)];
    const std::size_t arriving = c.inter && !equal ? all.size() : bytes;
    const std::size_t within = c.inter && !equal ? own.first : 0;
    *request = start(call, c, [&](const vp::Collective& k, PendingCollective& pc) {
      const int n = k.members().size;
      const int me = k.members().index;
      for (int j = 0; j < n; ++j) {
        const Part& part = parts[static_cast<std::size_t>(j)];
        if (j != me) k.put(all.data() + part.first, part.second, j);
      }
      const std::size_t first = pc.buffers.size();
      for (int i = 0; i < n; ++i) {
        pc.buffers.emplace_back(
            i == me ? std::vector<std::byte>(
                          all.begin() + static_cast<std::ptrdiff_t>(own.first),
                          all.begin() + static_cast<std::ptrdiff_t>(own.first + bytes))
                    : std::vector<std::byte>(arriving));
      }
      for (int i = 0; i < n; ++i) {
        if (i != me)
          pc.receives.push_back(
              k.post(pc.buffers[first + static_cast<std::size_t>(i)].data(), arriving, i));
      }
      if (arriving != bytes) {
        pc.steps.emplace_back([first, n, within, bytes](PendingCollective& p) {
          for (int i = 0; i < n; ++i) {
            std::vector<std::byte>& b = p.buffers[first + static_cast<std::size_t>(i)];
            b = std::vector<std::byte>(b.begin() + static_cast<std::ptrdiff_t>(within),
                                       b.begin() + static_cast<std::ptrdiff_t>(within + bytes));
          }
        });
      }
      const std::size_t elements =
          r.type.size == 0 ? 0 : mine * (r.elements / std::max<std::size_t>(r.count, 1));
      pc.steps.emplace_back([first, n, operation = r.operation, elements](PendingCollective& p) {
        combine_along_tree(p, first, n, operation, elements);
      });
      result_to(pc, first + static_cast<std::size_t>(n - 1), recvbuf, mine, r.type);
    });
  });
}

// A block of a gather-like call: `count` elements of `type` at `address`.
struct Block {
  const void* address;
  std::size_t count;
  const Datatype* type;
};

// Sends block i to member i (where `sends` has one) and receives block j from member j (where
// `receives` has one); `lanes` separate directions of a Cartesian neighbourhood.
void exchange_blocks(const vp::Collective& k, PendingCollective& pc,
                     const std::vector<std::pair<int, Block>>& sends,
                     const std::vector<std::pair<int, Block>>& receives) {
  for (const auto& [to, b] : sends) {
    const std::vector<std::byte> data = packed(b.address, b.count, *b.type);
    k.put(data.data(), data.size(), to);
  }
  for (const auto& [from, b] : receives) {
    void* into = landing(pc, const_cast<void*>(b.address), b.count, *b.type);
    pc.receives.push_back(k.post(into, b.count * b.type->size, from));
  }
}

// Igather, Igatherv, Iscatter, Iscatterv, Iallgather, Iallgatherv, Ialltoall(v, w): the caller
// lists the blocks it sends and receives by member (its own block is copied at the start; on an
// intercommunicator the members are the other group's ranks).
template <class List>
int start_exchange(const char* call, MPI_Comm comm, MPI_Request* request, List list) {
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    check_out(call, request, "request");
    std::vector<std::pair<int, Block>> sends;
    std::vector<std::pair<int, Block>> receives;
    list(c, sends, receives);
    const int me = self(c);
    // The block to itself moves at once.
    std::vector<std::pair<int, Block>> to_others;
    const Block* own_send = nullptr;
    for (const auto& s : sends) {
      if (s.first == me) {
        own_send = &s.second;
      } else {
        to_others.push_back(s);
      }
    }
    std::vector<std::pair<int, Block>> from_others;
    for (const auto& r : receives) {
      if (r.first == me) {
        if (own_send != nullptr) {
          const std::vector<std::byte> data =
              packed(own_send->address, own_send->count, *own_send->type);
          std::vector<std::byte> scratch;
          void* into = receiving(const_cast<void*>(r.second.address), r.second.count,
                                 *r.second.type, scratch);
          const std::size_t n = std::min(data.size(), r.second.count * r.second.type->size);
          if (n > 0) std::memcpy(into, data.data(), n);
          scattered(scratch, n, const_cast<void*>(r.second.address), r.second.count,
                    *r.second.type);
        }
      } else {
        from_others.push_back(r);
      }
    }
    *request = start(call, c, [&](const vp::Collective& k, PendingCollective& pc) {
      exchange_blocks(k, pc, to_others, from_others);
    });
  });
}

Block element_block(const void* base, std::size_t index, std::size_t count, const Datatype& t) {
  return {displaced(base, static_cast<std::intptr_t>(index * count) * t.extent), count, &t};
}

Block displaced_block(const void* base, const int* displs, int i, std::size_t count,
                      const Datatype& t) {
  return {displaced(base, static_cast<std::intptr_t>(displs[i]) * t.extent), count, &t};
}

// The nonblocking neighbourhood collectives: block i to destination i, block j from source j;
// on a Cartesian topology each direction's messages carry their own number (topologies.cpp).
int start_neighbours(const char* call, MPI_Comm comm, MPI_Request* request,
                     const std::function<void(const Neighborhood&, std::vector<Block>&,
                                              std::vector<Block>&)>& list) {
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    check_out(call, request, "request");
    const Neighborhood n = neighborhood_of(call, c);
    std::vector<Block> sends;
    std::vector<Block> receives;
    list(n, sends, receives);
    const InRankHeap heap;
    auto pc = std::make_unique<PendingCollective>();
    const bool cartesian = c.topology.kind == Topology::Kind::cartesian;
    const std::size_t lanes = cartesian ? n.destinations.size() : 1;
    std::vector<vp::Collective> lane;
    lane.reserve(lanes);
    for (std::size_t k = 0; k < lanes; ++k) lane.emplace_back(c.members(), call);
    for (std::size_t i = 0; i < n.destinations.size(); ++i) {
      if (n.destinations[i] == MPI_PROC_NULL) continue;
      const std::vector<std::byte> data = packed(sends[i].address, sends[i].count, *sends[i].type);
      lane[cartesian ? i : 0].put(data.data(), data.size(), n.destinations[i]);
    }
    for (std::size_t j = 0; j < n.sources.size(); ++j) {
      if (n.sources[j] == MPI_PROC_NULL) continue;
      const Block& b = receives[j];
      void* into = landing(*pc, const_cast<void*>(b.address), b.count, *b.type);
      pc->receives.push_back(
          lane[cartesian ? (j ^ 1) : 0].post(into, b.count * b.type->size, n.sources[j]));
    }
    *request = handle_of(pc.release());
  });
}

void check_counts(const char* call, const int* counts, int n, const char* what) {
  check_out(call, counts, what);
  for (int i = 0; i < n; ++i) count_of(call, counts[i], what);
}

// MPI_IN_PLACE as a nonblocking all-to-all's send buffer: refused on an intercommunicator
// (MPI_ERR_BUFFER); on an intracommunicator each block is sent from the receive buffer, as its
// receive counts and types lay it out, and the rank's own block stays where it is. This is
// safe because exchange_blocks packs every block it sends before it posts any receive.
bool all_to_all_in_place(const char* call, const Communicator& c, const void* sendbuf) {
  if (c.inter) no_in_place(call, sendbuf);
  return sendbuf == MPI_IN_PLACE;
}

}  // namespace
}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VPMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  constexpr const char* call = "MPI_Ibarrier";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    check_out(call, request, "request");
    *request = start(call, c, [&](const vp::Collective& k, PendingCollective& pc) {
      for (int i = 0; i < k.members().size; ++i) {
        if (i == k.members().index) continue;
        k.put(nullptr, 0, i);
        pc.receives.push_back(k.post(nullptr, 0, i));
      }
    });
  });
}

int VPMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  constexpr const char* call = "MPI_Ibcast";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    const Buffer b = buffer_of(call, buffer, count, datatype, {.buffer = "buffer"});
    const Rooted at = rooted(call, c, root);
    check_out(call, request, "request");
    *request = start(call, c, [&](const vp::Collective& k, PendingCollective& pc) {
      if (!at.root) return;  // MPI_PROC_NULL
      if (at.at_root()) {
        const std::vector<std::byte> data = packed(buffer, b.count, b.type);
        for (int i = 0; i < k.members().size; ++i) {
          if (i != at.me) k.put(data.data(), data.size(), i);
        }
        return;
      }
      void* into = landing(pc, buffer, b.count, b.type);
      pc.receives.push_back(k.post(into, bytes_of(b.count, b.type), *at.root));
    });
  });
}

int VPMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  int root, MPI_Comm comm, MPI_Request* request) {
  return start_reduction("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm,
                         Reduce::rooted, request);
}

// MPI_Comm_idup: the duplicate's handle at once, its context when the request completes: every
// member's proposal to every other member (of both groups of an intercommunicator), the largest
// taken (communicators.cpp).
int VPMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  constexpr const char* call = "MPI_Comm_idup";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    check_out(call, newcomm, "newcomm");
    check_out(call, request, "request");
    const MPI_Comm dup = add_unsettled_dup(call, objects, comm, c);
    const std::uint32_t proposal = propose_idup_context(call, objects);
    *request = start(call, c, [&](const vp::Collective& k, PendingCollective& pc) {
      std::vector<std::byte> own(sizeof proposal);
      std::memcpy(own.data(), &proposal, sizeof proposal);
      // An intercommunicator's own group's proposals first, then the other group's (k's).
      const std::size_t first = pc.buffers.size();
      int n = k.members().size;
      if (c.inter) {
        gather_blocks(vp::Collective(c.members(), call), pc, own, sizeof proposal, true, 0);
        n += c.group.size();
      }
      gather_blocks(k, pc, own, sizeof proposal, true, 0);
      Objects* mine = &objects;
      pc.steps.emplace_back([first, n, dup, mine](PendingCollective& p) {
        std::uint32_t context = 0;
        for (int i = 0; i < n; ++i) {
          std::uint32_t v = 0;
          std::memcpy(&v, p.buffers[first + static_cast<std::size_t>(i)].data(), sizeof v);
          context = std::max(context, v);
        }
        settle_context(*mine, dup, context);
      });
    });
    *newcomm = dup;
  });
}

int VPMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return start_reduction("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, 0, comm,
                         Reduce::everyone, request);
}

int VPMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request* request) {
  return start_reduction("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, 0, comm,
                         Reduce::inclusive_scan, request);
}

int VPMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Request* request) {
  return start_reduction("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, 0, comm,
                         Reduce::exclusive_scan, request);
}

int VPMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request* request) {
  constexpr const char* call = "MPI_Ireduce_scatter_block";
  int size = 0;
  const int code = VPMPI_Comm_size(comm, &size);
  if (code != MPI_SUCCESS) return code;
  return start_reduce_scatter(call, sendbuf, recvbuf,
                              std::vector<int>(static_cast<std::size_t>(size), recvcount), datatype,
                              op, comm, true, request);
}

int VPMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  constexpr const char* call = "MPI_Ireduce_scatter";
  int size = 0;
  const int code = VPMPI_Comm_size(comm, &size);
  if (code != MPI_SUCCESS) return code;
  if (recvcounts == nullptr) return guarded_on(call, comm, [&] { fail_out(call, "recvcounts"); });
  return start_reduce_scatter(call, sendbuf, recvbuf,
                              std::vector<int>(recvcounts, recvcounts + size), datatype, op, comm,
                              false, request);
}

int VPMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request* request) {
  constexpr const char* call = "MPI_Igather";
  return start_exchange(call, comm, request, [&](Communicator& c, auto& sends, auto& receives) {
    const Rooted at = rooted(call, c, root);
    const bool in_place = in_place_at_root(call, c, sendbuf, at);
    if (at.at_root()) {
      const Datatype& rt = datatype_of(call, recvtype, "recvtype");
      const std::size_t rc = count_of(call, recvcount, "recvcount");
      for (int i = 0; i < c.peers().size(); ++i) {
        if (i == at.me && in_place) continue;
        receives.push_back({i, element_block(recvbuf, static_cast<std::size_t>(i), rc, rt)});
      }
    }
    if (in_place || !at.own_block()) return;
    const Datatype& st = datatype_of(call, sendtype, "sendtype");
    sends.push_back({*at.root, Block{sendbuf, count_of(call, sendcount, "sendcount"), &st}});
  });
}

int VPMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Request* request) {
  constexpr const char* call = "MPI_Igatherv";
  return start_exchange(call, comm, request, [&](Communicator& c, auto& sends, auto& receives) {
    const Rooted at = rooted(call, c, root);
    const bool in_place = in_place_at_root(call, c, sendbuf, at);
    if (at.at_root()) {
      const int n = c.peers().size();
      const Datatype& rt = datatype_of(call, recvtype, "recvtype");
      check_counts(call, recvcounts, n, "recvcounts");
      check_out(call, displs, "displs");
      for (int i = 0; i < n; ++i) {
        if (i == at.me && in_place) continue;
        receives.push_back(
            {i, displaced_block(recvbuf, displs, i, static_cast<std::size_t>(recvcounts[i]), rt)});
      }
    }
    if (in_place || !at.own_block()) return;
    const Datatype& st = datatype_of(call, sendtype, "sendtype");
    sends.push_back({*at.root, Block{sendbuf, count_of(call, sendcount, "sendcount"), &st}});
  });
}

int VPMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request* request) {
  constexpr const char* call = "MPI_Iscatter";
  return start_exchange(call, comm, request, [&](Communicator& c, auto& sends, auto& receives) {
    const Rooted at = rooted(call, c, root);
    const bool in_place = in_place_at_root(call, c, recvbuf, at);
    if (at.at_root()) {
      const Datatype& st = datatype_of(call, sendtype, "sendtype");
      const std::size_t sc = count_of(call, sendcount, "sendcount");
      for (int i = 0; i < c.peers().size(); ++i) {
        if (i == at.me && in_place) continue;
        sends.push_back({i, element_block(sendbuf, static_cast<std::size_t>(i), sc, st)});
      }
    }
    if (in_place || !at.own_block()) return;
    const Datatype& rt = datatype_of(call, recvtype, "recvtype");
    receives.push_back({*at.root, Block{recvbuf, count_of(call, recvcount, "recvcount"), &rt}});
  });
}

int VPMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                    MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request* request) {
  constexpr const char* call = "MPI_Iscatterv";
  return start_exchange(call, comm, request, [&](Communicator& c, auto& sends, auto& receives) {
    const Rooted at = rooted(call, c, root);
    const bool in_place = in_place_at_root(call, c, recvbuf, at);
    if (at.at_root()) {
      const int n = c.peers().size();
      const Datatype& st = datatype_of(call, sendtype, "sendtype");
      check_counts(call, sendcounts, n, "sendcounts");
      check_out(call, displs, "displs");
      for (int i = 0; i < n; ++i) {
        if (i == at.me && in_place) continue;
        sends.push_back(
            {i, displaced_block(sendbuf, displs, i, static_cast<std::size_t>(sendcounts[i]), st)});
      }
    }
    if (in_place || !at.own_block()) return;
    const Datatype& rt = datatype_of(call, recvtype, "recvtype");
    receives.push_back({*at.root, Block{recvbuf, count_of(call, recvcount, "recvcount"), &rt}});
  });
}

int VPMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  constexpr const char* call = "MPI_Iallgather";
  return start_exchange(call, comm, request, [&](Communicator& c, auto& sends, auto& receives) {
    if (c.inter) no_in_place(call, sendbuf);
    const Datatype& rt = datatype_of(call, recvtype, "recvtype");
    const std::size_t rc = count_of(call, recvcount, "recvcount");
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const Block own = in_place ? element_block(recvbuf, static_cast<std::size_t>(c.rank), rc, rt)
                               : Block{sendbuf, count_of(call, sendcount, "sendcount"),
                                       &datatype_of(call, sendtype, "sendtype")};
    for (int i = 0; i < c.peers().size(); ++i) {
      if (i == self(c) && in_place) continue;
      sends.push_back({i, own});
      receives.push_back({i, element_block(recvbuf, static_cast<std::size_t>(i), rc, rt)});
    }
  });
}

int VPMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                      MPI_Comm comm, MPI_Request* request) {
  constexpr const char* call = "MPI_Iallgatherv";
  return start_exchange(call, comm, request, [&](Communicator& c, auto& sends, auto& receives) {
    if (c.inter) no_in_place(call, sendbuf);
    const int n = c.peers().size();
    const Datatype& rt = datatype_of(call, recvtype, "recvtype");
    check_counts(call, recvcounts, n, "recvcounts");
    check_out(call, displs, "displs");
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const Block own = in_place ? displaced_block(recvbuf, displs, c.rank,
                                                 static_cast<std::size_t>(recvcounts[c.rank]), rt)
                               : Block{sendbuf, count_of(call, sendcount, "sendcount"),
                                       &datatype_of(call, sendtype, "sendtype")};
    for (int i = 0; i < n; ++i) {
      if (i == self(c) && in_place) continue;
      sends.push_back({i, own});
      receives.push_back(
          {i, displaced_block(recvbuf, displs, i, static_cast<std::size_t>(recvcounts[i]), rt)});
    }
  });
}

int VPMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  constexpr const char* call = "MPI_Ialltoall";
  return start_exchange(call, comm, request, [&](Communicator& c, auto& sends, auto& receives) {
    const bool in_place = all_to_all_in_place(call, c, sendbuf);
    const Datatype& rt = datatype_of(call, recvtype, "recvtype");
    const std::size_t rc = count_of(call, recvcount, "recvcount");
    const Datatype& st = in_place ? rt : datatype_of(call, sendtype, "sendtype");
    const std::size_t sc = in_place ? rc : count_of(call, sendcount, "sendcount");
    const void* from = in_place ? recvbuf : sendbuf;
    for (int i = 0; i < c.peers().size(); ++i) {
      if (in_place && i == self(c)) continue;
      sends.push_back({i, element_block(from, static_cast<std::size_t>(i), sc, st)});
      receives.push_back({i, element_block(recvbuf, static_cast<std::size_t>(i), rc, rt)});
    }
  });
}

int VPMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request* request) {
  constexpr const char* call = "MPI_Ialltoallv";
  return start_exchange(call, comm, request, [&](Communicator& c, auto& sends, auto& receives) {
    const bool in_place = all_to_all_in_place(call, c, sendbuf);
    const int n = c.peers().size();
    const Datatype& rt = datatype_of(call, recvtype, "recvtype");
    const Datatype& st = in_place ? rt : datatype_of(call, sendtype, "sendtype");
    check_counts(call, recvcounts, n, "recvcounts");
    check_out(call, rdispls, "rdispls");
    const int* counts = in_place ? recvcounts : sendcounts;
    const int* displs = in_place ? rdispls : sdispls;
    const void* from = in_place ? recvbuf : sendbuf;
    if (!in_place) {
      check_counts(call, sendcounts, n, "sendcounts");
      check_out(call, sdispls, "sdispls");
    }
    for (int i = 0; i < n; ++i) {
      if (in_place && i == self(c)) continue;
      sends.push_back(
          {i, displaced_block(from, displs, i, static_cast<std::size_t>(counts[i]), st)});
      receives.push_back(
          {i, displaced_block(recvbuf, rdispls, i, static_cast<std::size_t>(recvcounts[i]), rt)});
    }
  });
}

int VPMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                     const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                     const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                     MPI_Request* request) {
  constexpr const char* call = "MPI_Ialltoallw";
  return start_exchange(call, comm, request, [&](Communicator& c, auto& sends, auto& receives) {
    const bool in_place = all_to_all_in_place(call, c, sendbuf);
    const int n = c.peers().size();
    check_counts(call, recvcounts, n, "recvcounts");
    check_out(call, rdispls, "rdispls");
    check_out(call, recvtypes, "recvtypes");
    if (!in_place) {
      check_counts(call, sendcounts, n, "sendcounts");
      check_out(call, sdispls, "sdispls");
      check_out(call, sendtypes, "sendtypes");
    }
    const void* from = in_place ? recvbuf : sendbuf;
    const int* counts = in_place ? recvcounts : sendcounts;
    const int* displs = in_place ? rdispls : sdispls;
    const MPI_Datatype* types = in_place ? recvtypes : sendtypes;
    for (int i = 0; i < n; ++i) {
      if (in_place && i == self(c)) continue;
      sends.push_back(
          {i, Block{displaced(from, displs[i]), static_cast<std::size_t>(counts[i]),
                    &datatype_of(call, types[i], in_place ? "recvtypes[i]" : "sendtypes[i]")}});
      receives.push_back({i, Block{displaced(static_cast<const void*>(recvbuf), rdispls[i]),
                                   static_cast<std::size_t>(recvcounts[i]),
                                   &datatype_of(call, recvtypes[i], "recvtypes[i]")}});
    }
  });
}

int VPMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request* request) {
  constexpr const char* call = "MPI_Ineighbor_allgather";
  return start_neighbours(call, comm, request,
                          [&](const Neighborhood& n, auto& sends, auto& receives) {
                            const Datatype& st = datatype_of(call, sendtype, "sendtype");
                            const Datatype& rt = datatype_of(call, recvtype, "recvtype");
                            const std::size_t sc = count_of(call, sendcount, "sendcount");
                            const std::size_t rc = count_of(call, recvcount, "recvcount");
                            sends.assign(n.destinations.size(), Block{sendbuf, sc, &st});
                            for (std::size_t j = 0; j < n.sources.size(); ++j)
                              receives.push_back(element_block(recvbuf, j, rc, rt));
                          });
}

int VPMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
  constexpr const char* call = "MPI_Ineighbor_alltoall";
  return start_neighbours(call, comm, request,
                          [&](const Neighborhood& n, auto& sends, auto& receives) {
                            const Datatype& st = datatype_of(call, sendtype, "sendtype");
                            const Datatype& rt = datatype_of(call, recvtype, "recvtype");
                            const std::size_t sc = count_of(call, sendcount, "sendcount");
                            const std::size_t rc = count_of(call, recvcount, "recvcount");
                            for (std::size_t i = 0; i < n.destinations.size(); ++i)
                              sends.push_back(element_block(sendbuf, i, sc, st));
                            for (std::size_t j = 0; j < n.sources.size(); ++j)
                              receives.push_back(element_block(recvbuf, j, rc, rt));
                          });
}

int VPMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  constexpr const char* call = "MPI_Ineighbor_allgatherv";
  return start_neighbours(
      call, comm, request, [&](const Neighborhood& n, auto& sends, auto& receives) {
        const Datatype& st = datatype_of(call, sendtype, "sendtype");
        const Datatype& rt = datatype_of(call, recvtype, "recvtype");
        const std::size_t sc = count_of(call, sendcount, "sendcount");
        const int in = static_cast<int>(n.sources.size());
        if (in > 0) {
          check_counts(call, recvcounts, in, "recvcounts");
          check_out(call, displs, "displs");
        }
        sends.assign(n.destinations.size(), Block{sendbuf, sc, &st});
        for (int j = 0; j < in; ++j)
          receives.push_back(
              displaced_block(recvbuf, displs, j, static_cast<std::size_t>(recvcounts[j]), rt));
      });
}

int VPMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request* request) {
  constexpr const char* call = "MPI_Ineighbor_alltoallv";
  return start_neighbours(
      call, comm, request, [&](const Neighborhood& n, auto& sends, auto& receives) {
        const Datatype& st = datatype_of(call, sendtype, "sendtype");
        const Datatype& rt = datatype_of(call, recvtype, "recvtype");
        const int out = static_cast<int>(n.destinations.size());
        const int in = static_cast<int>(n.sources.size());
        if (out > 0) {
          check_counts(call, sendcounts, out, "sendcounts");
          check_out(call, sdispls, "sdispls");
        }
        if (in > 0) {
          check_counts(call, recvcounts, in, "recvcounts");
          check_out(call, rdispls, "rdispls");
        }
        for (int i = 0; i < out; ++i)
          sends.push_back(
              displaced_block(sendbuf, sdispls, i, static_cast<std::size_t>(sendcounts[i]), st));
        for (int j = 0; j < in; ++j)
          receives.push_back(
              displaced_block(recvbuf, rdispls, j, static_cast<std::size_t>(recvcounts[j]), rt));
      });
}

int VPMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                              MPI_Comm comm, MPI_Request* request) {
  constexpr const char* call = "MPI_Ineighbor_alltoallw";
  return start_neighbours(
      call, comm, request, [&](const Neighborhood& n, auto& sends, auto& receives) {
        const int out = static_cast<int>(n.destinations.size());
        const int in = static_cast<int>(n.sources.size());
        if (out > 0) {
          check_counts(call, sendcounts, out, "sendcounts");
          check_out(call, sdispls, "sdispls");
          check_out(call, sendtypes, "sendtypes");
        }
        if (in > 0) {
          check_counts(call, recvcounts, in, "recvcounts");
          check_out(call, rdispls, "rdispls");
          check_out(call, recvtypes, "recvtypes");
        }
        for (int i = 0; i < out; ++i) {
          sends.push_back(Block{displaced(sendbuf, sdispls[i]),
                                static_cast<std::size_t>(sendcounts[i]),
                                &datatype_of(call, sendtypes[i], "sendtypes[i]")});
        }
        for (int j = 0; j < in; ++j) {
          receives.push_back(Block{displaced(static_cast<const void*>(recvbuf), rdispls[j]),
                                   static_cast<std::size_t>(recvcounts[j]),
                                   &datatype_of(call, recvtypes[j], "recvtypes[j]")});
        }
      });
}

}  // extern "C"

// The MPI names, weak aliases of the profiling names (a tool's own MPI_x takes their place).
VMPI_PROFILED(Ibarrier);
VMPI_PROFILED(Ibcast);
VMPI_PROFILED(Ireduce);
VMPI_PROFILED(Iallreduce);
VMPI_PROFILED(Comm_idup);
VMPI_PROFILED(Iscan);
VMPI_PROFILED(Iexscan);
VMPI_PROFILED(Ireduce_scatter_block);
VMPI_PROFILED(Ireduce_scatter);
VMPI_PROFILED(Igather);
VMPI_PROFILED(Igatherv);
VMPI_PROFILED(Iscatter);
VMPI_PROFILED(Iscatterv);
VMPI_PROFILED(Iallgather);
VMPI_PROFILED(Iallgatherv);
VMPI_PROFILED(Ialltoall);
VMPI_PROFILED(Ialltoallv);
VMPI_PROFILED(Ialltoallw);
VMPI_PROFILED(Ineighbor_allgather);
VMPI_PROFILED(Ineighbor_alltoall);
VMPI_PROFILED(Ineighbor_allgatherv);
VMPI_PROFILED(Ineighbor_alltoallv);
VMPI_PROFILED(Ineighbor_alltoallw);
