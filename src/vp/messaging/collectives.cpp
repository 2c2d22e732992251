// Collectives over point-to-point messages on their own channel (they never match a program's
// receives, any-tag included), each call's messages tagged with the call's number on its group of
// ranks (every member makes the same collective calls in the same order) and carrying the
// group's context. The algorithms work on members 0..n-1 of a group (vp::Members); the whole
// run is the group of every rank. Trees are binomial (log2 n rounds, each member sends and
// receives O(log n) messages); a deterministic reduction combines along a tree fixed by the
// member count, left operand the lower members, so its bits depend on nothing else. Gather and
// allgather of blocks of 16 KiB or more among at most 64 members go direct instead (each block
// copied once, into its place), and the sends of scatter, allgather and alltoall are all under
// way at once (Collective::put_each; alltoall's too, from 16 KiB). A deterministic reduction of 64
// KiB or more among at most 64 members combines by blocks instead (reduce_by_blocks): its bits then
// depend on the member count and the size, still on nothing else.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fibers/rank.hpp"
#include "messaging/reduce_ops.hpp"

namespace vela::vp {

using namespace detail;

Collective::Collective(const Members& members, const char* call)
    : members_(members),
      tag_(static_cast<int>((*members.calls)++ & static_cast<std::uint32_t>(max_tag))),
      call_(call),
      rank_(&current(call)) {}

void Collective::put(const void* data, std::size_t bytes, int to) const {
  post_message(*static_cast<RankContext*>(rank_), data, bytes, Type::bytes, members_.rank_of(to),
               tag_, {collective_channel, members_.context});
}

// put_each lends pieces from this size on: the sender waits for all loans together, so each
// receiver's single copy replaces a copy into the message and another out of it.
constexpr std::size_t lend_from = std::size_t{32} << 10;

void Collective::put_each(std::span<const Piece> pieces) const {
  auto& rank = *static_cast<RankContext*>(rank_);
  const Route route{collective_channel, members_.context};
  struct Holds {  // the rank's holds on the loans, let go even when it is unwound
    std::vector<std::pair<SendLoan*, int>> lent;
    ~Holds() {
      for (const auto& l : lent) let_go(l.first);
    }
  } holds;
  for (const Piece& p : pieces) {
    const int dest = members_.rank_of(p.to);
    if (SendLoan* loan = post_message_lent(rank, p.data, p.bytes, Type::bytes, dest, tag_, route,
                                           {Delivery::normal, false, lend_from}))
      holds.lent.emplace_back(loan, dest);
  }
  for (const auto& [loan, dest] : holds.lent) wait_loan(rank, loan, dest, tag_, true);
}

std::size_t Collective::get(void* data, std::size_t capacity, int from) const {
  const int source = from == any_source ? any_source : members_.rank_of(from);
  return receive_now(*static_cast<RankContext*>(rank_), data, capacity, Type::bytes, source, tag_,
                     {collective_channel, members_.context}, call_)
      .bytes;
}

Request Collective::post(void* data, std::size_t capacity, int from) const {
  const int source = from == any_source ? any_source : members_.rank_of(from);
  return Request(post_receive(*static_cast<RankContext*>(rank_), data, capacity, Type::bytes,
                              source, tag_, {collective_channel, members_.context}, call_));
}

namespace {

// Binomial broadcast from member `root` of `bytes` at `data`.
void tree_bcast(const Collective& c, void* data, std::size_t bytes, int root) {
  const int n = c.members().size;
  const int rel = (c.members().index - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if ((rel & mask) != 0) {
      c.get(data, bytes, (rel - mask + root) % n);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rel + mask < n) c.put(data, bytes, (rel + mask + root) % n);
  }
}

// Reduces into `acc` (holding this member's values) along the binomial tree rooted at member 0;
// member 0 ends with the result. `acc` may be swapped with scratch.
void tree_reduce(const Collective& c, std::vector<std::byte>& acc, std::size_t count,
                 std::size_t element, Combine combine, Order order) {
  const int n = c.members().size;
  const int r = c.members().index;
  const std::size_t bytes = count * element;
  std::vector<std::byte> child(bytes);
  int children = 0;
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if ((r & mask) != 0) break;
    if (r + mask < n) ++children;
  }
  if (order == Order::deterministic) {
    // Children in increasing distance: each covers the members just above what acc covers.
    for (int m = 1; m < mask && m < n; m <<= 1) {
      if (r + m >= n) break;
      c.get(child.data(), bytes, r + m);
      if (count > 0) {
        combine.function(acc.data(), child.data(), count, combine.data);
        acc.swap(child);
      }
    }
  } else {
    for (int k = 0; k < children; ++k) {
      c.get(child.data(), bytes, any_source);
      if (count > 0) {
        combine.function(acc.data(), child.data(), count, combine.data);
        acc.swap(child);
      }
    }
  }
  if (r != 0) c.put(acc.data(), bytes, r - mask);
}

void check_member(const char* call, const char* what, int member, const Members& members) {
  if (member < 0 || member >= members.size) [[unlikely]]
    bad_peer(call, what, member, members.size, false);
}

// A large vector among few members: block j (elements count * j / n up to count * (j + 1) / n)
// is combined at member j from every member's block j, left to right in member order (so its
// bits depend only on the member count), then the combined blocks go to the root or to every
// member. Each member sends and receives about the vector's size twice, against log2(n) times
// along the trees, and the members combine in parallel.
bool by_blocks(std::size_t bytes, std::size_t count, int members) {
  return bytes >= (std::size_t{64} << 10) && members <= 64 &&
         count >= static_cast<std::size_t>(members);
}

void reduce_by_blocks(const Collective& c, const void* in, void* out, std::size_t count,
                      std::size_t element, Combine combine, int root, bool everyone) {
  const int n = c.members().size;
  const int me = c.members().index;
  const auto first = [&](int j) { return count * static_cast<std::size_t>(j) / n; };
  const auto size = [&](int j) { return (first(j + 1) - first(j)) * element; };
  const auto* mine = static_cast<const std::byte*>(in);
  // Every member's block `me` (this member's own copied), in member order.
  std::vector<std::vector<std::byte>> blocks(static_cast<std::size_t>(n));
  std::vector<Request> posted;
  for (int i = 0; i < n; ++i) {
    blocks[static_cast<std::size_t>(i)].resize(size(me));
    if (i != me) posted.push_back(c.post(blocks[static_cast<std::size_t>(i)].data(), size(me), i));
  }
  if (size(me) > 0)
    std::memcpy(blocks[static_cast<std::size_t>(me)].data(), mine + first(me) * element, size(me));
  std::vector<Collective::Piece> pieces;
  for (int j = 0; j < n; ++j) {
    if (j != me) pieces.push_back({mine + first(j) * element, size(j), j});
  }
  c.put_each(pieces);
  for (Request& r : posted) wait(r);
  const std::size_t elements = first(me + 1) - first(me);
  for (int i = 1; i < n; ++i) {  // blocks[i] = blocks[i - 1] op blocks[i]
    if (elements > 0)
      combine.function(blocks[static_cast<std::size_t>(i - 1)].data(),
                       blocks[static_cast<std::size_t>(i)].data(), elements, combine.data);
  }
  const std::vector<std::byte>& reduced = blocks.back();
  auto* result = static_cast<std::byte*>(out);
  if (!everyone && me != root) {
    c.put(reduced.data(), reduced.size(), root);
    return;
  }
  // The combined blocks, each straight into its place.
  posted.clear();
  for (int j = 0; j < n; ++j) {
    if (j != me) posted.push_back(c.post(result + first(j) * element, size(j), j));
  }
  if (everyone) {
    pieces.clear();
    for (int j = 0; j < n; ++j) {
      if (j != me) pieces.push_back({reduced.data(), reduced.size(), j});
    }
    c.put_each(pieces);
  }
  if (!reduced.empty()) std::memcpy(result + first(me) * element, reduced.data(), reduced.size());
  for (Request& r : posted) wait(r);
}

void reduce_to(const Members& members, const void* in, void* out, std::size_t count,
               std::size_t element, Combine combine, int root, Order order, bool everyone,
               const char* call) {
  if (!everyone) check_member(call, "root", root, members);
  const std::size_t bytes = count * element;
  const Collective c(members, call);
  if (order == Order::deterministic && combine.splittable &&
      by_blocks(bytes, count, members.size)) {
    reduce_by_blocks(c, in, out, count, element, combine, root, everyone);
    return;
  }
  std::vector<std::byte> acc(bytes);
  if (bytes > 0) std::memcpy(acc.data(), in, bytes);
  tree_reduce(c, acc, count, element, combine, order);
  const int me = members.index;
  if (everyone) {
    tree_bcast(c, acc.data(), bytes, 0);
    if (bytes > 0) std::memcpy(out, acc.data(), bytes);
    return;
  }
  if (root != 0) {
    if (me == 0) c.put(acc.data(), bytes, root);
    if (me == root) c.get(acc.data(), bytes, 0);
  }
  if (me == root && bytes > 0) std::memcpy(out, acc.data(), bytes);
}

// Scatter: the root sends each member its block of `bytes` from `blocks` (member order), and
// moves its own within itself; each other member receives one message.
void scatter_from_root(const Members& members, void* own, const void* blocks, std::size_t bytes,
                       int root, const char* call) {
  check_member(call, "root", root, members);
  const Collective c(members, call);
  if (members.index != root) {
    c.get(own, bytes, root);
    return;
  }
  std::vector<Collective::Piece> pieces;
  for (int r = 0; r < members.size; ++r) {
    const std::byte* block =
        static_cast<const std::byte*>(blocks) + static_cast<std::size_t>(r) * bytes;
    if (r != root) {
      pieces.push_back({block, bytes, r});
    } else if (bytes > 0) {
      std::memmove(own, block, bytes);
    }
  }
  c.put_each(pieces);  // the members copy large blocks in parallel
}

// Large blocks among few members go straight to where they belong (each copied once, the
// receives posted first); small ones, or many members, take the trees, whose log2(n) steps
// beat n messages for latency and keep the root from matching n arrivals.
bool direct(std::size_t bytes, int members) {
  return bytes >= (std::size_t{16} << 10) && members <= 64;
}

// Every other member's block of `bytes` received straight into its place in `blocks` (member
// order); the caller sends, then waits for them.
std::vector<Request> post_blocks(const Collective& c, void* blocks, std::size_t bytes) {
  std::vector<Request> posted;
  for (int i = 0; i < c.members().size; ++i) {
    if (i != c.members().index)
      posted.push_back(
          c.post(static_cast<std::byte*>(blocks) + static_cast<std::size_t>(i) * bytes, bytes, i));
  }
  return posted;
}

}  // namespace

