// Arrivals from other processes into the PEs' inboxes: a data message's bytes (packed
// arguments, then its wire header) become a runtime message, which goes to the inbox of the PE
// it is for; messages for a collection this process does not know yet are held until process
// 0's description of it arrives (learn_collection, in publish.cpp).
//
// Invariants: only the progress-maker calls it (it owns `held`). Every message names its
// collection, runtime ones too; collections are described in id order by process 0 alone, so
// a description is never overtaken by a later one. A message whose PE is not this process's
// (a mismatched binary) is dropped.
//
// Costs, per arrival: a pooled message block, and one copy of the arguments when they come in
// a ring record: into the block itself when they fit there (up to InlineBytes::capacity, no
// allocation), else into a buffer of their own. An arrival by MPI keeps its receive buffer.
#pragma once

#include <cstring>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "core/runtime_state.hpp"
#include "wire_header.hpp"

namespace vela::rt::detail::mpi_transport {

struct Router {
  RuntimeState& state;
  // Data for collections this process does not know yet (their description from process 0
  // can be overtaken by a message from a third process).
  std::map<CollectionId, std::vector<std::pair<Message*, PeId>>> held;  // with the local PE

  explicit Router(RuntimeState& s) : state(s) {}

  // A data message in a buffer of its own (router.cpp): the buffer becomes its arguments.
  void deliver(std::vector<std::byte> bytes);
  // A data message received into an unzeroed buffer (large ones: no pass to zero it first).
  void deliver(RawBytes raw);

  // A data message in a ring record: its arguments copied into the message itself when they fit
  // there (no allocation), else into a buffer of their own.
  void deliver_record(std::span<const std::byte> bytes) {
    WireHeader h;
    std::size_t args = 0;
    if (!read_header(bytes, h, args)) return;
    if (args > InlineBytes::capacity) {
      deliver(std::vector<std::byte>(bytes.begin(), bytes.end()));
      return;
    }
    Message* m = header_message(h);
    set_inline_args(*m, bytes.data(), args);
    route(m, h);
  }

  static Message* header_message(const WireHeader& h) {
    Message* m = new_message();
    set_header(m, h);
    return m;
  }

  static void set_header(Message* m, const WireHeader& h) {
    m->kind = static_cast<Kind>(h.kind);
    set_address(*m, h);
    m->hops = h.hops;
    m->wan = h.wan != 0;
    m->broadcast = h.broadcast != 0;
  }

  // To the inbox of the PE it is for (held while its collection is not known here).
  void route(Message* m, const WireHeader& h) {
    const PeId local = h.to - state.layout.first_pe;
    if (local < 0 || local >= state.layout.local_pes) {  // not ours: a mismatched binary
      free_message(m);
      return;
    }
    // Every message names its collection (runtime ones too); one this process does not know
    // yet waits for its description.
    if (m->collection >= state.collection_count.load(std::memory_order_acquire)) {
      held[m->collection].emplace_back(m, local);
      return;
    }
    state.pe[static_cast<std::size_t>(local)]->inbox.push(m);
  }

  // A collection's description from process 0 (publish.cpp): the collection becomes known here
  // and the messages held for it go to their PEs.
  void learn_collection(const std::vector<std::byte>& bytes);

  // Closing: what is still held is freed.
  void free_held() {
    for (auto& [id, messages] : held) {
      for (auto [m, local] : messages) free_message(m);
    }
    held.clear();
  }
};

}  // namespace vela::rt::detail::mpi_transport
