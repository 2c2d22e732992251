// A reduction to one root among at most 64 members of a run in one process, combined in the
// process's memory along the reductions' tree (tree_order.hpp) by whichever member completes
// each node: no member waits for another but the root, which waits for the whole tree; no
// message moves a vector. The state of each call under way, kept in World::shared.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "messaging/per_pe.hpp"

namespace vela::vp {
class Collective;
}

namespace vela::vp::detail {

inline constexpr int shared_tree_members = 64;

// A buffer of a call's state, kept with it for the next call while it holds at most
// `kept_bytes` (the state is reused: no allocation, no page touched for the first time).
class KeptBytes {
 public:
  static constexpr std::size_t kept_bytes = std::size_t{256} << 10;
  std::byte* make(std::size_t bytes);
  void trim() noexcept;

 private:
  std::unique_ptr<std::byte[]> bytes_;
  std::size_t capacity_ = 0;
};

// An inner node of one call's tree: the result of the child that came first, left there for the
// child that completes the node. `came` orders the two: the first's stores before its increment,
// the second's reads after it saw 1.
// Where a child's result lies: the caller's vector (read only), a buffer of the call's state, or
// the root's receive buffer (where the result should end).
enum class HeldIn : std::uint8_t { caller, state, root_out };

struct alignas(64) SharedNode {  // a line each: the PEs combine different nodes
  std::atomic<std::uint32_t> came{0};
  std::array<const std::byte*, 2> held{};  // the left child's result, the right child's
  std::array<HeldIn, 2> in{};
  KeptBytes scratch;  // a copy the combination needed
};

struct SharedReduction {
  std::array<SharedNode, shared_tree_members> nodes;  // by mid (tree_order.hpp)
  // Member i's vector, copied when it left a node before its sibling came.
  std::array<KeptBytes, shared_tree_members> copies;
  const std::byte* result = nullptr;  // the whole tree's, set before its root is woken
  int handed = 0;                     // or the node whose combination is left to the root
  int root_pe = -1;                   // set by the root before it leaves anything
  int members = 0;
  // Ready for another call (only its first `members` nodes and copies were used).
  void reset() noexcept;
};

// The calls under way in the process (any PE's thread), under a spin lock held for a lookup:
// each PE's first member of a call takes it; the others find the call in their PE's last one
// (SharedLast, World::shared_last).
struct SharedReductions {
  std::atomic<bool> busy{false};
  std::unordered_map<PeCallKey, std::unique_ptr<SharedReduction>, PeCallKeyHash> calls;
  std::vector<std::unique_ptr<SharedReduction>> spare;  // reused, at most a few
};

// The last call a PE's member looked up: a member that comes to the same call finds it here
// (still under way: it needs that member's vector), without the lock.
struct alignas(64) SharedLast {  // a line each: PEs write their own
  PeCallKey key;
  SharedReduction* call = nullptr;
};

namespace shared_tree {

// Below this size the other members' messages to the root cost less than the steps into the
// shared state (collectives.cpp, combine_at_root): 8 ranks on 2 PEs, 0.44-0.69 us against
// 0.60-0.70 from 8 to 256 bytes, 0.63 against 0.69 at 512 (docs/results/mpi-layer.md).
inline constexpr std::size_t from_bytes = 512;

// From this size a combination into the root's buffer found by a member on another PE is left
// to the root (shared_tree.cpp, climb).
inline constexpr std::size_t handoff_bytes = std::size_t{16} << 10;

// Whether a reduction to one root over `members` goes this way: at most 64 members, the run in
// one process, the caller one of them.
bool applies(const Members& members);

// The reduction of every member's `in` (`count` elements of `element` bytes), into `out` at
// member `root`; `number` is the call's number on the group (before `c` took it).
void reduce(const Collective& c, std::uint32_t number, const void* in, void* out, std::size_t count,
            std::size_t element, Combine combine, int root);

}  // namespace shared_tree
}  // namespace vela::vp::detail
