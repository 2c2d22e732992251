// A reduction to one root among at most 64 members of a run in one process, along the
// reductions' tree (tree_order.hpp), in the process's memory.
//
// Each member walks its path from its leaf up. At each inner node, the first of the two children
// to come leaves its result there and the member goes on with its program; the second combines
// the two (left op right) and climbs on with the result. The member that completes the root
// node holds the whole reduction: the root itself, or another member, which leaves it in the
// call's state and wakes the root with one empty message. From handoff_bytes, a member on another
// PE than the root's that would combine into the root's buffer leaves its result at the node and
// wakes the root, which combines there and climbs on itself (it may wait again higher up): the
// root's buffer stays in its core's cache. So nobody waits but the root; every node is combined
// exactly once, by one thread, and its bits are the tree's whatever the order of arrival, the
// PEs or the placement.
//
// Invariants: a result left at a node stays valid until the root has finished: the root's own
// (in its receive buffer: the root does not return before), any other member's a copy in the
// call's state (it may return at once). A combination writes only into the root's buffer or a
// buffer of the state: the root's when one child is there (and the operator allows it), else the
// right child's result when it is in the state (inout = left op inout, MPI's convention), else
// the left one's with a symmetric operator, else a copy of the right one. At most one wake
// message is pending (the root goes on before anyone can leave it another), and what it tells
// (`result`, `handed`) is written before it is sent. The state is found under a spin lock by the
// call's key by each PE's first member (the others find it in their PE's last one); the root,
// last to touch it (every member came before the tree could complete), takes it out and keeps
// it for reuse.
//
// Costs: n - 1 combinations in all, spread over the members; about n / 2 copies of a vector
// (the children that came first, but the root's) and at most one more per node for an operator
// that is not symmetric; one copy of the root's vector into its buffer; one message when the
// root does not complete the tree itself, and one per combination left to it. One lock hold per
// PE and call (lookup) and one for the root (release).
#include "messaging/shared_tree.hpp"

#include <cstring>
#include <utility>

#include "fibers/rank.hpp"
#include "memory/active_heap.hpp"
#include "messaging/spin.hpp"
#include "messaging/tree_order.hpp"
#include "vela/rt/rank_seam.hpp"

