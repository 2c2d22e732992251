// The PE rings (core/pe_ring.hpp): an entry message from one PE of a process to another goes on
// the ring of that ordered pair, made by the sender at its first message. When the ring is full
// the message waits in the sender's held list for that PE, and so do all later ones until the
// list is empty again (the pair's order holds); the sender puts them in as the receiver takes,
// at each message it sends and at each turn of its scheduler and of its idle loop, which does
// not sleep while it holds any.
//
// A sender whose receiver may be asleep wakes it: the receiver says it sleeps (Inbox::park),
// then looks at its rings once more; the sender writes its slot, then looks whether the
// receiver sleeps. The four are sequentially consistent operations: at least one of the two
// sees the other's write.
//
// Costs: per message O(1) and a 112-byte copy at each end; a held one costs a look at the ring's
// room at each later send to its PE. A receiver's look at its rings reads each ring's next slot
// (its lines stay in the receiver's cache until the sender writes them).
#include "core/runtime_state.hpp"

namespace vela::rt::detail {

static_assert(PeRing::compact_bytes == compact_args_bytes);

namespace {

std::size_t local_index(const PeState& pe) {
  return static_cast<std::size_t>(pe.id - pe.runtime->layout.first_pe);
}

// Whether the message's arguments may move as their bytes (then the ring carries its image).
bool by_value(const Message& m) {
  return m.ops == nullptr || m.args_on_heap || packed(m.ops) || m.ops == &call_args ||
         m.ops->relocatable;
}

PeRing& ring_to(PeState& from, PeState& to) {
  std::unique_ptr<PeRing>& ring = from.rings_to[local_index(to)];
  if (ring == nullptr) [[unlikely]] {
    ring = std::make_unique<PeRing>(ring_slots(from.rings_to.size()));
    to.rings_in[local_index(from)].store(ring.get(), std::memory_order_release);
    to.rings_made.fetch_add(1, std::memory_order_release);
  }
  return *ring;
}

// The compact form of `m` (core/pe_ring.hpp) when it is an entry message with typed arguments
// that fit a compact slot (their bytes when they may move as such, else packed) and header
// fields that fit its narrower ones.
bool compact_header(Message& m, PeRing::Compact& h) {
  const ArgsOps* ops = m.ops;
  if (m.kind != Kind::entry || ops == nullptr || packed(ops) || ops == &call_args || m.hops != 0 ||
      m.wan ||
      !PeRing::compact_fields(h, m.element, m.sender, m.collection, m.handler, m.origin,
                              m.priority)) {
    return false;
  }
  std::uint8_t flags = m.broadcast ? PeRing::compact_broadcast : 0;
  std::size_t size = ops->size;
  if (ops->relocatable && size <= PeRing::compact_bytes && ops->align <= 8 && !m.args_on_heap &&
      handler_ops(m.handler) == ops) {
    flags |= PeRing::compact_raw;
  } else {
    size = ops->packed_size(m.args());
    if (size > PeRing::compact_bytes) return false;
  }
  h.size = static_cast<std::uint8_t>(size);
  h.flags = flags;
  return true;
}

bool put(PeRing& ring, Message* m) {
  PeRing::Compact header;
  if (compact_header(*m, header)) {
    if ((header.flags & PeRing::compact_raw) != 0) {
      if (!ring.put_compact(header, static_cast<const std::byte*>(m->args()))) return false;
      forget_message(m);  // its arguments' bytes moved
      return true;
    }
    // Packed before the ring is touched: a throw leaves it as it was.
    std::byte args[PeRing::compact_bytes];
    m->ops->pack_to(m->args(), {args, header.size});
    if (!ring.put_compact(header, args)) return false;
    free_message(m);  // its arguments went packed: destroyed here, as after a send elsewhere
    return true;
  }
  const bool image = by_value(*m);
  if (!ring.put(m, image)) return false;
  if (image) forget_message(m);
  return true;
}

void wake_if_asleep(PeState& to) {
  if (to.inbox.asleep()) to.inbox.wake();
}

// The rings other PEs made to `pe` since it last looked.
void look_for_rings(PeState& pe) {
  const std::uint32_t made = pe.rings_made.load(std::memory_order_acquire);
  if (made == pe.rings_from.size()) [[likely]]
    return;
  pe.rings_from.clear();
  const std::size_t pes = pe.runtime->pe.size();
  for (std::size_t p = 0; p < pes; ++p) {
    if (PeRing* ring = pe.rings_in[p].load(std::memory_order_acquire))
      pe.rings_from.push_back(ring);
  }
  // A ring made meanwhile is found here or, its count not yet seen, at the next look: the
  // count then differs from the rings found.
}

// Puts what `from` holds for local PE `p` into their ring while it has room; true when the
// list is empty after.
bool flush_pair(PeState& from, std::size_t p) {
  MessageList& held = from.held[p];
  PeRing& ring = *from.rings_to[p];
  bool moved = false;
  while (!held.empty()) {
    // Unlinked before the put: a message that goes in as its image is forgotten there.
    Message* m = held.first;
    Message* after = m->next;
    if (!put(ring, m)) break;
    held.first = after;
    if (after == nullptr) held.last = nullptr;
    moved = true;
  }
  if (moved) wake_if_asleep(*from.runtime->pe[p]);
  if (!held.empty()) return false;
  --from.holding;
  return true;
}

}  // namespace

void prepare_rings(PeState& pe, std::size_t pes) {
  pe.rings_in = std::make_unique<std::atomic<PeRing*>[]>(pes);
  for (std::size_t p = 0; p < pes; ++p) pe.rings_in[p].store(nullptr, std::memory_order_relaxed);
  pe.rings_to.clear();
  pe.rings_to.resize(pes);
  pe.held.assign(pes, MessageList{});
}

void post_on_ring(PeState& from, PeState& to, Message* message) {
  const std::size_t p = local_index(to);
  PeRing& ring = ring_to(from, to);
  // Behind what waits already: as much of it as fits goes in first (the receiver may have made
  // room), so that a stream keeps the ring full while the receiver takes from it.
  if (from.held[p].empty() || flush_pair(from, p)) [[likely]] {
    if (put(ring, message)) {
      wake_if_asleep(to);
      return;
    }
    ++from.holding;
  }
  from.held[p].push(message);
}

bool post_compact_on_ring(PeState& from, PeState& to, const PeRing::Compact& header,
                          const std::byte* args) {
  const std::size_t p = local_index(to);
  if (!from.held[p].empty() && !flush_pair(from, p)) return false;
  if (!ring_to(from, to).put_compact(header, args)) return false;
  wake_if_asleep(to);
  return true;
}

void flush_held(PeState& from) {
  const std::size_t pes = from.held.size();
  for (std::size_t p = 0; p < pes && from.holding > 0; ++p) {
    if (!from.held[p].empty()) flush_pair(from, p);
  }
}

bool rings_ready(PeState& pe) {
  look_for_rings(pe);
  for (PeRing* ring : pe.rings_from) {
    if (ring->ready()) return true;
  }
  return false;
}

std::size_t take_rings(PeState& pe, MessageList& out) {
  look_for_rings(pe);
  std::size_t taken = 0;
  for (PeRing* ring : pe.rings_from) {
    std::size_t here = 0;
    while (Message* m = ring->take(pe.pool)) {
      out.push(m);
      ++here;
    }
    if (here > 0) {
      ring->publish();
      taken += here;
    }
  }
  return taken;
}

const std::byte* first_compact(PeState& pe, PeRing*& ring) {
  look_for_rings(pe);
  for (PeRing* r : pe.rings_from) {
    if (!r->ready()) continue;
    ring = r;
    return r->next_compact();
  }
  return nullptr;
}

void took_compact(PeState& pe, PeRing& ring) {
  ring.skip();
  ring.publish();
  // Release, as in take_inbox: a PE looking for quiescence that reads this count sees the PE's
  // `passive` cleared before it.
  pe.received.store(pe.received.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

void free_ring_messages(PeState& pe) {
  MessageList left;
  take_rings(pe, left);
  while (!left.empty()) free_message(left.pop());
  for (MessageList& held : pe.held) {
    while (!held.empty()) free_message(held.pop());
  }
  pe.holding = 0;
}

}  // namespace vela::rt::detail