namespace group {

void barrier(const Members& members, const char* call) {
  const Collective c(members, call);
  std::vector<std::byte> none;
  const Combine nothing{[](const void*, void*, std::size_t, const void*) {}, nullptr};
  tree_reduce(c, none, 0, 1, nothing, Order::arrival);
  tree_bcast(c, nullptr, 0, 0);
}

void bcast(const Members& members, void* buffer, std::size_t bytes, int root, const char* call) {
  check_member(call, "root", root, members);
  tree_bcast(Collective(members, call), buffer, bytes, root);
}

void reduce(const Members& members, const void* in, void* out, std::size_t count,
            std::size_t element, Combine combine, int root, const char* call) {
  reduce_to(members, in, out, count, element, combine, root, Order::deterministic, false, call);
}

void allreduce(const Members& members, const void* in, void* out, std::size_t count,
               std::size_t element, Combine combine, const char* call) {
  reduce_to(members, in, out, count, element, combine, 0, Order::deterministic, true, call);
}

// A binomial tree towards the root: each member receives its children's subtrees (their blocks
// side by side, in member order counted from the root) and sends its own subtree up, so the root
// takes log2(n) messages, not n arriving in any order (which a receive in member order would
// search its unexpected arrivals for: O(n^2) at 10^4 members). O(n log n) bytes copied in all.
void gather(const Members& members, const void* in, std::size_t bytes, void* out, int root,
            const char* call) {
  check_member(call, "root", root, members);
  const Collective c(members, call);
  const int n = members.size;
  if (direct(bytes, n)) {
    if (members.index != root) {
      c.put(in, bytes, root);
      return;
    }
    std::vector<Request> posted = post_blocks(c, out, bytes);
    std::memmove(static_cast<std::byte*>(out) + static_cast<std::size_t>(root) * bytes, in, bytes);
    for (Request& r : posted) wait(r);
    return;
  }
  const int rel = (members.index - root + n) % n;
  std::vector<std::byte> subtree(bytes);
  if (bytes > 0) std::memcpy(subtree.data(), in, bytes);
  std::size_t held = 1;  // blocks rel .. rel + held - 1, counted from the root
  for (int mask = 1; mask < n; mask <<= 1) {
    if ((rel & mask) != 0) {
      c.put(subtree.data(), held * bytes, (rel - mask + root) % n);
      return;
    }
    const int child = rel + mask;
    if (child >= n) continue;
    const auto count = static_cast<std::size_t>(std::min(mask, n - child));
    subtree.resize((held + count) * bytes);
    c.get(subtree.data() + held * bytes, count * bytes, (child + root) % n);
    held += count;
  }
  if (bytes == 0) return;
  auto* blocks = static_cast<std::byte*>(out);
  for (int i = 0; i < n; ++i) {
    std::memcpy(blocks + static_cast<std::size_t>((i + root) % n) * bytes,
                subtree.data() + static_cast<std::size_t>(i) * bytes, bytes);
  }
}

void scatter(const Members& members, const void* in, std::size_t bytes, void* out, int root,
             const char* call) {
  scatter_from_root(members, out, in, bytes, root, call);
}

void allgather(const Members& members, const void* in, std::size_t bytes, void* out,
               const char* call) {
  const int n = members.size;
  if (direct(bytes, n)) {  // every block to every member: n - 1 copies in, n - 1 out
    const Collective c(members, call);
    std::vector<Request> posted = post_blocks(c, out, bytes);
    std::vector<Collective::Piece> pieces;
    for (int i = 0; i < n; ++i) {
      if (i != members.index) pieces.push_back({in, bytes, i});
    }
    c.put_each(pieces);
    std::memmove(static_cast<std::byte*>(out) + static_cast<std::size_t>(members.index) * bytes, in,
                 bytes);
    for (Request& r : posted) wait(r);
    return;
  }
  gather(members, in, bytes, out, 0, call);
  bcast(members, out, bytes * static_cast<std::size_t>(members.size), 0, call);
}

void alltoall(const Members& members, const void* in, std::size_t bytes, void* out,
              const char* call) {
  const Collective c(members, call);
  const int n = members.size;
  const int me = members.index;
  const auto* from = static_cast<const std::byte*>(in);
  auto* to = static_cast<std::byte*>(out);
  if (bytes > 0) {
    std::memmove(to + static_cast<std::size_t>(me) * bytes,
                 from + static_cast<std::size_t>(me) * bytes, bytes);
  }
  if (!direct(bytes, n)) {  // small blocks: no list of receives to make and wait on
    for (int d = 1; d < n; ++d) {
      const int dest = (me + d) % n;
      c.put(from + static_cast<std::size_t>(dest) * bytes, bytes, dest);
    }
    for (int d = 1; d < n; ++d) {
      const int source = (me - d + n) % n;
      c.get(to + static_cast<std::size_t>(source) * bytes, bytes, source);
    }
    return;
  }
  // Every receive posted before the first send: each block arrives straight in its place (one
  // copy, no buffer of its own); the sends all under way at once (put_each), so the receivers
  // copy large blocks in parallel.
  std::vector<Request> receives = post_blocks(c, out, bytes);
  std::vector<Collective::Piece> pieces;
  pieces.reserve(static_cast<std::size_t>(n));
  for (int d = 1; d < n; ++d) {
    const int dest = (me + d) % n;
    pieces.push_back({from + static_cast<std::size_t>(dest) * bytes, bytes, dest});
  }
  c.put_each(pieces);
  for (Request& r : receives) wait(r);
}

}  // namespace group

