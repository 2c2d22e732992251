#include "vela/rt/element.hpp"

#include <cmath>
#include <cstring>
#include <utility>

#include "core/runtime_state.hpp"

namespace vela::rt {

namespace detail {

void CommTable::count_slow(std::uint64_t to, std::uint64_t bytes) {
  std::uint32_t at = 0;
  if (!positions_.empty()) {
    const auto found = positions_.find(to);
    if (found != positions_.end()) at = found->second + 1;
  } else {
    for (std::size_t i = 0; i < edges_.size(); ++i) {
      if (edges_[i].to == to) {
        at = static_cast<std::uint32_t>(i + 1);
        break;
      }
    }
  }
  if (at == 0) {
    edges_.push_back({to, 0, 0});
    at = static_cast<std::uint32_t>(edges_.size());
    // Past a few destinations a scan costs more than a hash lookup (which only misses of the
    // direct-mapped slot pay).
    if (!positions_.empty()) {
      positions_.emplace(to, at - 1);
    } else if (edges_.size() > 16) {
      for (std::size_t i = 0; i < edges_.size(); ++i) {
        positions_.emplace(edges_[i].to, static_cast<std::uint32_t>(i));
      }
    }
  }
  recent_[to % recent_.size()] = at;
  ++edges_[at - 1].messages;
  edges_[at - 1].bytes += bytes;
}

void CommTable::clear() {
  edges_.clear();
  positions_.clear();
  recent_.fill(0);
}

void CommTable::merge(const std::vector<Edge>& edges) {
  for (const Edge& e : edges) {
    if (e.messages == 0) continue;
    count(e.to, e.bytes);
    // count() added one message; make it the edge's count.
    const std::uint32_t at = recent_[e.to % recent_.size()];
    edges_[at - 1].messages += e.messages - 1;
  }
}

namespace {

[[noreturn]] void fail_off_pe() {
  throw std::logic_error("send: only main and entry methods, on a PE, can do this");
}

[[noreturn]] void fail_outside(std::uint64_t linear, CollectionId collection) {
  throw std::out_of_range("send: element " + std::to_string(linear) + " is outside collection " +
                          std::to_string(collection));
}

// Where element `linear` (its slot in `pe`'s table) was last known to be.
PeId destination(const PeState& pe, CollectionId collection, std::uint64_t linear,
                 const Slot& slot) {
  return slot.element != nullptr ? pe.id
         : slot.location.pe >= 0 ? slot.location.pe
                                 : pe.runtime->collection(collection).home[linear];
}

// The running element, when the message is counted in its communication graph (the runtime
// measures, and it is of the same collection), else null.
ElementBase* counting_sender(const PeState& pe, CollectionId collection) {
  ElementBase* from = pe.current;
  if (!pe.runtime->options.instrument || from == nullptr ||
      ElementAccess::collection(*from) != collection) {
    return nullptr;
  }
  return from;
}

// Sends `m`, its arguments at `args`, to element `linear` of `collection` (within `table`):
// counted in the sender's communication graph, addressed to where the element was last known
// to be.
void post_entry(PeState& pe, CollectionTable& table, Message* m, void* args,
                CollectionId collection, std::uint64_t linear, HandlerId handler, int priority) {
  m->collection = collection;
  m->element = linear;
  m->handler = handler;
  m->priority = priority;
  if (ElementBase* from = counting_sender(pe, collection)) {
    m->sender = static_cast<std::int64_t>(ElementAccess::linear(*from));
    ElementAccess::comm(*from).count(linear, m->ops->packed_size(args));
  }
  ++table.sent;
  post(*pe.runtime, destination(pe, collection, linear, table.slots[linear]), m);
}

// send_small_entry's way onto a ring: element `linear`, not on `pe`, lives on another PE of
// this process. False, having sent nothing, when it is elsewhere, the ring is full or holds
// messages waiting for room, or the header's fields do not fit (PeRing::Compact).
bool send_on_ring(PeState& pe, CollectionTable& table, const ArgsOps& ops, const std::byte* args,
                  CollectionId collection, std::uint64_t linear, HandlerId handler, int priority) {
  RuntimeState& state = *pe.runtime;
  if (state.topology.clusters > 1) return false;  // the delay device's way
  const PeId to = destination(pe, collection, linear, table.slots[linear]);
  const auto local = static_cast<std::size_t>(to - state.layout.first_pe);
  if (local >= state.pe.size() || state.pe[local].get() == &pe) return false;
  ElementBase* from = counting_sender(pe, collection);
  const std::int64_t sender =
      from != nullptr ? static_cast<std::int64_t>(ElementAccess::linear(*from)) : -1;
  PeRing::Compact h;
  if (!PeRing::compact_fields(h, linear, sender, collection, handler, pe.id, priority))
    return false;
  h.size = static_cast<std::uint8_t>(ops.size);
  h.flags = PeRing::compact_raw;
  // Counted as sent before the receiver can see it (quiescence: core/idle.cpp), as post() does.
  const std::uint64_t sent = pe.sent.load(std::memory_order_relaxed);
  pe.sent.store(sent + 1, std::memory_order_relaxed);
  if (!post_compact_on_ring(pe, *state.pe[local], h, args)) {
    pe.sent.store(sent, std::memory_order_relaxed);  // not sent: the usual way counts it
    return false;
  }
  if (from != nullptr) {
    ElementAccess::comm(*from).count(linear, ops.packed_size(const_cast<std::byte*>(args)));
  }
  ++table.sent;
  return true;
}

}  // namespace

void send_entry_message(const Outgoing& out, CollectionId collection, std::uint64_t linear,
                        HandlerId handler, int priority) {
  Message* m = out.message;
  PeState* pe = this_pe();
  if (pe == nullptr) [[unlikely]] {
    free_message(m);
    fail_off_pe();
  }
  try {
    CollectionTable& table = pe->table(collection);
    if (linear >= table.slots.size()) fail_outside(linear, collection);
    post_entry(*pe, table, m, out.args, collection, linear, handler, priority);
  } catch (...) {
    free_message(m);
    throw;
  }
}

void send_small_entry(const ArgsOps& ops, std::byte* args, CollectionId collection,
                      std::uint64_t linear, HandlerId handler, int priority) {
  PeState* pe = this_pe();
  if (pe == nullptr) [[unlikely]] {
    ops.destroy(args);
    fail_off_pe();
  }
  CollectionTable& table = pe->table(collection);
  if (linear >= table.slots.size()) [[unlikely]] {
    ops.destroy(args);
    fail_outside(linear, collection);
  }
  if (table.slots[linear].element == nullptr &&
      send_on_ring(*pe, table, ops, args, collection, linear, handler, priority)) {
    return;
  }
  // A message of their own, the arguments moved into it as their bytes.
  Outgoing out{};
  try {
    out = new_entry_message(ops, ops.size, ops.align);
  } catch (...) {
    ops.destroy(args);
    throw;
  }
  // Inline (ops.size <= compact_args_bytes): copied whole, a fixed-size copy the compiler
  // inlines (one of ops.size bytes is a call to memcpy).
  static_assert(compact_args_bytes <= Message::inline_bytes);
  std::memcpy(out.args, args, compact_args_bytes);
  try {
    post_entry(*pe, table, out.message, out.args, collection, linear, handler, priority);
  } catch (...) {
    free_message(out.message);
    throw;
  }
}

ElementBase* local_send(CollectionId collection, std::uint64_t linear, std::size_t bytes) {
  PeState* pe = this_pe();
  if (pe == nullptr) return nullptr;
  const CollectionTable& table = pe->table(collection);
  ElementBase* to = linear < table.slots.size() ? table.slots[linear].element : nullptr;
  if (to == nullptr || ElementAccess::destroying(*to)) return nullptr;
  ElementBase* from = pe->current;
  if (pe->runtime->options.instrument && from != nullptr &&
      ElementAccess::collection(*from) == collection) {
    ElementAccess::comm(*from).count(linear, bytes);
  }
  return to;
}

Ticks continue_at(PeState& pe, ElementBase& to, const char* name, Ticks now) {
  const RuntimeState& state = *pe.runtime;
  ElementBase& from = *pe.current;
  pe.current = &to;
  if (!measures_segments(pe)) return now;
  now = stretch(pe, pe.mark, now);
  const bool counted = !ElementAccess::unmeasured(from);
  if (counted) ElementAccess::wall_ticks(from) += now - pe.mark;
  if (state.options.measure_cpu && state.options.instrument) {
    const double cpu = thread_cpu_seconds();
    if (counted) ElementAccess::cpu_seconds(from) += cpu - pe.cpu_mark;
    pe.cpu_mark = cpu;
  }
  if (state.timeline != nullptr) [[unlikely]]
    trace_entry(pe, from, pe.entry_name, pe.mark, now);
  pe.mark = now;
  pe.entry_name = name;
  return now;
}

void continue_as(ElementBase& to, const char* name) {
  PeState* pe = this_pe();
  if (pe == nullptr || pe->current == nullptr) {
    throw std::logic_error("continue_as: only an entry method, on a PE, can hand over");
  }
  if (!measures_segments(*pe)) {
    pe->current = &to;
    return;
  }
  continue_at(*pe, to, name, tick_clock::now());
}

void send_packed_entry(CollectionId collection, std::uint64_t linear, HandlerId handler,
                       int priority, std::vector<std::byte> payload, bool broadcast) {
  Message* m = new_message();
  m->broadcast = broadcast;
  ::new (m->storage) std::vector<std::byte>(std::move(payload));
  m->ops = &packed_args;
  send_entry_message({m, m->storage}, collection, linear, handler, priority);
}

}  // namespace detail

ElementBase::ElementBase() {
  detail::fill_from_construction(*this);
}

PeId ElementBase::pe() const {
  return pe_->id;
}

PeId ElementBase::pes() const {
  return pe_->runtime->pes;
}

void ElementBase::outside(const Index& to) const {
  throw std::out_of_range("send from " + to_string(index_, shape_->dims) + ": index " +
                          to_string(to, shape_->dims) + " is outside the collection");
}

void ElementBase::refuse_after_destroy(const char* what) const {
  throw std::logic_error(std::string(what) + ": element " + to_string(index_, shape_->dims) +
                         " of collection " + pe_->runtime->collection(collection_).name +
                         " called it after destroy()");
}

void ElementBase::at_sync(SyncBalance how) {
  if (at_sync_) {
    throw std::logic_error("element " + to_string(index_, shape_->dims) + " of collection " +
                           pe_->runtime->collection(collection_).name +
                           " called at_sync() again before resume_from_sync(): once per "
                           "balancing point");
  }
  if (destroying_) refuse_after_destroy("at_sync");
  at_sync_ = true;
  // A requested move and a way of balancing travel with the element's arrival at the root;
  // neither (the usual case): nothing.
  std::vector<std::byte> request;
  if (requested_pe_ >= 0 || how != SyncBalance::as_run) {
    // Staying where it is is a request too: the strategy may not move it.
    request = pup::pack(detail::SyncArrival{pe(), requested_pe_, static_cast<std::uint8_t>(how)});
  }
  requested_pe_ = -1;
  detail::post_system(*pe_->runtime, 0, detail::Kind::at_sync, collection_, linear_,
                      std::move(request));
}

void ElementBase::destroy() {
  const detail::CollectionInfo& info = pe_->runtime->collection(collection_);
  const std::string who =
      "destroy: element " + to_string(index_, shape_->dims) + " of collection " + info.name;
  if (!info.dynamic) {
    throw std::logic_error(who + ": the collection is not dynamic (Context::create_dynamic)");
  }
  const detail::PeState* pe = detail::this_pe();
  if (pe == nullptr || pe->current != this) {
    throw std::logic_error(who + ": only one of its own entry methods can destroy it");
  }
  if (at_sync_) {
    throw std::logic_error(who +
                           ": it is at a balancing point (between at_sync() and "
                           "resume_from_sync())");
  }
  if (destroying_) throw std::logic_error(who + ": destroyed twice");
  destroying_ = true;
  // A runtime message to its own PE: it overtakes the entries queued there, so none of them
  // runs on the element after this entry.
  detail::post_system(*pe_->runtime, pe_->id, detail::Kind::destroy, collection_, linear_, {});
}

void ElementBase::request_pe(PeId pe) {
  if (pe < -1 || pe >= pes()) {
    throw std::out_of_range("request_pe: PE " + std::to_string(pe) + " is outside 0.." +
                            std::to_string(pes() - 1) + " (or -1 to withdraw)");
  }
  requested_pe_ = pe;
}

void ElementBase::declare_load(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0.0) {
    throw std::invalid_argument("declare_load: " + std::to_string(seconds) +
                                " is not a load (expected seconds, finite and not negative)");
  }
  declared_load_ = seconds;
}

