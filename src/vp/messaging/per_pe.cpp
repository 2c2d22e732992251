// Collectives combined per PE: a barrier, a broadcast, a reduction, a gather, a scatter or an
// allgather among many ranks costs each rank no message, only a step into its PE's state and,
// where it waits, one switch out and back in. Each PE counts its ranks' arrivals at the call
// (combining their vectors as they come, or collecting their blocks); when all of its ranks
// came, it sends one part to PE 0; when the parts count every member, PE 0 sends every PE whose
// ranks wait the parts (a scatter: just their blocks), and that PE combines them and resumes its
// waiting ranks, each of which copies its result from the PE's state. 2 messages per PE with
// ranks, against 2 (n - 1) between ranks for the trees of collectives.cpp.
//
// Invariants:
// - Ranks move between PEs only at migrate(), which every rank reaches after its last call:
//   a call's PE states are all gone by then (each rank that waits for the call's result holds
//   its PE's state until it took the result; the others leave their part behind them), so the
//   ranks living on a PE when its first rank enters a call are those that make the call there
//   (PeCall::expected: the runtime's count of the PE's elements for the whole run, O(1); for
//   another group, its members looked up in the PE's table, O(n)).
// - The state of a call is keyed by (context, call number, the group's member 0), which every
//   member numbers alike; groups that share a context are disjoint (mpi/communicators.cpp), so
//   their members 0 differ. Every member takes the same path (the choice depends on the call's
//   arguments, which MPI requires alike everywhere).
// - Reductions combined per PE are exact (every grouping and order gives the same bits: integer,
//   logical and bitwise operators) or allowed in any order (Order::arrival); the others (fold)
//   are gathered and combined along the reductions' tree where their result is wanted
//   (tree_order.hpp): the bits never depend on which ranks share a PE. Only predefined operators
//   run here (outside the ranks).
// - The states live in World::PeLocal, touched by their PE's thread only (in a rank's fiber or
//   in the runtime's layer handler); what they allocate comes from the process's heap, not a
//   rank's (HeapPause).
// Costs: per rank O(bytes) to combine or copy; per PE with ranks, one message to PE 0 and one
// back; at PE 0, the parts' bytes (P of them for a reduction, n blocks for a gather or a fold)
// sent to each PE that waits.
#include "messaging/per_pe.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "fibers/rank.hpp"
#include "memory/active_heap.hpp"
#include "messaging/tree_order.hpp"
#include "vela/rt/rank_seam.hpp"