// ---- the whole run's collectives, typed ----

namespace {

Members everyone(const char* call) {
  RankContext& rank = current(call);
  Members m;
  m.size = rank.world->size;
  m.index = rank.rank;
  m.calls = &rank.collectives;
  return m;
}

// vp's operators as a Combine: every one of them is commutative (with the same bits either way
// round), so inout op= in is in op inout.
struct TypedOp {
  Op op;
  Type type;
  const char* call;
};

void combine_typed(const void* in, void* inout, std::size_t count, const void* data) {
  const auto& t = *static_cast<const TypedOp*>(data);
  combine(t.op, t.type, inout, in, count, t.call);
}

void reduce_typed(const char* call, const void* in, void* out, std::size_t count, Type type, Op op,
                  int root, Order order, bool everyone_gets) {
  const Members m = everyone(call);
  if (!everyone_gets) check_member(call, "root", root, m);
  check_buffer(call, in, count, type);
  check_op(call, type, op);
  if (everyone_gets || m.index == root) check_buffer(call, out, count, type);
  const TypedOp t{op, type, call};
  reduce_to(m, in, out, count, size_of(type), {&combine_typed, &t, true}, root, order,
            everyone_gets, call);
}

}  // namespace

void barrier() {
  constexpr const char* call = "barrier";
  group::barrier(everyone(call), call);
}

