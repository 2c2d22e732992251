// Collectives over point-to-point messages on their own channel (they never match a program's
// receives, any-tag included), each call's messages tagged with the call's number on its group of
// ranks (every member makes the same collective calls in the same order) and carrying the
// group's context. The algorithms work on members 0..n-1 of a group (vp::Members); the whole
// run is the group of every rank.
//
// Every deterministic reduction combines along one tree fixed by the member count
// (tree_order.hpp: the binomial tree rooted at member 0, the lower members the left operand),
// so its bits depend on the member count only, never on placement, PE or process count,
// balancing, the size or the call (reduce, allreduce and reduce-scatter give the same bits):
// - among more than 64 members, barriers, broadcasts up to 1 MiB, reductions by a predefined
//   operator up to 64 KiB that are exact or in any order, gathers and scatters of up to 4 MiB
//   in all and allgathers of up to 1 MiB combine per PE instead (per_pe.cpp: no message between
//   ranks); the other reductions by a predefined operator whose vectors take at most 1 MiB in
//   all are gathered per PE and combined along the tree where their result is wanted;
// - to one root among at most 64 members: from 512 bytes in a run of one process, in the
//   process's memory by whichever member completes each node of the tree (shared_tree.cpp);
//   otherwise the others send their vectors and go on, and the root combines them in member
//   order as the tree associates them (combine_at_root);
// - a reduce-scatter of 32 KiB or more among at most 64 members goes by blocks: member j
//   combines every member's block j along the tree, in place;
// - otherwise, allreduce included, by messages along the tree: trees are binomial (log2 n
//   rounds, each member sends and receives O(log n) messages). (An allreduce by blocks, each
//   member folding one block and then every member getting every block, was 1.3 to 1.5 times
//   slower than the tree from 256 KiB to 1 MiB with 8 members on 2 PEs, once the tree combined
//   arrivals where they lie: with more ranks than PEs its n (n - 1) messages cost more than its
//   parallel combining saves.)
// Gather among at most 64 members, and allgather of blocks of 16 KiB or more among them, go
// direct (each block sent to where it belongs). The sends of scatter, allgather, alltoall,
// broadcast and the reductions' large pieces are all under way at once (Collective::put_each) and
// held: the receiver copies each from the sender's buffer when it takes it (one copy, no buffer of
// its own), the sender waiting for all together; this is safe because every receive of a collective
// is sure to be posted whatever the sender does next.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fibers/rank.hpp"
#include "messaging/reduce_ops.hpp"
#include "messaging/shared_tree.hpp"
#include "messaging/tree_order.hpp"

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

void Collective::put_and_go(const void* data, std::size_t bytes, int to) const {
  post_message(*static_cast<RankContext*>(rank_), data, bytes, Type::bytes, members_.rank_of(to),
               tag_, {collective_channel, members_.context}, {Delivery::eager});
}

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
                                           {Delivery::normal, false, lend_from, true}))
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

std::size_t Collective::get_taken(void (*take)(void*, const std::byte*, std::size_t), void* taker,
                                  std::size_t capacity, int from) const {
  const int source = from == any_source ? any_source : members_.rank_of(from);
  return receive_taken(*static_cast<RankContext*>(rank_), take, taker, capacity, source, tag_,
                       {collective_channel, members_.context}, call_)
      .bytes;
}

Request Collective::post(void* data, std::size_t capacity, int from) const {
  const int source = from == any_source ? any_source : members_.rank_of(from);
  return Request(post_receive(*static_cast<RankContext*>(rank_), data, capacity, Type::bytes,
                              source, tag_, {collective_channel, members_.context}, call_));
}

namespace {

// One piece sent as put_each sends it: a large one read where it lies once its receiver takes
// it (this member waits), for receivers sure to take it whatever this member does next.
void put_held(const Collective& c, const void* data, std::size_t bytes, int to) {
  const Collective::Piece piece{data, bytes, to};
  c.put_each({&piece, 1});
}

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
  // To every child at once: large data is read here by the children in parallel.
  std::array<Collective::Piece, 32> pieces;
  std::size_t children = 0;
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (rel + mask < n) pieces[children++] = {data, bytes, (rel + mask + root) % n};
  }
  c.put_each({pieces.data(), children});
}

