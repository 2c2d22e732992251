// Dynamic collections at the root: insertions admitted (or deferred until the index's element
// has left), departures recorded, and broadcasts fanned out to the elements present
// (services/membership.hpp states the invariants).
#include "services/membership.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/runtime_state.hpp"

namespace vela::rt::detail {

namespace {

// Index `linear` gets a new element: counted, numbered, and ordered built on its PE.
void admit(RuntimeState& state, CollectionInfo& info, std::uint64_t linear,
           const InsertRequest& request) {
  Membership& m = info.membership;
  if (info.lb.at_point) {
    m.after_point.emplace_back(linear, request);
    return;
  }
  m.present[linear] = 1;
  ++m.live;
  // Its first contribution goes to the oldest reduction not yet complete (or the next one).
  const std::uint32_t first =
      info.reductions.empty() ? m.next_reduction : info.reductions.begin()->first;
  m.reduction_delta[first] += 1;
  const ConstructOrder order{++m.incarnation[linear], first, request.factory, request.arguments};
  const PeId to = request.pe >= 0 ? request.pe : info.home[linear];
  post_system(state, to, Kind::construct, info.id, linear, pup::pack(order));
}

std::string where(const CollectionInfo& info, std::uint64_t linear) {
  return "collection " + info.name + ": element " +
         to_string(info.shape.at(linear), info.shape.dims);
}

}  // namespace

void init_membership(CollectionInfo& info) {
  if (!info.dynamic) return;
  const std::uint64_t n = info.shape.size();
  info.membership.present.assign(n, 0);
  info.membership.incarnation.assign(n, 0);
}

std::uint64_t members(const CollectionInfo& info) {
  return info.dynamic ? info.membership.live : info.shape.size();
}

std::uint64_t expected_contributions(const CollectionInfo& info, std::uint32_t number) {
  if (!info.dynamic) return info.shape.size();
  std::int64_t sum = 0;
  for (const auto& [first, delta] : info.membership.reduction_delta) {
    if (first > number) break;
    sum += delta;
  }
  return static_cast<std::uint64_t>(std::max<std::int64_t>(sum, 0));
}

void restore_membership(CollectionInfo& info, const std::vector<SavedElement>& saved) {
  if (!info.dynamic) return;
  Membership& m = info.membership;
  for (const SavedElement& e : saved) {
    m.present[e.linear] = 1;
    ++m.live;
    m.reduction_delta[e.reductions] += 1;
    m.next_reduction = std::max(m.next_reduction, e.reductions);
  }
}

std::vector<std::uint64_t> member_indices(const CollectionInfo& info) {
  std::vector<std::uint64_t> out;
  if (!info.dynamic) {
    out.resize(info.shape.size());
    for (std::uint64_t i = 0; i < out.size(); ++i) out[i] = i;
    return out;
  }
  out.reserve(info.membership.live);
  for (std::uint64_t i = 0; i < info.membership.present.size(); ++i) {
    if (info.membership.present[i] != 0) out.push_back(i);
  }
  return out;
}

void admit_after_point(RuntimeState& state, CollectionInfo& info) {
  if (!info.dynamic) return;
  for (const auto& [linear, request] : std::exchange(info.membership.after_point, {})) {
    admit(state, info, linear, request);
  }
}

void check_membership_at_end(RuntimeState& state) {
  const std::size_t count = state.collection_count.load(std::memory_order_acquire);
  for (std::size_t c = 0; c < count; ++c) {
    const CollectionInfo& info = *state.collections[c];
    if (!info.dynamic || info.membership.deferred.empty()) continue;
    const std::uint64_t linear = info.membership.deferred.begin()->first;
    throw std::runtime_error(where(info, linear) +
                             " was inserted while the element there still existed, and that "
                             "one was never destroyed (insert at an index after its element "
                             "called destroy())");
  }
}

void on_insert(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  CollectionInfo& info = state.collection(message.collection);
  InsertRequest request;
  pup::unpack(message.payload(), request);
  Membership& m = info.membership;
  const std::uint64_t linear = message.element;
  if (m.present[linear] == 0) {
    admit(state, info, linear, request);
    return;
  }
  // The element there may have called destroy() with its departure still on the way.
  if (!m.deferred.emplace(linear, std::move(request)).second) {
    throw std::logic_error(where(info, linear) +
                           " inserted twice while the element there still exists");
  }
}

void on_member_left(PeState& pe, Message& message) {
  RuntimeState& state = *pe.runtime;
  CollectionInfo& info = state.collection(message.collection);
  std::uint32_t reductions = 0;
  pup::unpack(message.payload(), reductions);
  Membership& m = info.membership;
  const std::uint64_t linear = message.element;
  m.present[linear] = 0;
  --m.live;
  m.reduction_delta[reductions] -= 1;
  const auto waiting = m.deferred.find(linear);
  if (waiting != m.deferred.end()) {
    const InsertRequest request = std::move(waiting->second);
    m.deferred.erase(waiting);
    admit(state, info, linear, request);
  }
  // Reductions and a sync point that waited only for it are complete now.
  finish_complete_reductions(state, info);
  sync_point_if_complete(pe, info);
}

void on_broadcast(PeState& pe, Message& message) {
  const CollectionInfo& info = pe.runtime->collection(message.collection);
  BroadcastRequest request;
  pup::unpack(message.payload(), request);
  for (const std::uint64_t linear : member_indices(info)) {
    send_packed_entry(info.id, linear, request.handler, request.priority, request.arguments, true);
  }
}

}  // namespace vela::rt::detail