void bcast(void* buffer, std::size_t count, Type type, int root) {
  constexpr const char* call = "bcast";
  const Members m = everyone(call);
  check_member(call, "root", root, m);
  const std::size_t bytes = check_buffer(call, buffer, count, type);
  group::bcast(m, buffer, bytes, root, call);
}

void reduce(const void* in, void* out, std::size_t count, Type type, Op op, int root, Order order) {
  reduce_typed("reduce", in, out, count, type, op, root, order, false);
}

void allreduce(const void* in, void* out, std::size_t count, Type type, Op op, Order order) {
  reduce_typed("allreduce", in, out, count, type, op, 0, order, true);
}

void gather(const void* in, std::size_t count, Type type, void* out, int root) {
  constexpr const char* call = "gather";
  const Members m = everyone(call);
  check_member(call, "root", root, m);
  const std::size_t bytes = check_buffer(call, in, count, type);
  if (m.index == root) check_buffer(call, out, count * static_cast<std::size_t>(m.size), type);
  group::gather(m, in, bytes, out, root, call);
}

void allgather(const void* in, std::size_t count, Type type, void* out) {
  constexpr const char* call = "allgather";
  const Members m = everyone(call);
  const std::size_t bytes = check_buffer(call, in, count, type);
  check_buffer(call, out, count * static_cast<std::size_t>(m.size), type);
  group::allgather(m, in, bytes, out, call);
}

void scatter(const void* in, std::size_t count, Type type, void* out, int root) {
  constexpr const char* call = "scatter";
  const Members m = everyone(call);
  check_member(call, "root", root, m);
  const std::size_t bytes = check_buffer(call, out, count, type);
  if (m.index == root) check_buffer(call, in, count * static_cast<std::size_t>(m.size), type);
  group::scatter(m, in, bytes, out, root, call);
}

void alltoall(const void* in, std::size_t count, Type type, void* out) {
  constexpr const char* call = "alltoall";
  const Members m = everyone(call);
  const std::size_t n = static_cast<std::size_t>(m.size);
  const std::size_t bytes = check_buffer(call, in, count, type);
  check_buffer(call, in, count * n, type);
  check_buffer(call, out, count * n, type);
  group::alltoall(m, in, bytes, out, call);
}

}  // namespace vela::vp