// Scratch of a fixed size, not zeroed (every byte is written before it is read).
class Scratch {
 public:
  explicit Scratch(std::size_t bytes)
      : bytes_(bytes == 0 ? nullptr : std::make_unique_for_overwrite<std::byte[]>(bytes)) {}
  std::byte* data() const { return bytes_.get(); }

 private:
  std::unique_ptr<std::byte[]> bytes_;
};

// Where an arrival is combined into a running result straight from the sender's buffer
// (Combine::symmetric: `arrival op result` has the bits of `result op arrival`).
struct Into {
  Combine combine;
  std::size_t element;
  std::byte* result;
};

void combine_into(void* into, const std::byte* bytes, std::size_t size) {
  const auto& t = *static_cast<const Into*>(into);
  if (size >= t.element) t.combine.function(bytes, t.result, size / t.element, t.combine.data);
}

// A member's place in the binomial tree rooted at member 0: its children, and the distance to
// its parent (its lowest set bit; at member 0, the first power of two not below n).
struct TreePlace {
  int children = 0;
  int parent_distance = 1;
};

TreePlace tree_place(const Members& members) {
  TreePlace t;
  for (; t.parent_distance < members.size && (members.index & t.parent_distance) == 0;
       t.parent_distance <<= 1) {
    if (members.index + t.parent_distance < members.size) ++t.children;
  }
  return t;
}

// Reduces this member's `in` with its subtree's along the binomial tree rooted at member 0,
// sends the subtree's result to its parent, and returns where that result lies: `in` itself at
// a leaf (nothing copied), else `a` or `b`, which take turns as the running result and the
// next child's vector (combined into it). Member 0 ends with the whole reduction.
const std::byte* tree_reduce(const Collective& c, const void* in, std::size_t count,
                             std::size_t element, Combine combine, Order order, const Scratch& a,
                             const Scratch& b) {
  const int n = c.members().size;
  const int r = c.members().index;
  const std::size_t bytes = count * element;
  const auto [children, mask] = tree_place(c.members());
  const auto* result = static_cast<const std::byte*>(in);
  std::byte* next = a.data();
  Into into{combine, element, a.data()};
  const auto fold = [&](int from) {
    if (combine.symmetric) {  // into a, which holds this member's vector from the first child
      if (result == in && bytes > 0) std::memcpy(a.data(), in, bytes);
      result = a.data();
      c.get_taken(&combine_into, &into, bytes, from);
      return;
    }
    c.get(next, bytes, from);
    if (count > 0) combine.function(result, next, count, combine.data);
    result = next;
    next = next == a.data() ? b.data() : a.data();
  };
  if (order == Order::deterministic) {
    // Children in increasing distance: each covers the members just above what result covers.
    for (int m = 1; m < mask && r + m < n; m <<= 1) fold(r + m);
  } else {
    for (int k = 0; k < children; ++k) fold(any_source);
  }
  if (r != 0) put_held(c, result, bytes, r - mask);
  return result;
}

void check_member(const char* call, const char* what, int member, const Members& members) {
  if (member < 0 || member >= members.size) [[unlikely]]
    bad_peer(call, what, member, members.size, false);
}

// A reduction to one root among few members, along the reductions' tree (tree_order.hpp). In a
// run of one process the members combine it in the process's memory (shared_tree.cpp);
// otherwise every other member sends its vector to the root and goes on (copied at once up to
// eager_to_root_bytes, so the caller's buffer is free again; above, read where it lies once the
// root takes it, the sender waiting), and the root combines them in member order as the tree
// associates them (combine_at_root). Either way the others do not wait for the rest of the
// reduction (as inner members of a tree of messages would for their subtrees), and the bits are
// those of the tree for the member count, as an allreduce's and a reduce-scatter's are.
constexpr std::size_t eager_to_root_bytes = std::size_t{1} << 20;

bool among_few(int members) {
  return members <= shared_tree_members;
}

