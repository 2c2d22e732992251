// Dynamic collections (Context::create_dynamic): the root's (PE 0's) record of which elements
// exist, and its handlers for insertions, departures and broadcasts. The PE side (building an
// inserted element, deleting a destroyed one) is the location service's (services/location.hpp).
//
// Invariants: every insertion and departure passes through the root, which alone says which
// indices hold an element (`present`) and how many (`live`): sync points wait for `live`
// arrivals, and reduction k for the elements whose first contribution number is at most k and
// whose departure came after their k-th (`reduction_delta`), so contributions and departures
// may reach the root in any order. An insertion at an index whose element has not yet left
// waits for its departure (`deferred`); one that comes while a sync point balances waits for
// its resume (`after_point`), as every element present is at the point then. A fixed collection has
// none of this: every element exists from creation to the end.
//
// Costs: per insertion or departure, two runtime messages (to the root, and from it to the
// element's PE) and O(log r) at the root for r distinct first contribution numbers; a
// broadcast goes through the root, one message per element present.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "core/message.hpp"
#include "vela/pup/pup.hpp"
#include "vela/rt/runtime.hpp"

namespace vela::rt::detail {

struct CollectionInfo;
struct RuntimeState;
struct SavedElement;

// Proxy::insert's request: where (pe < 0: the index's home), built by which factory from what.
struct InsertRequest {
  PeId pe = -1;
  FactoryId factory = 0;
  std::vector<std::byte> arguments;
  void pup(pup::Archive& ar) { ar | pe | factory | arguments; }
};

// The root's order to the PE that builds the element: its incarnation at the index and the
// number its first reduction contribution takes.
struct ConstructOrder {
  std::uint32_t incarnation = 0;
  std::uint32_t reductions = 0;
  FactoryId factory = 0;
  std::vector<std::byte> arguments;
  void pup(pup::Archive& ar) { ar | incarnation | reductions | factory | arguments; }
};

// Proxy::broadcast on a dynamic collection: the entry and its packed arguments.
struct BroadcastRequest {
  HandlerId handler = 0;
  int priority = 0;
  std::vector<std::byte> arguments;
  void pup(pup::Archive& ar) { ar | handler | priority | arguments; }
};

// The root's record of a dynamic collection's elements.
struct Membership {
  std::uint64_t live = 0;
  std::vector<std::uint8_t> present;       // by linear index
  std::vector<std::uint32_t> incarnation;  // elements inserted at each index so far
  // +1 at an element's first contribution number, -1 at the number it had reached when it left:
  // the sum up to k is how many contributions reduction k waits for.
  std::map<std::uint32_t, std::int64_t> reduction_delta;
  std::uint32_t next_reduction = 0;  // one past the highest reduction contributed to
  std::unordered_map<std::uint64_t, InsertRequest> deferred;  // waiting for a departure
  // Insertions that came while a sync point balanced: admitted once its elements resume, so
  // that a new element's at_sync() is the next point's.
  std::vector<std::pair<std::uint64_t, InsertRequest>> after_point;
};

// Sets up a new collection's record (dynamic: empty).
void init_membership(CollectionInfo& info);
// Elements a sync point of the collection waits for (every element of a fixed one).
std::uint64_t members(const CollectionInfo& info);
// Contributions reduction `number` of the collection waits for.
std::uint64_t expected_contributions(const CollectionInfo& info, std::uint32_t number);
// The record of a dynamic collection restored from a checkpoint: its saved elements, each
// contributing from its saved contribution count on.
void restore_membership(CollectionInfo& info, const std::vector<SavedElement>& saved);
// The linear indices of the elements the root knows of, in index order (a broadcast's).
std::vector<std::uint64_t> member_indices(const CollectionInfo& info);
// The root, as a sync point's elements resume: the insertions that waited for it.
void admit_after_point(RuntimeState& state, CollectionInfo& info);
// After the run: an insertion still waiting for a departure is an error (std::runtime_error
// naming the collection and index).
void check_membership_at_end(RuntimeState& state);

SystemHandler on_insert;       // Proxy::insert's request, at the root
SystemHandler on_member_left;  // an element was deleted (ElementBase::destroy), at the root
SystemHandler on_broadcast;    // Proxy::broadcast on a dynamic collection, at the root

}  // namespace vela::rt::detail