namespace vela::vp::detail {

namespace per_pe {
namespace {

std::atomic<World*> served{nullptr};

enum class What : std::uint8_t { part, result };
using CallKind = PeCallKind;

// Every message's head. A part (PE -> PE 0) then carries its bytes; a result (PE 0 -> PE) carries
// `members` parts, each a PartHead and its bytes. A gather's part is its ranks' entries (the
// member's index, 4 bytes, then its block); a scatter's, the indices of its waiting ranks in
// the order they came, then the root's blocks where the root lives; the result of a scatter,
// one part: the blocks of the PE's waiting ranks in that order.
struct Head {
  What what = What::part;
  bool answer = false;    // part: its PE has ranks waiting for the result
  bool has_data = false;  // part: a broadcast's or a scatter's root gave its bytes on that PE
  CallKind kind = CallKind::barrier;
  std::int32_t pe = 0;  // part: the PE that sends it
  PeCallKey key;
  std::uint64_t members = 0;  // part: the members it counts; result: its parts
  std::uint64_t total = 0;    // part: the call's members
};
struct PartHead {
  std::uint64_t bytes = 0;
  std::uint64_t has_data = 0;
};

// The members of the call's group living on this PE: the runtime's count for the whole run in
// rank order, else each member looked up in this PE's table (O(n), no rank's memory touched).
std::uint64_t members_here(const World& world, const Members& members) {
  const rt::CollectionId ranks = world.ranks.id();
  if (members.size == world.size && members.ranks == nullptr && members.first == 0 &&
      members.stride == 1) {
    return rt::detail::elements_here(ranks);
  }
  std::uint64_t here = 0;
  for (int i = 0; i < members.size; ++i) {
    if (rt::detail::element_here(ranks, static_cast<std::uint64_t>(members.rank_of(i)))) ++here;
  }
  return here;
}

PeCalls& calls_of(World& world, int pe) {
  return world.here[static_cast<std::size_t>(pe)].calls;
}

[[noreturn]] void corrupt(const char* what) {
  throw std::logic_error(std::string("vela: a per-PE collective message ") + what);
}

void append(std::vector<std::byte>& to, const void* data, std::size_t bytes) {
  const auto* b = static_cast<const std::byte*>(data);
  to.insert(to.end(), b, b + bytes);
}

// At a PE whose ranks wait: the result came. Combines the parts (a reduction) into the call's
// state, where each waiting rank takes it when it resumes, and makes them ready: they run after
// the running rank (inside a fiber: run_on_pe takes them), else through one wake of the first,
// which runs the others. Only the ranks' contexts are touched here, not their stacks.
void take_result(World& world, const Head& head, std::span<const std::byte> body) {
  const int pe = rt::detail::pe_id();
  PeCalls& calls = calls_of(world, pe);
  const auto it = calls.calls.find(head.key);
  if (it == calls.calls.end()) return;
  PeCall& call = it->second;
  std::vector<std::span<const std::byte>> parts;
  std::span<const std::byte> data;
  for (std::uint64_t i = 0; i < head.members; ++i) {
    PartHead p;
    if (body.size() < sizeof p) corrupt("is cut short");
    std::memcpy(&p, body.data(), sizeof p);
    body = body.subspan(sizeof p);
    if (body.size() < p.bytes) corrupt("is cut short");
    parts.push_back(body.first(p.bytes));
    if (p.has_data != 0) data = parts.back();
    body = body.subspan(p.bytes);
  }
  if (call.kind == CallKind::gather || call.kind == CallKind::fold) {
    const std::size_t entry = sizeof(std::uint32_t) + call.block;
    call.partial.assign(call.total * call.block, std::byte{0});
    for (const auto& part : parts) {
      if (part.size() % entry != 0) corrupt("has a gather's part of a wrong size");
      for (std::size_t at = 0; at < part.size(); at += entry) {
        std::uint32_t index = 0;
        std::memcpy(&index, part.data() + at, sizeof index);
        if (index >= call.total) corrupt("names a member beyond the call's");
        if (call.block > 0)
          std::memcpy(call.partial.data() + index * call.block, part.data() + at + sizeof index,
                      call.block);
      }
    }
    if (call.kind == CallKind::fold && call.total > 0) {
      // Combined in place along the reductions' tree: the last block holds the result.
      if (call.count > 0 && call.has_combine) {
        combine_along_tree(
            static_cast<int>(call.total),
            [&](int i) { return call.partial.data() + static_cast<std::size_t>(i) * call.block; },
            [&](const std::byte* left, std::byte* right) {
              call.combine.function(left, right, call.count, call.combine.data);
            });
      }
      call.partial.erase(
          call.partial.begin(),
          call.partial.begin() + static_cast<std::ptrdiff_t>((call.total - 1) * call.block));
    }
  } else if (call.kind == CallKind::reduce && !parts.empty()) {
    call.partial.assign(parts.front().begin(), parts.front().end());
    for (std::size_t i = 1; i < parts.size(); ++i) {
      if (parts[i].size() != call.partial.size()) corrupt("has parts of different sizes");
      if (call.count > 0 && call.has_combine)
        call.combine.function(parts[i].data(), call.partial.data(), call.count, call.combine.data);
    }
  } else {
    call.partial.assign(data.begin(), data.end());
  }
  call.complete = true;
  call.readers = call.waiting.size();
  RankContext* first = nullptr;
  auto& ready = world.here[static_cast<std::size_t>(pe)].ready;
  for (RankContext* rank : call.waiting) {
    if (rank->state != RankState::blocked) continue;  // the rank that completes the call
    rank->state = RankState::ready;
    ready.push_back(rank);
    if (first == nullptr) first = rank;
  }
  call.waiting.clear();
  if (call.readers == 0) calls.calls.erase(it);
  if (first != nullptr && current() == nullptr) {
    rt::detail::send_entry<&RankElement::wake>(world.ranks.id(),
                                               static_cast<std::uint64_t>(first->rank), 0);
  }
}

// A result (its Head, then its parts) to PE `pe`: taken at once on this PE, else posted.
void answer(World& world, int pe, std::vector<std::byte> message) {
  if (pe != rt::detail::pe_id()) {
    rt::detail::post_to_pe(pe, world.ranks.id(), std::move(message));
    return;
  }
  Head head;
  std::memcpy(&head, message.data(), sizeof head);
  take_result(world, head, std::span(message).subspan(sizeof head));
}

// The indices a scatter's part lists (its waiting ranks, in the order they came).
std::span<const std::byte> listed(const PeRootCall::Part& part) {
  const std::uint64_t waiting = part.members - (part.has_data ? 1 : 0);
  if (part.bytes.size() < waiting * sizeof(std::uint32_t)) corrupt("is cut short");
  return std::span(part.bytes).first(waiting * sizeof(std::uint32_t));
}

// At PE 0, a scatter's parts all in: each PE whose ranks wait gets their blocks, in the order
// its part listed them.
void answer_scatter(World& world, const Head& head, const PeRootCall& done) {
  std::span<const std::byte> blocks;
  for (const PeRootCall::Part& p : done.parts) {
    if (p.has_data) blocks = std::span(p.bytes).subspan(listed(p).size());
  }
  if (blocks.size() % head.total != 0) corrupt("has a scatter's blocks of a wrong size");
  const std::size_t block = blocks.size() / head.total;
  for (const PeRootCall::Part& p : done.parts) {
    if (!p.answer) continue;
    const std::span<const std::byte> indices = listed(p);
    const std::size_t count = indices.size() / sizeof(std::uint32_t);
    Head result;
    result.what = What::result;
    result.key = head.key;
    result.members = 1;
    const PartHead ph{count * block, 1};
    std::vector<std::byte> message;
    message.reserve(sizeof result + sizeof ph + ph.bytes);
    append(message, &result, sizeof result);
    append(message, &ph, sizeof ph);
    for (std::size_t i = 0; i < count; ++i) {
      std::uint32_t index = 0;
      std::memcpy(&index, indices.data() + i * sizeof index, sizeof index);
      if (index >= head.total) corrupt("names a member beyond the call's");
      append(message, blocks.data() + index * block, block);
    }
    answer(world, p.pe, std::move(message));
  }
}

// At PE 0: a PE's part. Once the parts count every member, each PE whose ranks wait gets them
// all, in PE order.
void take_part(World& world, const Head& head, std::span<const std::byte> bytes) {
  PeCalls& calls = calls_of(world, rt::detail::pe_id());
  PeRootCall& root = calls.root[head.key];
  root.members += head.members;
  root.parts.push_back({head.pe, head.answer, head.has_data, head.members,
                        std::vector<std::byte>(bytes.begin(), bytes.end())});
  if (root.members < head.total) return;
  if (root.members > head.total) corrupt("counts more members than the call has");
  PeRootCall done = std::move(root);
  calls.root.erase(head.key);
  std::sort(done.parts.begin(), done.parts.end(),
            [](const PeRootCall::Part& a, const PeRootCall::Part& b) { return a.pe < b.pe; });
  if (head.kind == CallKind::scatter) {
    answer_scatter(world, head, done);
    return;
  }
  Head result;
  result.what = What::result;
  result.key = head.key;
  result.members = done.parts.size();
  std::vector<std::byte> message;
  append(message, &result, sizeof result);
  for (const PeRootCall::Part& p : done.parts) {
    const PartHead ph{p.bytes.size(), p.has_data ? 1u : 0u};
    append(message, &ph, sizeof ph);
    append(message, p.bytes.data(), p.bytes.size());
  }
  // The other PEs first: this PE's own answer makes its ranks ready, which can wait.
  const int here = rt::detail::pe_id();
  for (const PeRootCall::Part& p : done.parts) {
    if (p.answer && p.pe != here) answer(world, p.pe, message);
  }
  for (const PeRootCall::Part& p : done.parts) {
    if (p.answer && p.pe == here) answer(world, p.pe, std::move(message));
  }
}

void on_message(std::span<const std::byte> payload) {
  World* world = served.load(std::memory_order_acquire);
  if (world == nullptr) return;  // the run is over
  Head head;
  if (payload.size() < sizeof head) corrupt("is cut short");
  std::memcpy(&head, payload.data(), sizeof head);
  const HeapPause pause;
  if (head.what == What::part) {
    take_part(*world, head, payload.subspan(sizeof head));
  } else {
    take_result(*world, head, payload.subspan(sizeof head));
  }
}

// Every rank of this PE came: its part goes to PE 0 (taken here when this is PE 0), and the
// state goes unless ranks wait on it.
void send_part(World& world, int pe, const PeCallKey& key, int total) {
  PeCalls& calls = calls_of(world, pe);
  PeCall& call = calls.calls.at(key);
  Head head;
  head.what = What::part;
  head.answer = !call.waiting.empty();
  head.has_data = call.has_data;
  head.pe = pe;
  head.key = key;
  head.kind = call.kind;
  head.members = call.arrived;
  head.total = static_cast<std::uint64_t>(total);
  std::vector<std::byte> bytes = std::move(call.partial);
  append(bytes, call.root.data(), call.root.size());
  call.root = {};
  if (!head.answer) calls.calls.erase(key);
  if (pe == 0) {
    take_part(world, head, bytes);
    return;
  }
  std::vector<std::byte> message;
  message.reserve(sizeof head + bytes.size());
  append(message, &head, sizeof head);
  append(message, bytes.data(), bytes.size());
  rt::detail::post_to_pe(0, world.ranks.id(), std::move(message));
}

// A waiting rank's hold on its call's state: it takes the result (`out`, when given) and lets
// the state go when it is the last; unwound early (the end of a failed run), it leaves the list.
class Waiting {
 public:
  Waiting(World& world, int pe, const PeCallKey& key) : world_(world), pe_(pe), key_(key) {}
  ~Waiting() {
    if (taken_) return;
    PeCalls& calls = calls_of(world_, pe_);
    const auto it = calls.calls.find(key_);
    if (it == calls.calls.end()) return;
    PeCall& call = it->second;
    if (!call.complete) {
      std::erase(call.waiting, current());
    } else if (--call.readers == 0) {
      calls.calls.erase(it);
    }
  }
  Waiting(const Waiting&) = delete;
  Waiting& operator=(const Waiting&) = delete;