namespace vela::vp::detail {

std::byte* KeptBytes::make(std::size_t bytes) {
  if (bytes > capacity_) {
    bytes_ = std::make_unique_for_overwrite<std::byte[]>(bytes);
    capacity_ = bytes;
  }
  return bytes_.get();
}

void KeptBytes::trim() noexcept {
  if (capacity_ > kept_bytes) {
    bytes_.reset();
    capacity_ = 0;
  }
}

void SharedReduction::reset() noexcept {
  for (int i = 0; i < members; ++i) {
    SharedNode& node = nodes[static_cast<std::size_t>(i)];
    node.came.store(0, std::memory_order_relaxed);
    node.held = {};
    node.in = {};
    node.scratch.trim();
    copies[static_cast<std::size_t>(i)].trim();
  }
  result = nullptr;
  handed = 0;
}

namespace shared_tree {

namespace {

constexpr std::size_t spare_reductions = 2;

// The call's state: the PE's last one, else found or made under the lock.
SharedReduction& find_or_make(World& world, const PeCallKey& key, int members) {
  SharedLast& last = world.shared_last[static_cast<std::size_t>(rt::detail::pe_id())];
  if (last.call != nullptr && last.key == key) return *last.call;
  SharedReductions& shared = world.shared;
  const SpinHold hold(shared.busy);
  auto [it, fresh] = shared.calls.try_emplace(key);
  if (fresh) {
    if (shared.spare.empty()) {
      it->second = std::make_unique<SharedReduction>();
    } else {
      it->second = std::move(shared.spare.back());
      shared.spare.pop_back();
    }
    it->second->members = members;
  }
  last = {key, it->second.get()};
  return *it->second;
}

// At the root, once it has the result (every member came: nobody looks the call up again): the
// state ready for another call, kept for it.
void finish(SharedReductions& shared, const PeCallKey& key, SharedReduction& call) {
  call.reset();
  const SpinHold hold(shared.busy);
  const auto it = shared.calls.find(key);
  if (shared.spare.size() < spare_reductions) shared.spare.push_back(std::move(it->second));
  shared.calls.erase(it);
}

// A member's result as it climbs: where it lies.
struct Held {
  const std::byte* bytes = nullptr;
  HeldIn in = HeldIn::caller;
};

// The node's two children, `mine` this member's, combined; the result where it lies. It goes
// into the root's buffer when one of them is there and the operator allows (the root then
// copies nothing at the end), else into the right child's buffer of the state (inout = left op
// inout), else into the left one's with a symmetric operator, else into a copy of the right one.
Held combine_at(SharedNode& node, int mine, Held held, std::size_t count, std::size_t bytes,
                const Combine& combine) {
  const Held other{node.held[static_cast<std::size_t>(1 - mine)],
                   node.in[static_cast<std::size_t>(1 - mine)]};
  const Held left = mine == 0 ? held : other;
  const Held right = mine == 0 ? other : held;
  const auto apply = [&](const Held& in, const Held& inout) {
    // Only a buffer of the state or the root's is written (inout.in is never caller).
    if (count > 0)
      combine.function(in.bytes, const_cast<std::byte*>(inout.bytes), count, combine.data);
    return inout;
  };
  if (right.in == HeldIn::root_out) return apply(left, right);
  if (left.in == HeldIn::root_out && combine.symmetric) return apply(right, left);
  if (right.in != HeldIn::caller) return apply(left, right);
  if (left.in != HeldIn::caller && combine.symmetric) return apply(right, left);
  std::byte* copy = node.scratch.make(bytes);
  if (bytes > 0) std::memcpy(copy, right.bytes, bytes);
  return apply(left, {copy, HeldIn::state});
}

}  // namespace

bool applies(const Members& members) {
  if (members.size > shared_tree_members) return false;
  const RankContext* rank = current();
  return rank != nullptr && rank->world->processes == 1 && !rank->world->shared_last.empty() &&
         members.rank_of(members.index) == rank->rank;
}

namespace {

// Leaves `held` (this member's result for side `mine` of `node`) where the node's other child
// will find it: copied first if it lies in the caller's buffer, which must outlive the call.
void leave_at(SharedReduction& call, SharedNode& node, int mine, int me, Held& held,
              std::size_t bytes) {
  if (held.in == HeldIn::caller && bytes > 0) {
    std::byte* copy = call.copies[static_cast<std::size_t>(me)].make(bytes);
    std::memcpy(copy, held.bytes, bytes);
    held = {copy, HeldIn::state};
  }
  node.held[static_cast<std::size_t>(mine)] = held.bytes;
  node.in[static_cast<std::size_t>(mine)] = held.in;
}

// How a member's climb ended: it left its result at a node (the other child will come), it
// completed the tree (`held` is the whole reduction), or it left a combination into the root's
// buffer to the root (at node `mid`).
struct Climb {
  enum class End : std::uint8_t { left, completed, handed } end = End::completed;
  int mid = 0;
};

// Climbs `steps` from index `j`. A member other than the root that would combine into the root's
// buffer from another PE than the root's leaves its result at the node and the combination to
// the root (from handoff_bytes): the root's buffer stays in its PE's cache, where the root's next
// call writes it, instead of crossing to the other core and back.
Climb climb(SharedReduction& call, const std::array<TreeStep, 32>& steps, int j, int k, int me,
            bool root, Held& held, std::size_t count, std::size_t bytes, const Combine& combine) {
  for (; j < k; ++j) {
    const TreeStep& step = steps[static_cast<std::size_t>(j)];
    SharedNode& node = call.nodes[static_cast<std::size_t>(step.mid)];
    const int mine = step.left ? 0 : 1;
    if (node.came.load(std::memory_order_acquire) == 0) {
      leave_at(call, node, mine, me, held, bytes);  // perhaps first
      if (node.came.fetch_add(1, std::memory_order_acq_rel) == 0) return {Climb::End::left, 0};
    }
    const HeldIn other = node.in[static_cast<std::size_t>(1 - mine)];
    if (!root && bytes >= handoff_bytes &&
        (other == HeldIn::root_out || held.in == HeldIn::root_out) &&
        rt::detail::pe_id() != call.root_pe) {
      leave_at(call, node, mine, me, held, bytes);
      return {Climb::End::handed, step.mid};
    }
    held = combine_at(node, mine, held, count, bytes, combine);
  }
  return {Climb::End::completed, 0};
}

}  // namespace

void reduce(const Collective& c, std::uint32_t number, const void* in, void* out, std::size_t count,
            std::size_t element, Combine combine, int root) {
  const Members& members = c.members();
  const int me = members.index;
  const std::size_t bytes = count * element;
  World& world = *current()->world;
  const PeCallKey key = call_key(members, number);
  const HeapPause pause;  // the copies belong to the process, not to a rank's heap
  SharedReduction& call = find_or_make(world, key, members.size);
  // The root's vector goes into its buffer first (where the result ends), the others' stay where
  // they are until they must be copied.
  Held held{static_cast<const std::byte*>(in), HeldIn::caller};
  if (me == root) {
    call.root_pe = rt::detail::pe_id();  // before anything of the root's is left at a node
    if (bytes > 0 && in != out) std::memcpy(out, in, bytes);
    held = {static_cast<const std::byte*>(out), HeldIn::root_out};
  }
  std::array<TreeStep, 32> steps;
  const int k = tree_path(members.size, me, steps);
  Climb end = climb(call, steps, 0, k, me, me == root, held, count, bytes, combine);
  if (me != root) {
    if (end.end == Climb::End::left) return;
    // The message orders what the root reads (the result, or the node handed over) after it.
    if (end.end == Climb::End::completed) call.result = held.bytes;
    call.handed = end.mid;
    c.put_and_go(nullptr, 0, root);
    return;
  }
  while (end.end != Climb::End::completed) {
    c.get(nullptr, 0, any_source);
    const int mid = std::exchange(call.handed, 0);
    if (mid == 0) {
      held.bytes = call.result;
      break;
    }
    // The combination at `mid` left to the root: its other child is the root's side.
    int j = 0;
    while (steps[static_cast<std::size_t>(j)].mid != mid) ++j;
    SharedNode& node = call.nodes[static_cast<std::size_t>(mid)];
    const int theirs = steps[static_cast<std::size_t>(j)].left ? 1 : 0;
    const Held handed{node.held[static_cast<std::size_t>(theirs)],
                      node.in[static_cast<std::size_t>(theirs)]};
    held = combine_at(node, theirs, handed, count, bytes, combine);
    end = climb(call, steps, j + 1, k, me, true, held, count, bytes, combine);
  }
  if (bytes > 0 && held.bytes != out) std::memcpy(out, held.bytes, bytes);
  finish(world.shared, key, call);
}

}  // namespace shared_tree
}  // namespace vela::vp::detail
