// The location manager: creating elements, moving them between PEs, and keeping their
// locations (delivery, which reads them, is core/delivery.cpp).
//
// Every element has a home PE (its initial PE), which always knows where it is. A PE that
// sends uses what it last learned of an element's location, else the home. A PE that the
// element has left keeps a forward pointer; a message that had to be forwarded tells its
// origin PE where the element is now, so later messages go straight there. Each PE keeps a
// dense table per collection (element here, or its last known PE), so a message finds its
// element with one array access.
#include "services/location.hpp"

#include "core/runtime_state.hpp"
#include "services/timeline.hpp"

namespace vela::rt::detail {

namespace {

// The element being constructed on this thread (ElementBase's constructor reads it).
struct Construction {
  CollectionId collection = 0;
  const Shape* shape = nullptr;
  Index index;
  std::uint64_t linear = 0;
  PeState* pe = nullptr;
};
thread_local const Construction* constructing = nullptr;

// Builds element `linear` of the collection on `pe`: from `arguments` with factory `made_by`
// (null: default-constructed, to unpack into).
std::unique_ptr<ElementBase> construct(PeState& pe, const CollectionInfo& info,
                                       std::uint64_t linear, FactoryId made_by,
                                       const std::vector<std::byte>* arguments) {
  const Construction c{info.id, &info.shape, info.shape.at(linear), linear, &pe};
  constructing = &c;
  std::unique_ptr<ElementBase> element;
  try {
    element = arguments != nullptr ? factory(made_by).make_with_arguments(*arguments)
                                   : factory(info.factory).make_default();
  } catch (...) {
    constructing = nullptr;
    throw;
  }
  constructing = nullptr;
  return element;
}

void install(PeState& pe, const ElementKey& key, std::unique_ptr<ElementBase> element) {
  CollectionTable& table = pe.table(key.collection);
  Slot& slot = table.slots[key.linear];
  delete slot.element;  // none: an element is installed where it is not
  slot.element = element.release();
  ++table.local;
  auto parked = pe.locations.parked.find(key);
  if (parked == pe.locations.parked.end()) return;
  std::vector<Message*> waiting = std::move(parked->second);
  pe.locations.parked.erase(parked);
  // Re-queued in their order.
  for (Message* m : waiting) post(*pe.runtime, pe.id, m);
}

// An element on its way: what the runtime keeps of it, then its own state (packed straight
// after, into the same buffer).
struct Arrival {
  std::uint64_t linear = 0;
  std::uint32_t migrations = 0;
  std::uint32_t reductions = 0;
  Ticks wall_ticks = 0;      // measured since the last balancing step (periodic balancing moves
  double cpu_seconds = 0.0;  // elements between collection and the next step)
  std::vector<CommTable::Edge> edges;
  bool at_sync = false;         // it moves during a balancing step, waiting for its resume
  bool unmeasured = false;      // ElementBase::set_measured(false)
  double declared_load = -1.0;  // ElementBase::declare_load, not yet taken by a step
  bool destroying = false;      // ElementBase::destroy() called: deleted where it arrives
  std::uint32_t incarnation = 0;
  void pup(pup::Archive& ar) {
    ar | linear | migrations | reductions | wall_ticks | cpu_seconds | edges | at_sync |
        unmeasured | declared_load | destroying | incarnation;
  }
};

}  // namespace

void fill_from_construction(ElementBase& element) {
  if (constructing == nullptr) {
    throw std::logic_error("collection elements are created by the runtime (Context::create)");
  }
  ElementAccess::collection(element) = constructing->collection;
  ElementAccess::index(element) = constructing->index;
  ElementAccess::linear(element) = constructing->linear;
  ElementAccess::pe(element) = constructing->pe;
  ElementAccess::shape(element) = constructing->shape;
}

void create_elements(PeState& pe, Message& message) {
  const CollectionInfo& info = pe.runtime->collection(message.collection);
  pe.table(info.id);
  for (std::uint64_t i = 0; i < info.home.size(); ++i) {
    if (info.home[i] != pe.id) continue;
    install(pe, {info.id, i}, construct(pe, info, i, info.factory, &info.arguments));
  }
}

// Elements from a checkpoint: each built default and unpacked from its saved state, waiting at
// the checkpoint's sync point for the resume that follows.
void restore_elements(PeState& pe, Message& message) {
  const CollectionInfo& info = pe.runtime->collection(message.collection);
  std::vector<SavedElement> saved;
  pup::unpack(message.payload(), saved);
  pe.table(info.id);
  for (const SavedElement& s : saved) {
    std::unique_ptr<ElementBase> element = construct(pe, info, s.linear, 0, nullptr);
    try {
      pup::unpack(s.state, *element);
    } catch (const pup::PupError& e) {
      throw std::runtime_error("--restart: collection " + info.name + ": element " +
                               to_string(info.shape.at(s.linear), info.shape.dims) +
                               "'s saved state does not unpack: " + e.what());
    }
    ElementAccess::reductions(*element) = s.reductions;
    ElementAccess::at_sync(*element) = true;
    pe.table(info.id).slots[s.linear].location = {pe.id, 0, 0};
    install(pe, {info.id, s.linear}, std::move(element));
  }
}

void update_location(PeState& pe, Message& message) {
  Location told;
  pup::unpack(message.payload(), told);
  Location& known = pe.table(message.collection).slots[message.element].location;
  if (!told.newer_than(known)) return;
  known = told;
  // Messages held here for an element that did not exist yet (a dynamic collection's, inserted
  // on another PE) follow it now.
  if (known.pe < 0 || known.pe == pe.id) return;
  const auto parked = pe.locations.parked.find({message.collection, message.element});
  if (parked == pe.locations.parked.end()) return;
  std::vector<Message*> waiting = std::move(parked->second);
  pe.locations.parked.erase(parked);
  for (Message* m : waiting) {
    ++m->hops;
    ++pe.stats.forwarded;
    post(*pe.runtime, known.pe, m);
  }
}

void migrate_out(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  std::vector<std::pair<std::uint64_t, PeId>> moves;
  pup::unpack(message.payload(), moves);
  CollectionTable& table = pe.table(message.collection);
  for (const auto& [linear, to] : moves) {
    if (linear < table.slots.size() && table.slots[linear].element == nullptr &&
        table.slots[linear].location.pe == Location::gone) {
      // Destroyed here since the step measured it (an element of a dynamic collection that was
      // not at the sync point): nothing moves, and the step stops waiting for it.
      post_system(state, 0, Kind::migrated, message.collection, linear, {});
      continue;
    }
    if (linear >= table.slots.size() || table.slots[linear].element == nullptr) {
      throw std::logic_error("migrate: element " + std::to_string(linear) + " is not on PE " +
                             std::to_string(pe.id));
    }
    const auto from = Clock::now();
    Slot& slot = table.slots[linear];
    std::unique_ptr<ElementBase> element(slot.element);
    slot.element = nullptr;
    --table.local;
    Arrival arrival{linear,
                    ++ElementAccess::migrations(*element),
                    ElementAccess::reductions(*element),
                    ElementAccess::wall_ticks(*element),
                    ElementAccess::cpu_seconds(*element),
                    ElementAccess::comm(*element).edges(),
                    ElementAccess::at_sync(*element),
                    ElementAccess::unmeasured(*element),
                    ElementAccess::declared_load(*element),
                    ElementAccess::destroying(*element),
                    ElementAccess::incarnation(*element)};
    // One copy: sized first, then the runtime's header and the element's state packed straight
    // into the message's buffer (not zeroed first).
    const PeId first = state.layout.first_pe;
    pe.locations.migrating_out_of_process = to < first || to >= first + state.layout.local_pes;
    pup::Sizer sizer;
    sizer | arrival | *element;
    RawBytes bytes{std::unique_ptr<std::byte[]>(new std::byte[sizer.size()]), sizer.size()};
    pup::Packer packer(std::span<std::byte>(bytes.data.get(), bytes.size));
    packer | arrival | *element;
    pe.locations.migrating_out_of_process = false;
    if (packer.size() != sizer.size()) {
      throw std::logic_error("migrate: element " + std::to_string(linear) +
                             "'s pup packed another size than it sized");
    }
    pe.stats.migrated_bytes += bytes.size;
    ++pe.stats.migrations;
    slot.location = {to, arrival.migrations, arrival.incarnation};
    element.reset();
    if (state.timeline) {
      state.timeline->complete(pe.id, trace::Category::migration, "migrate out", from, Clock::now(),
                               std::to_string(linear));
    }
    Message* m = new_message();
    m->kind = Kind::migrate_in;
    m->priority = system_priority;
    m->collection = message.collection;
    m->element = linear;
    ::new (m->storage) RawBytes(std::move(bytes));
    m->ops = &raw_args;
    post(state, to, m);
  }
}

void migrate_in(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  const auto from = Clock::now();
  pup::Unpacker in(message.payload());
  Arrival arrival;
  in | arrival;
  const std::uint64_t linear = arrival.linear;
  const CollectionInfo& info = state.collection(message.collection);
  std::unique_ptr<ElementBase> element = construct(pe, info, linear, 0, nullptr);
  in | *element;
  in.expect_end();
  ElementAccess::migrations(*element) = arrival.migrations;
  ElementAccess::reductions(*element) = arrival.reductions;
  ElementAccess::wall_ticks(*element) = arrival.wall_ticks;
  ElementAccess::cpu_seconds(*element) = arrival.cpu_seconds;
  ElementAccess::comm(*element).merge(arrival.edges);
  ElementAccess::at_sync(*element) = arrival.at_sync;
  ElementAccess::unmeasured(*element) = arrival.unmeasured;
  ElementAccess::declared_load(*element) = arrival.declared_load;
  ElementAccess::destroying(*element) = arrival.destroying;
  ElementAccess::incarnation(*element) = arrival.incarnation;
  const ElementKey key{message.collection, linear};
  pe.table(key.collection).slots[linear].location = {pe.id, arrival.migrations,
                                                     arrival.incarnation};
  install(pe, key, std::move(element));
  // It called destroy() before it left: deleted here, as it would have been there.
  if (arrival.destroying) post_system(state, pe.id, Kind::destroy, key.collection, linear, {});
  const PeId home = info.home[linear];
  if (home != pe.id) {
    Location here{pe.id, arrival.migrations, arrival.incarnation};
    post_system(state, home, Kind::location, key.collection, linear, pup::pack(here));
  }
  if (state.timeline) {
    state.timeline->complete(pe.id, trace::Category::migration, "migrate in", from, Clock::now(),
                             std::to_string(linear));
  }
  post_system(state, 0, Kind::migrated, key.collection, linear, {});
}

void construct_element(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  const CollectionInfo& info = state.collection(message.collection);
  ConstructOrder order;
  pup::unpack(message.payload(), order);
  const std::uint64_t linear = message.element;
  std::unique_ptr<ElementBase> element =
      construct(pe, info, linear, order.factory, &order.arguments);
  ElementAccess::reductions(*element) = order.reductions;
  ElementAccess::incarnation(*element) = order.incarnation;
  const Location here{pe.id, 0, order.incarnation};
  pe.table(info.id).slots[linear].location = here;
  install(pe, {info.id, linear}, std::move(element));
  const PeId home = info.home[linear];
  if (home != pe.id) post_system(state, home, Kind::location, info.id, linear, pup::pack(here));
}

void destroy_element(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  const CollectionInfo& info = state.collection(message.collection);
  const std::uint64_t linear = message.element;
  CollectionTable& table = pe.table(info.id);
  Slot& slot = table.slots[linear];
  // Moved away since destroy() (its arrival there deletes it), or already another incarnation.
  if (slot.element == nullptr || !ElementAccess::destroying(*slot.element)) return;
  std::unique_ptr<ElementBase> element(slot.element);
  slot.element = nullptr;
  --table.local;
  const Location gone{Location::gone, ElementAccess::migrations(*element) + 1,
                      ElementAccess::incarnation(*element)};
  const std::uint32_t reductions = ElementAccess::reductions(*element);
  slot.location = gone;
  element.reset();
  const PeId home = info.home[linear];
  if (home != pe.id) post_system(state, home, Kind::location, info.id, linear, pup::pack(gone));
  post_system(state, 0, Kind::member_left, info.id, linear, pup::pack(reductions));
}

void PeState::make_table(CollectionId collection) {
  locations.tables[collection].slots.resize(runtime->collection(collection).shape.size());
}

}  // namespace vela::rt::detail