  // Whether the result came; then copies it to `out` (its bytes from `from` on, `bytes` of
  // them; all by default) and lets go.
  bool take(void* out, std::size_t from = 0, std::size_t bytes = SIZE_MAX) {
    PeCalls& calls = calls_of(world_, pe_);
    const auto it = calls.calls.find(key_);
    if (it == calls.calls.end() || !it->second.complete) return false;
    PeCall& call = it->second;
    if (from > call.partial.size()) corrupt("gives a rank less than its block");
    bytes = std::min(bytes, call.partial.size() - from);
    if (out != nullptr && bytes > 0) std::memcpy(out, call.partial.data() + from, bytes);
    taken_ = true;
    if (--call.readers == 0) {
      const HeapPause pause;
      calls.calls.erase(it);
    }
    return true;
  }

 private:
  World& world_;
  int pe_;
  PeCallKey key_;
  bool taken_ = false;
};

struct Contribution {
  CallKind kind = CallKind::barrier;
  const void* in = nullptr;  // a reduction's vector, or a broadcast's bytes at its root
  std::size_t bytes = 0;
  std::size_t count = 0;
  Combine combine;
  void* out = nullptr;  // where a waiting rank's result goes
  bool waits = true;
  std::size_t block = 0;  // a gather's or a scatter's bytes per member
};

// The calling rank's step into its PE's state for the call, then, if it waits, its wait.
void contribute(const Members& members, const Contribution& c, const char* call) {
  RankContext& rank = current(call);
  World& world = *rank.world;
  const PeCallKey key = call_key(members, (*members.calls)++);
  const int pe = rank.element->pe();
  std::size_t position = 0;  // a scatter's: among the PE's waiting ranks
  {
    const HeapPause pause;
    PeCalls& calls = calls_of(world, pe);
    auto [it, fresh] = calls.calls.try_emplace(key);
    PeCall& state = it->second;
    if (fresh) {
      state.expected = members_here(world, members);
      state.kind = c.kind;
      state.count = c.count;
      state.block = c.block;
      state.total = static_cast<std::uint64_t>(members.size);
    }
    const auto* in = static_cast<const std::byte*>(c.in);
    const auto index = static_cast<std::uint32_t>(members.index);
    if (c.kind == CallKind::gather || c.kind == CallKind::fold) {
      append(state.partial, &index, sizeof index);
      append(state.partial, c.in, c.block);
    } else if (c.kind == CallKind::scatter) {
      if (!c.waits) {  // the root
        state.root.assign(in, in + c.block * state.total);
        state.has_data = true;
      } else {
        position = state.waiting.size();
        append(state.partial, &index, sizeof index);
      }
    } else if (c.kind == CallKind::reduce) {
      if (state.arrived == 0) {
        state.partial.assign(in, in + c.bytes);
      } else if (c.count > 0) {
        c.combine.function(c.in, state.partial.data(), c.count, c.combine.data);
      }
    } else if (c.kind == CallKind::bcast && c.in != nullptr) {
      state.partial.assign(in, in + c.bytes);
      state.has_data = true;
    }
    if (++state.arrived > state.expected) {
      throw std::logic_error("vela: " + std::string(call) + ": rank " + std::to_string(rank.rank) +
                             " came to a call whose ranks on its PE had all come");
    }
    if (c.waits) {
      state.waiting.push_back(&rank);
      if (!state.has_combine) state.combine = c.combine;
      state.has_combine = true;
    }
    if (state.arrived == state.expected) send_part(world, pe, key, members.size);
  }
  if (!c.waits) return;
  // Blocked until the result came (an arrival for the rank may resume it before: it blocks
  // again). No wait in place (block()): the result comes as the runtime's message, not the
  // rank's.
  Waiting waiting(world, pe, key);
  const bool sliced = c.kind == CallKind::scatter;
  while (!waiting.take(c.out, sliced ? position * c.block : 0, sliced ? c.block : SIZE_MAX)) {
    rank.waiting_source = any_source;
    rank.waiting_tag = any_tag;
    rank.waiting_collective = true;
    suspend(rank, RankState::blocked, call);
  }
}

}  // namespace

bool applies(const Members& members, std::size_t bytes, std::size_t limit) {
  if (members.size <= 64 || bytes > limit) return false;
  const RankContext* rank = current();
  return rank != nullptr && !rank->world->here.empty() &&
         members.rank_of(members.index) == rank->rank;
}

void barrier(const Members& members, const char* call) {
  contribute(members, {}, call);
}

namespace {

// A call toward a root (a reduction, a gather): every member gives `in`; the root, or every
// member of an all- call, waits for `out`.
Contribution toward_root(CallKind kind, const Members& members, const void* in, void* out, int root,
                         bool everyone) {
  Contribution c;
  c.kind = kind;
  c.in = in;
  c.waits = everyone || members.index == root;
  c.out = c.waits ? out : nullptr;
  return c;
}

// A call from a root (a broadcast, a scatter): the root gives `in` and goes on; the others wait
// for `out`.
Contribution from_root(CallKind kind, const Members& members, const void* in, void* out, int root) {
  Contribution c;
  c.kind = kind;
  if (members.index == root) {
    c.in = in;
    c.waits = false;
  } else {
    c.out = out;
  }
  return c;
}

// A reduction's step: `kind` reduce (combined per PE) or fold (gathered, combined along the tree).
void reduction(CallKind kind, const Members& members, const void* in, void* out, std::size_t count,
               std::size_t element, Combine combine, int root, bool everyone, const char* call) {
  Contribution c = toward_root(kind, members, in, out, root, everyone);
  c.bytes = count * element;
  c.block = kind == CallKind::fold ? c.bytes : 0;
  c.count = count;
  c.combine = combine;
  contribute(members, c, call);
}

}  // namespace

void bcast(const Members& members, void* buffer, std::size_t bytes, int root, const char* call) {
  Contribution c = from_root(CallKind::bcast, members, buffer, buffer, root);
  c.bytes = bytes;
  contribute(members, c, call);
}

void reduce(const Members& members, const void* in, void* out, std::size_t count,
            std::size_t element, Combine combine, int root, bool everyone, const char* call) {
  reduction(CallKind::reduce, members, in, out, count, element, combine, root, everyone, call);
}

void fold(const Members& members, const void* in, void* out, std::size_t count, std::size_t element,
          Combine combine, int root, bool everyone, const char* call) {
  reduction(CallKind::fold, members, in, out, count, element, combine, root, everyone, call);
}

void gather(const Members& members, const void* in, std::size_t bytes, void* out, int root,
            bool everyone, const char* call) {
  Contribution c = toward_root(CallKind::gather, members, in, out, root, everyone);
  c.block = bytes;
  contribute(members, c, call);
}

void scatter(const Members& members, const void* in, std::size_t bytes, void* out, int root,
             const char* call) {
  Contribution c = from_root(CallKind::scatter, members, in, out, root);
  c.block = bytes;
  if (members.index == root && bytes > 0) {  // its own block, moved within itself
    std::memmove(out, static_cast<const std::byte*>(in) + static_cast<std::size_t>(root) * bytes,
                 bytes);
  }
  contribute(members, c, call);
}

void serve(World* world) {
  served.store(world, std::memory_order_release);
  if (world != nullptr) rt::detail::set_layer_handler(&on_message);
}

}  // namespace per_pe
}  // namespace vela::vp::detail