void ElementBase::set_measured(bool on) {
  if (unmeasured_ == !on) return;
  // The entry's time so far is charged under the old setting, the rest under the new one.
  detail::PeState* pe = detail::this_pe();
  if (pe != nullptr && pe->current == this) detail::continue_as(*this, pe->entry_name);
  unmeasured_ = !on;
}

void ElementBase::contribute(std::vector<double> values, ReduceOp op, const Callback& callback,
                             Order order) {
  if (op == ReduceOp::custom) {
    throw std::invalid_argument("contribute: ReduceOp::custom needs a Reducer (Context::reducer)");
  }
  if (destroying_) refuse_after_destroy("contribute");
  detail::Contribution c{reductions_++, op, 0, order, callback, std::move(values)};
  detail::post_system(*pe_->runtime, 0, detail::Kind::contribution, collection_, linear_,
                      pup::pack(c));
}

void ElementBase::contribute(std::vector<double> values, const Reducer& reducer,
                             const Callback& callback, Order order) {
  if (destroying_) refuse_after_destroy("contribute");
  detail::Contribution c{reductions_++, ReduceOp::custom, reducer.id,
                         order,         callback,         std::move(values)};
  detail::post_system(*pe_->runtime, 0, detail::Kind::contribution, collection_, linear_,
                      pup::pack(c));
}

std::string to_string(const Index& index, int dims) {
  std::string s = "(" + std::to_string(index.x);
  if (dims >= 2) s += "," + std::to_string(index.y);
  if (dims >= 3) s += "," + std::to_string(index.z);
  return s + ")";
}

}  // namespace vela::rt