// The root takes member i's vector after member i - 1's and completes the nodes ending at i
// (tree_order.hpp): the results still waiting for their right sibling form a stack of at most
// log2(n) + 1 vectors, the lowest members' at the bottom. With a symmetric operator an arrival
// that completes a node is combined into its left sibling where it lies, without a copy.
void combine_at_root(const Collective& c, const void* in, void* out, std::size_t count,
                     std::size_t element, Combine combine, int root) {
  const int n = c.members().size;
  const int me = c.members().index;
  const std::size_t bytes = count * element;
  if (me != root) {
    if (bytes <= eager_to_root_bytes) {
      c.put_and_go(in, bytes, root);
    } else {
      put_held(c, in, bytes, root);
    }
    return;
  }
  // Buffers for the stack and the arrival: bit_width(n) + 1 of them at most (8 for 64 members),
  // in one block (on the stack when small), each at a multiple of 64 bytes so that every element
  // type is aligned.
  const auto slots = static_cast<std::size_t>(std::bit_width(static_cast<unsigned>(n))) + 1;
  const std::size_t slot = (std::max<std::size_t>(bytes, 1) + 63) / 64 * 64;
  alignas(64) std::array<std::byte, 2048> local;
  std::unique_ptr<std::byte[]> heap;
  std::byte* base = local.data();
  if (slot * slots > local.size()) {
    heap = std::make_unique_for_overwrite<std::byte[]>(slot * slots + 64);
    base = heap.get() + (64 - reinterpret_cast<std::uintptr_t>(heap.get()) % 64) % 64;
  }
  std::array<std::byte*, 8> stack{};
  std::array<std::byte*, 8> spare{};
  std::size_t depth = 0;
  std::size_t spares = slots;
  for (std::size_t k = 0; k < slots; ++k) spare[k] = base + k * slot;
  const auto fresh = [&] { return spare[--spares]; };
  const auto pop = [&] { return stack[--depth]; };
  const auto apply = [&](const std::byte* left, std::byte* right) {
    if (count > 0) combine.function(left, right, count, combine.data);
  };
  for (int i = 0; i < n; ++i) {
    int nodes = 0;
    nodes_ending_at(n, i, [&](int) { ++nodes; });
    std::byte* current = nullptr;
    if (nodes > 0 && combine.symmetric) {  // into its left sibling where it lies
      current = pop();
      if (i != me) {
        Into into{combine, element, current};
        c.get_taken(&combine_into, &into, bytes, i);
      } else {
        apply(static_cast<const std::byte*>(in), current);
      }
      --nodes;
    } else {
      current = fresh();
      if (i != me) {
        c.get(current, bytes, i);
      } else if (bytes > 0) {
        std::memcpy(current, in, bytes);
      }
    }
    for (; nodes > 0; --nodes) {
      std::byte* left = pop();
      apply(left, current);
      spare[spares++] = left;
    }
    stack[depth++] = current;
  }
  if (bytes > 0) std::memcpy(out, stack[0], bytes);
}

void reduce_to(const Members& members, const void* in, void* out, std::size_t count,
               std::size_t element, Combine combine, int root, Order order, bool everyone,
               const char* call) {
  if (!everyone) check_member(call, "root", root, members);
  const std::size_t bytes = count * element;
  if ((combine.exact || order == Order::arrival) && combine.predefined &&
      per_pe::applies(members, bytes, per_pe::reduce_limit)) {
    per_pe::reduce(members, in, out, count, element, combine, root, everyone, call);
    return;
  }
  if (combine.predefined && per_pe::applies(members, bytes * static_cast<std::size_t>(members.size),
                                            per_pe::allgather_limit)) {
    per_pe::fold(members, in, out, count, element, combine, root, everyone, call);
    return;
  }
  const std::uint32_t number = *members.calls;
  const Collective c(members, call);
  if (order == Order::deterministic && !everyone && among_few(members.size)) {
    if (bytes >= shared_tree::from_bytes && shared_tree::applies(members)) {
      shared_tree::reduce(c, number, in, out, count, element, combine, root);
    } else {
      combine_at_root(c, in, out, count, element, combine, root);
    }
    return;
  }
  const int children = tree_place(members).children;
  const Scratch a(children > 0 ? bytes : 0);
  const Scratch b(children > 1 && !combine.symmetric ? bytes : 0);
  const std::byte* result = tree_reduce(c, in, count, element, combine, order, a, b);
  const int me = members.index;
  if (everyone) {
    if (me == 0 && result != out && bytes > 0) std::memcpy(out, result, bytes);
    tree_bcast(c, out, bytes, 0);
    return;
  }
  if (root != 0) {
    if (me == 0) put_held(c, result, bytes, root);
    if (me == root) c.get(out, bytes, 0);
    return;
  }
  if (me == root && result != out && bytes > 0) std::memcpy(out, result, bytes);
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
  if (per_pe::applies(members, 0, 0)) {
    per_pe::barrier(members, call);
    return;
  }
  const Collective c(members, call);
  const Combine nothing{[](const void*, void*, std::size_t, const void*) {}, nullptr};
  const Scratch none(0);
  tree_reduce(c, nullptr, 0, 1, nothing, Order::arrival, none, none);
  tree_bcast(c, nullptr, 0, 0);
}

