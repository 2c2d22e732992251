// The trace model's rules (validate) and the cursor that replays a trace step by step.
#include "vela/lb/trace/trace.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "io_common.hpp"

namespace vela::lb {

using trace_detail::show;

namespace {

constexpr std::int64_t alive = -1;

std::string step_name(std::size_t s) {
  return "step " + std::to_string(s);
}

// What became of an id that is not alive, for messages.
std::string fate_text(std::int64_t deleted_at) {
  return "was deleted at step " + std::to_string(deleted_at);
}

void check_created(const Instance& initial, std::size_t s, std::size_t k, const Object& o) {
  const auto name = [&] {
    return step_name(s) + ": created[" + std::to_string(k) + "] (id " + std::to_string(o.id) + ")";
  };
  const auto pes = static_cast<PeId>(initial.pes.size());
  if (o.pe < 0 || o.pe >= pes) {
    throw TraceError(name() + ": PE " + std::to_string(o.pe) + " does not exist (the trace has " +
                     std::to_string(pes) + " PEs)");
  }
  for (int d = 0; d < initial.dims; ++d) {
    if (!std::isfinite(o.coords[static_cast<std::size_t>(d)])) {
      throw TraceError(name() + ": coordinate " + std::to_string(d) + " is not finite");
    }
  }
}

}  // namespace

void validate(const Trace& trace) {
  try {
    validate(trace.initial);
  } catch (const InstanceError& e) {
    throw TraceError(std::string("initial instance: ") + e.what());
  }
  if (!trace.initial.hyperedges.empty()) {
    throw TraceError("initial instance: has " + std::to_string(trace.initial.hyperedges.size()) +
                     " hyperedges; traces carry none (docs/trace-format.md)");
  }
  // fate[id]: `alive`, or the step at which the object was deleted.
  std::unordered_map<ObjectId, std::int64_t> fate;
  std::vector<ObjectId> order;  // alive ids in alive order
  fate.reserve(trace.initial.objects.size());
  for (const Object& o : trace.initial.objects) {
    fate.emplace(o.id, alive);
    order.push_back(o.id);
  }
  for (std::size_t s = 0; s < trace.steps.size(); ++s) {
    const TraceStep& step = trace.steps[s];
    for (std::size_t k = 0; k < step.deleted.size(); ++k) {
      const ObjectId id = step.deleted[k];
      const auto it = fate.find(id);
      const std::string name =
          step_name(s) + ": deleted[" + std::to_string(k) + "]: object id " + std::to_string(id);
      if (it == fate.end()) throw TraceError(name + " does not exist");
      if (it->second != alive)
        throw TraceError(name + " is not alive: it " + fate_text(it->second));
      it->second = static_cast<std::int64_t>(s);
    }
    if (!step.deleted.empty()) {
      std::erase_if(order, [&](ObjectId id) { return fate.find(id)->second != alive; });
    }
    for (std::size_t k = 0; k < step.created.size(); ++k) {
      const Object& o = step.created[k];
      const auto [it, fresh] = fate.emplace(o.id, alive);
      if (!fresh) {
        throw TraceError(step_name(s) + ": created[" + std::to_string(k) + "]: object id " +
                         std::to_string(o.id) + " was used before" +
                         (it->second == alive
                              ? " and is alive"
                              : " (it " + fate_text(it->second) + "); ids are never reused"));
      }
      check_created(trace.initial, s, k, o);
      order.push_back(o.id);
    }
    if (step.replaces_edges) {
      for (std::size_t k = 0; k < step.edges.size(); ++k) {
        const TraceEdge& e = step.edges[k];
        for (const auto& [end, id] : {std::pair{"from", e.from}, std::pair{"to", e.to}}) {
          const auto it = fate.find(id);
          if (it != fate.end() && it->second == alive) continue;
          throw TraceError(
              step_name(s) + ": edges[" + std::to_string(k) + "]: " + end + " object id " +
              std::to_string(id) + " is not alive" +
              (it == fate.end() ? " (no such object)" : ": it " + fate_text(it->second)));
        }
      }
    } else if (!step.edges.empty()) {
      throw TraceError(step_name(s) + ": has " + std::to_string(step.edges.size()) +
                       " edges but does not replace the edges (replaces_edges is false)");
    }
    if (step.loads.size() != order.size()) {
      throw TraceError(step_name(s) + ": has " + std::to_string(step.loads.size()) + " loads for " +
                       std::to_string(order.size()) + " alive objects");
    }
    for (std::size_t i = 0; i < step.loads.size(); ++i) {
      const double load = step.loads[i];
      if (!std::isfinite(load) || load < 0.0) {
        throw TraceError(step_name(s) + ": loads[" + std::to_string(i) + "] (object id " +
                         std::to_string(order[i]) + "): " + show(load) +
                         " must be a finite number >= 0");
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------

TraceCursor::TraceCursor(const Trace& trace) : trace_(&trace), instance_(trace.initial) {
  instance_.hyperedges.clear();
  const auto& objects = instance_.objects;
  slot_.reserve(objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const auto slot = static_cast<std::uint32_t>(i);
    if (!slot_.emplace(objects[i].id, slot).second) {
      throw TraceError("initial instance: object id " + std::to_string(objects[i].id) +
                       " appears twice");
    }
    slots_.push_back(slot);
    position_of_slot_.push_back(slot);
  }
  edges_.reserve(instance_.edges.size());
  for (const Edge& e : instance_.edges) {
    if (e.from >= objects.size() || e.to >= objects.size()) {
      throw TraceError("initial instance: an edge names object index " +
                       std::to_string(std::max(e.from, e.to)) + ", out of range");
    }
    edges_.push_back({objects[e.from].id, objects[e.to].id, e.messages, e.bytes});
  }
}

std::uint32_t TraceCursor::position(ObjectId id) const {
  const auto it = slot_.find(id);
  return it == slot_.end() ? dead : position_of_slot_[it->second];
}

void TraceCursor::remove(const TraceStep& step) {
  auto& objects = instance_.objects;
  const std::size_t n = objects.size();
  std::vector<std::uint32_t> moved_to(n);  // new position, or dead
  std::size_t first = n;
  for (std::size_t i = 0; i < n; ++i) moved_to[i] = static_cast<std::uint32_t>(i);
  for (const ObjectId id : step.deleted) {
    const std::uint32_t at = position(id);
    if (at == dead || moved_to[at] == dead) {
      throw TraceError(step_name(done_) + ": deletes object id " + std::to_string(id) +
                       ", which is not alive");
    }
    moved_to[at] = dead;
    first = std::min<std::size_t>(first, at);
  }
  std::size_t kept = first;
  for (std::size_t i = first; i < n; ++i) {
    if (moved_to[i] == dead) {
      slot_.erase(objects[i].id);
      position_of_slot_[slots_[i]] = dead;
      continue;
    }
    moved_to[i] = static_cast<std::uint32_t>(kept);
    objects[kept] = objects[i];
    slots_[kept] = slots_[i];
    position_of_slot_[slots_[kept]] = static_cast<std::uint32_t>(kept);
    ++kept;
  }
  objects.resize(kept);
  slots_.resize(kept);
  if (step.replaces_edges) return;  // replaced below anyway
  std::size_t kept_edges = 0;
  for (std::size_t k = 0; k < edges_.size(); ++k) {
    const Edge e = instance_.edges[k];
    if (moved_to[e.from] == dead || moved_to[e.to] == dead) continue;
    instance_.edges[kept_edges] = {moved_to[e.from], moved_to[e.to], e.messages, e.bytes};
    edges_[kept_edges] = edges_[k];
    ++kept_edges;
  }
  instance_.edges.resize(kept_edges);
  edges_.resize(kept_edges);
}

void TraceCursor::replace_edges(const std::vector<TraceEdge>& edges) {
  std::vector<Edge> by_position;
  by_position.reserve(edges.size());
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const TraceEdge& e = edges[k];
    const std::uint32_t from = position(e.from);
    const std::uint32_t to = position(e.to);
    if (from == dead || to == dead) {
      throw TraceError(step_name(done_) + ": edges[" + std::to_string(k) + "]: object id " +
                       std::to_string(from == dead ? e.from : e.to) + " is not alive");
    }
    by_position.push_back({from, to, e.messages, e.bytes});
  }
  instance_.edges = std::move(by_position);
  edges_ = edges;
}

bool TraceCursor::next() {
  if (done_ == trace_->steps.size()) return false;
  const TraceStep& step = trace_->steps[done_];
  auto& objects = instance_.objects;
  if (!step.deleted.empty()) remove(step);
  for (const Object& o : step.created) {
    const auto slot = static_cast<std::uint32_t>(position_of_slot_.size());
    if (!slot_.emplace(o.id, slot).second) {
      throw TraceError(step_name(done_) + ": creates object id " + std::to_string(o.id) +
                       ", which is alive");
    }
    position_of_slot_.push_back(static_cast<std::uint32_t>(objects.size()));
    slots_.push_back(slot);
    objects.push_back(o);
  }
  if (step.loads.size() != objects.size()) {
    throw TraceError(step_name(done_) + ": has " + std::to_string(step.loads.size()) +
                     " loads for " + std::to_string(objects.size()) + " alive objects");
  }
  for (std::size_t i = 0; i < objects.size(); ++i) objects[i].load = step.loads[i];
  if (step.replaces_edges) replace_edges(step.edges);
  ++done_;
  return true;
}

void TraceCursor::assign(const Assignment& assignment) {
  validate(instance_, assignment);
  for (std::size_t i = 0; i < instance_.objects.size(); ++i) {
    instance_.objects[i].pe = assignment.pe[i];
  }
}

std::size_t TraceCursor::assign_by_id(const std::vector<std::pair<ObjectId, PeId>>& placement) {
  const auto pes = static_cast<PeId>(instance_.pes.size());
  for (const auto& [id, pe] : placement) {
    if (pe < 0 || pe >= pes) {
      throw InstanceError("placement: object id " + std::to_string(id) + " goes to PE " +
                          std::to_string(pe) + ", which does not exist (" + std::to_string(pes) +
                          " PEs)");
    }
  }
  // An id named twice counts once: compare each touched object's final PE with its first.
  std::vector<std::pair<std::uint32_t, PeId>> before;
  before.reserve(placement.size());
  for (const auto& [id, pe] : placement) {
    const std::uint32_t at = position(id);
    if (at == dead) continue;
    Object& o = instance_.objects[at];
    before.emplace_back(at, o.pe);
    o.pe = pe;
  }
  std::stable_sort(before.begin(), before.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t moved = 0;
  for (std::size_t k = 0; k < before.size(); ++k) {
    if (k > 0 && before[k].first == before[k - 1].first) continue;  // first touch kept
    if (instance_.objects[before[k].first].pe != before[k].second) ++moved;
  }
  return moved;
}

}  // namespace vela::lb
