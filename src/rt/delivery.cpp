// Finding elements: delivery, forwarding, creation and migration (the location manager).
//
// Every element has a home PE (its initial PE), which always knows where it is. A PE that
// sends uses what it last learned of an element's location, else the home. A PE that the
// element has left keeps a forward pointer; a message that had to be forwarded tells its
// origin PE where the element is now, so later messages go straight there.
#include "state.hpp"
#include "trace/timeline.hpp"

namespace vela::rt::detail {

namespace {

// The element being constructed on this thread (ElementBase's constructor reads it).
struct Construction {
  CollectionId collection = 0;
  Index index;
  std::uint64_t linear = 0;
  PeState* pe = nullptr;
};
thread_local const Construction* constructing = nullptr;

std::unique_ptr<ElementBase> construct(PeState& pe, const CollectionInfo& info,
                                       std::uint64_t linear, bool with_arguments) {
  const Construction c{info.id, info.shape.at(linear), linear, &pe};
  constructing = &c;
  std::unique_ptr<ElementBase> element;
  try {
    element = with_arguments ? info.factory.make_with_arguments(info.arguments)
                             : info.factory.make_default();
  } catch (...) {
    constructing = nullptr;
    throw;
  }
  constructing = nullptr;
  return element;
}

void install(PeState& pe, const ElementKey& key, std::unique_ptr<ElementBase> element) {
  pe.elements[key] = std::move(element);
  auto parked = pe.parked.find(key);
  if (parked == pe.parked.end()) return;
  std::vector<MessagePtr> waiting = std::move(parked->second);
  pe.parked.erase(parked);
  // Re-queued in their order; they were counted when first posted, so count them again and
  // let their first posting's count go with this message.
  for (MessagePtr& m : waiting) post(*pe.runtime, pe.id, std::move(m));
  pe.runtime->outstanding.fetch_sub(static_cast<std::int64_t>(waiting.size()));
}

// An element on its way: what the runtime keeps of it, and its own state.
struct Arrival {
  std::uint64_t linear = 0;
  std::uint32_t migrations = 0;
  std::uint32_t reductions = 0;
  std::vector<std::byte> state;
  void pup(pup::Archive& ar) { ar | linear | migrations | reductions | state; }
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
}

void create_elements(PeState& pe, const Message& message) {
  const CollectionInfo& info = pe.runtime->collection(message.collection);
  for (std::uint64_t i = 0; i < info.home.size(); ++i) {
    if (info.home[i] != pe.id) continue;
    install(pe, {info.id, i}, construct(pe, info, i, true));
  }
}

void deliver_entry(PeState& pe, MessagePtr message) {
  RuntimeState& state = *pe.runtime;
  const ElementKey key{message->collection, message->element};
  const auto found = pe.elements.find(key);
  if (found == pe.elements.end()) {
    const auto known = pe.locations.find(key);
    const PeId home = state.collection(key.collection).home[key.linear];
    const PeId to = known != pe.locations.end() ? known->second.pe : home;
    if (to == pe.id) {
      // Not here yet (created or migrating in later): hold it until the element arrives.
      pe.parked[key].push_back(std::move(message));
      state.outstanding.fetch_add(1);  // released by install()
      return;
    }
    ++message->hops;
    ++pe.stats.forwarded;
    post(state, to, std::move(message));
    return;
  }
  ElementBase& element = *found->second;
  if (message->hops > 0 && message->origin >= 0 && message->origin != pe.id) {
    Location here{pe.id, ElementAccess::migrations(element)};
    auto bytes = pup::pack(here);
    post_system(state, message->origin, Kind::location, key.collection, key.linear,
                std::move(bytes));
  }
  ++pe.stats.messages;
  const Handler handler = detail::handler(message->handler);
  run_entry(pe, element, handler_name(message->handler).c_str(), [&] {
    pup::Unpacker in(message->payload);
    handler(element, in);
  });
}

void update_location(PeState& pe, const Message& message) {
  Location told;
  pup::unpack(message.payload, told);
  Location& known = pe.locations[{message.collection, message.element}];
  if (known.pe < 0 || told.migrations >= known.migrations) known = told;
}

void migrate_out(PeState& pe, const Message& message) {
  RuntimeState& state = *pe.runtime;
  std::vector<std::pair<std::uint64_t, PeId>> moves;
  pup::unpack(message.payload, moves);
  for (const auto& [linear, to] : moves) {
    const ElementKey key{message.collection, linear};
    auto found = pe.elements.find(key);
    if (found == pe.elements.end()) {
      throw std::logic_error("migrate: element " + std::to_string(linear) + " is not on PE " +
                             std::to_string(pe.id));
    }
    const auto from = Clock::now();
    ElementBase& element = *found->second;
    Arrival arrival{linear, ++ElementAccess::migrations(element),
                    ElementAccess::reductions(element), pup::pack(element)};
    const std::uint32_t migrations = arrival.migrations;
    pe.stats.migrated_bytes += arrival.state.size();
    std::vector<std::byte> payload = pup::pack(arrival);
    ++pe.stats.migrations;
    pe.elements.erase(found);
    pe.locations[key] = {to, migrations};
    if (state.timeline) {
      state.timeline->complete(pe.id, trace::Category::migration, "migrate out", from, Clock::now(),
                               std::to_string(linear));
    }
    post_system(state, to, Kind::migrate_in, message.collection, linear, std::move(payload));
  }
}

void migrate_in(PeState& pe, const Message& message) {
  RuntimeState& state = *pe.runtime;
  const auto from = Clock::now();
  Arrival arrival;
  pup::unpack(message.payload, arrival);
  const std::uint64_t linear = arrival.linear;
  const std::uint32_t migrations = arrival.migrations;
  const CollectionInfo& info = state.collection(message.collection);
  std::unique_ptr<ElementBase> element = construct(pe, info, linear, false);
  pup::unpack(arrival.state, *element);
  ElementAccess::migrations(*element) = migrations;
  ElementAccess::reductions(*element) = arrival.reductions;
  const ElementKey key{message.collection, linear};
  pe.locations[key] = {pe.id, migrations};
  install(pe, key, std::move(element));
  const PeId home = info.home[linear];
  if (home != pe.id) {
    Location here{pe.id, migrations};
    post_system(state, home, Kind::location, key.collection, linear, pup::pack(here));
  }
  if (state.timeline) {
    state.timeline->complete(pe.id, trace::Category::migration, "migrate in", from, Clock::now(),
                             std::to_string(linear));
  }
  post_system(state, 0, Kind::migrated, key.collection, linear, {});
}

}  // namespace vela::rt::detail