void bcast(const Members& members, void* buffer, std::size_t bytes, int root, const char* call) {
  check_member(call, "root", root, members);
  if (per_pe::applies(members, bytes, per_pe::bcast_limit)) {
    per_pe::bcast(members, buffer, bytes, root, call);
    return;
  }
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

void combine_along_tree(int n, const std::function<void(int left, int right)>& step) {
  detail::combine_along_tree(
      n, [](int i) { return i; }, step);
}

// A reduce-scatter of this many bytes or more among few members goes by blocks.
constexpr std::size_t reduce_scatter_from = std::size_t{32} << 10;

namespace {

// The reduction at member 0, then block i (elements first[i] to first[i + 1]) to member i.
void reduce_then_scatter(const Members& members, const void* in, void* out,
                         std::span<const std::size_t> first, std::size_t element, Combine combine,
                         const char* call) {
  const Scratch whole(members.index == 0 ? first.back() * element : 0);
  group::reduce(members, in, whole.data(), first.back(), element, combine, 0, call);
  const Collective c(members, call);
  const auto bytes = [&](int i) {
    return (first[static_cast<std::size_t>(i) + 1] - first[static_cast<std::size_t>(i)]) * element;
  };
  if (members.index != 0) {
    c.get(out, bytes(members.index), 0);
    return;
  }
  std::vector<Collective::Piece> pieces;
  for (int i = 1; i < members.size; ++i)
    pieces.push_back({whole.data() + first[static_cast<std::size_t>(i)] * element, bytes(i), i});
  c.put_each(pieces);
  if (bytes(0) > 0) std::memcpy(out, whole.data(), bytes(0));
}

}  // namespace

void reduce_scatter(const Members& members, const void* in, void* out,
                    std::span<const std::size_t> counts, std::size_t element, Combine combine,
                    const char* call) {
  const int n = members.size;
  std::vector<std::size_t> first(static_cast<std::size_t>(n) + 1, 0);  // in elements
  for (int i = 0; i < n; ++i)
    first[static_cast<std::size_t>(i) + 1] =
        first[static_cast<std::size_t>(i)] + counts[static_cast<std::size_t>(i)];
  // Small vectors: n - 1 messages to the root and n - 1 back beat n (n - 1) small ones.
  if (!combine.splittable || !among_few(n) || first.back() * element < reduce_scatter_from) {
    reduce_then_scatter(members, in, out, first, element, combine, call);
    return;
  }
  const Collective c(members, call);
  const int me = members.index;
  const std::size_t mine = counts[static_cast<std::size_t>(me)];
  const std::size_t block = mine * element;
  // Every member's block `me`, in member order, the last one straight in `out`: the fold
  // then ends there.
  const Scratch blocks(block * static_cast<std::size_t>(n - 1));
  const auto at = [&](int i) {
    return i == n - 1 ? static_cast<std::byte*>(out)
                      : blocks.data() + block * static_cast<std::size_t>(i);
  };
  std::vector<Request> posted;
  posted.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (i != me) posted.push_back(c.post(at(i), block, i));
  }
  const auto* from = static_cast<const std::byte*>(in);
  if (block > 0) std::memcpy(at(me), from + first[static_cast<std::size_t>(me)] * element, block);
  std::vector<Collective::Piece> pieces;
  pieces.reserve(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    if (j != me)
      pieces.push_back({from + first[static_cast<std::size_t>(j)] * element,
                        counts[static_cast<std::size_t>(j)] * element, j});
  }
  c.put_each(pieces);
  for (Request& r : posted) wait(r);
  detail::combine_along_tree(n, at, [&](const std::byte* left, std::byte* right) {
    if (mine > 0) combine.function(left, right, mine, combine.data);
  });
}

