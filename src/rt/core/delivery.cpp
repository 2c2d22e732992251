// Delivering an entry message on the PE that took it: to its element when it lives here, else
// parked (the element is on its way here) or forwarded to where the location manager last saw
// it (services/location.hpp); a forwarded message tells its origin PE where the element is
// now, so later messages go straight there. One array access finds the element.
#include "core/runtime_state.hpp"

namespace vela::rt::detail {

void deliver_entry(PeState& pe, Message* message, bool separate) {
  RuntimeState& state = *pe.runtime;
  CollectionTable& table = pe.table(message->collection);
  Slot& slot = table.slots[message->element];
  if (slot.element == nullptr) [[unlikely]] {
    const PeId home = state.collection(message->collection).home[message->element];
    const PeId to = slot.location.pe >= 0 ? slot.location.pe : home;
    if (to == pe.id) {
      if (message->broadcast && slot.location.pe == Location::gone) {
        // A broadcast meant for the elements there were: this one is gone.
        ++table.delivered;
        free_message(message);
        return;
      }
      // Not here yet (created or migrating in later), or destroyed (this is its home): hold it
      // until the element, or the next one inserted at its index, arrives.
      pe.locations.parked[{message->collection, message->element}].push_back(message);
      return;
    }
    ++message->hops;
    ++pe.stats.forwarded;
    post(state, to, message);
    return;
  }
  ElementBase& element = *slot.element;
  ++table.delivered;
  if (message->hops > 0 && message->origin >= 0 && message->origin != pe.id) [[unlikely]] {
    Location here{pe.id, ElementAccess::migrations(element), ElementAccess::incarnation(element)};
    post_system(state, message->origin, Kind::location, message->collection, message->element,
                pup::pack(here));
  }
  ++pe.stats.messages;
  const MessageRelease release{message};  // back to its pool whatever the method does
  if (!packed(message->ops)) [[likely]] {
    const ArgsOps& ops = *message->ops;
    void* args = message->args();
    const HandlerId handler = message->handler;
    run_entry(
        pe, element, [handler] { return handler_name(handler).c_str(); },
        [&] { ops.invoke(element, args); }, separate);
    return;
  }
  const Handler handler = detail::handler(message->handler);
  const HandlerId id = message->handler;
  run_entry(
      pe, element, [id] { return handler_name(id).c_str(); },
      [&] {
        pup::Unpacker in(message->payload());
        handler(element, in);
      },
      separate);
}

}  // namespace vela::rt::detail
