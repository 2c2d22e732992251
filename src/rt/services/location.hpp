// The location manager's state and handlers: where each element of a collection lives, as a PE
// knows it (services/location.cpp creates, moves and finds elements; core/delivery.cpp runs
// the messages that find theirs here).
//
// Every element has a home PE (its initial PE), which always knows where it is. A PE keeps one
// dense table per collection, indexed by the element's linear index: finding an element is one
// array access whatever the collection's size. Messages for an element that is not here yet
// (created or migrating in later) are parked until it arrives.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "core/message.hpp"
#include "vela/pup/pup.hpp"
#include "vela/rt/element.hpp"

namespace vela::rt::detail {

struct PeState;

struct ElementKey {
  CollectionId collection = 0;
  std::uint64_t linear = 0;
  friend bool operator==(const ElementKey&, const ElementKey&) = default;
};

struct ElementKeyHash {
  std::size_t operator()(const ElementKey& k) const noexcept {
    return std::hash<std::uint64_t>{}(k.linear * 0x9E3779B97F4A7C15ull ^ k.collection);
  }
};

// Where an element was last known to be; (incarnation, migrations) orders updates that cross:
// an element inserted at an index (dynamic collections) is a later incarnation than the one
// destroyed there, whatever either's moves. pe: -1 never told (ask the home), `gone`: destroyed
// (the home holds its messages for the next incarnation).
struct Location {
  static constexpr PeId gone = -2;
  PeId pe = -1;
  std::uint32_t migrations = 0;
  std::uint32_t incarnation = 0;
  bool newer_than(const Location& known) const {
    return known.pe == -1 || incarnation > known.incarnation ||
           (incarnation == known.incarnation && migrations >= known.migrations);
  }
  void pup(pup::Archive& ar) { ar | pe | migrations | incarnation; }
};

// What a PE knows of one element of a collection: the element itself when it lives here, else
// where it was last known to be (pe < 0: never told, so ask its home).
struct Slot {
  ElementBase* element = nullptr;  // owned (deleted by the PE when it leaves or at the end)
  Location location;
};

// A PE's dense table of one collection, indexed by linear index.
struct CollectionTable {
  std::vector<Slot> slots;
  std::uint64_t local = 0;  // elements living here
  // Entry messages to the collection sent from this PE and delivered to its elements here:
  // over every PE, their difference is what is in flight (a checkpoint needs none).
  std::uint64_t sent = 0;
  std::uint64_t delivered = 0;
  // With a Grid Queue (else empty): per element, its messages waiting in this PE's ordinary
  // queues, whether or not the element is here yet. Its messages go to the Grid Queue only when
  // none wait there, so that they keep their order when it becomes a border element.
  std::vector<std::uint32_t> ordinary_queued;
};

// A PE's part of the location manager. Only the PE's own thread touches it.
struct ElementTables {
  ElementTables() = default;
  ElementTables(const ElementTables&) = delete;
  ElementTables& operator=(const ElementTables&) = delete;

  static constexpr std::size_t max_collections = 256;
  std::array<CollectionTable, max_collections> tables;  // elements deleted by ~PeState
  // Messages for elements not here yet, in arrival order.
  std::unordered_map<ElementKey, std::vector<Message*>, ElementKeyHash> parked;
  // While an element migrating to a PE of another process is sized and packed (an element
  // whose state is only valid in its own process packs it whole then).
  bool migrating_out_of_process = false;
};

// Handlers (services/location.cpp), each taking its message's payload.
SystemHandler create_elements;  // a new collection's elements whose home is this PE
SystemHandler migrate_out;      // the strategy moves elements away from this PE
SystemHandler migrate_in;       // an element arrives
SystemHandler update_location;  // where an element is now (to its home, or a sender)
// Elements from a checkpoint (--restart): built default, unpacked, waiting at the
// checkpoint's sync point.
SystemHandler restore_elements;
// Dynamic collections (services/membership.hpp decides at the root): build an inserted element
// here; delete one that called destroy() (wherever it went since: the request follows it).
SystemHandler construct_element;
SystemHandler destroy_element;

// Sets a new element's collection, index and PE from the construction under way on this thread.
void fill_from_construction(ElementBase& element);

}  // namespace vela::rt::detail