// Among at most 64 members every other member sends its block to the root and goes on, and
// the root receives each straight into its place. Among more, a binomial tree towards the root:
// each member receives its children's subtrees (their blocks side by side, in member order
// counted from the root) and sends its own subtree up, so the root takes log2(n) messages, not
// n arriving in any order (which a receive in member order would search its unexpected arrivals
// for: O(n^2) at 10^4 members). O(n log n) bytes copied in all.
void gather(const Members& members, const void* in, std::size_t bytes, void* out, int root,
            const char* call) {
  check_member(call, "root", root, members);
  const int n = members.size;
  if (per_pe::applies(members, bytes * static_cast<std::size_t>(n), per_pe::gather_limit)) {
    per_pe::gather(members, in, bytes, out, root, false, call);
    return;
  }
  const Collective c(members, call);
  if (n <= 64) {
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

// Among few members the root sends each its block (scatter_from_root: all under way at once);
// among many, the blocks go down a binomial tree: each member receives its subtree's blocks
// from its parent (in member order counted from the root), keeps its own and passes each
// child its subtree's, so the root sends log2(n) messages, not n. O(n log n) bytes copied.
void scatter(const Members& members, const void* in, std::size_t bytes, void* out, int root,
             const char* call) {
  const int n = members.size;
  if (n <= 64) {
    scatter_from_root(members, out, in, bytes, root, call);
    return;
  }
  check_member(call, "root", root, members);
  if (per_pe::applies(members, bytes * static_cast<std::size_t>(n), per_pe::gather_limit)) {
    per_pe::scatter(members, in, bytes, out, root, call);
    return;
  }
  const Collective c(members, call);
  const int rel = (members.index - root + n) % n;
  int span = 1;  // the subtree's width: the lowest set bit of rel (at the root, all)
  while (span < n && (rel & span) == 0) span <<= 1;
  const auto held = static_cast<std::size_t>(std::min(span, n - rel));
  std::vector<std::byte> subtree(held * bytes);
  if (rel == 0) {  // member order from the root: root .. n - 1, then 0 .. root - 1
    const auto* blocks = static_cast<const std::byte*>(in);
    const auto tail = static_cast<std::size_t>(n - root) * bytes;
    if (bytes > 0) {
      std::memcpy(subtree.data(), blocks + static_cast<std::size_t>(root) * bytes, tail);
      std::memcpy(subtree.data() + tail, blocks, static_cast<std::size_t>(root) * bytes);
    }
  } else {
    c.get(subtree.data(), subtree.size(), (rel - span + root) % n);
  }
  for (int m = span >> 1; m > 0; m >>= 1) {
    if (rel + m >= n) continue;
    const auto count = static_cast<std::size_t>(std::min(m, n - rel - m));
    c.put(subtree.data() + static_cast<std::size_t>(m) * bytes, count * bytes,
          (rel + m + root) % n);
  }
  if (bytes > 0) std::memmove(out, subtree.data(), bytes);
}

void allgather(const Members& members, const void* in, std::size_t bytes, void* out,
               const char* call) {
  const int n = members.size;
  if (per_pe::applies(members, bytes * static_cast<std::size_t>(n), per_pe::allgather_limit)) {
    per_pe::gather(members, in, bytes, out, 0, true, call);
    return;
  }
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
  const bool pairs = type == Type::pair_f64_i32 || type == Type::pair_i32_i32;
  const bool floating = type == Type::f32 || type == Type::f64 || type == Type::f128;
  const bool symmetric = !pairs && (!floating || op == Op::sum || op == Op::prod);
  const bool exact = !pairs && !floating;
  reduce_to(m, in, out, count, size_of(type), {&combine_typed, &t, true, symmetric, exact, true},
            root, order, everyone_gets, call);
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
