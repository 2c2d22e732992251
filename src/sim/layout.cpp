// The simulation's inputs that do not need SimGrid: the trace's communication graph as epochs
// and the order of the platform's hosts (engine.hpp). O(objects + edges) per epoch.
#include <cctype>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine.hpp"

namespace vela::sim::detail {

bool host_name_less(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      std::size_t ei = i;
      std::size_t ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei])) != 0) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej])) != 0) ++ej;
      // Leading zeros aside, the longer run of digits is the larger number.
      std::string_view na(a.data() + i, ei - i);
      std::string_view nb(b.data() + j, ej - j);
      while (na.size() > 1 && na.front() == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb.front() == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if ((a.size() - i) != (b.size() - j)) return (a.size() - i) < (b.size() - j);
  return a < b;
}

namespace {

Epoch make_epoch(std::size_t first, std::size_t objects) {
  Epoch e;
  e.first = first;
  e.out.resize(objects);
  e.in_degree.assign(objects, 0);
  e.in_same_step.assign(objects, 0);
  return e;
}

void add_out(Epoch& e, const std::vector<std::uint8_t>& phases, std::uint32_t from,
             std::uint32_t to, std::uint64_t bytes) {
  const bool same_step = !phases.empty() && phases[from] < phases[to];
  e.out[from].push_back({to, bytes, same_step});
  ++(same_step ? e.in_same_step : e.in_degree)[to];
}

}  // namespace

std::vector<Epoch> epochs_of(const lb::Trace& trace, const std::vector<std::uint8_t>& phases) {
  const std::size_t n = trace.initial.objects.size();
  std::unordered_map<lb::ObjectId, std::uint32_t> position;
  position.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    position.emplace(trace.initial.objects[i].id, static_cast<std::uint32_t>(i));
  }
  std::vector<Epoch> epochs;
  epochs.push_back(make_epoch(0, n));
  for (const lb::Edge& edge : trace.initial.edges)
    add_out(epochs.back(), phases, edge.from, edge.to, edge.bytes);
  for (std::size_t s = 0; s < trace.steps.size(); ++s) {
    if (!trace.steps[s].replaces_edges) continue;
    if (s == 0) epochs.clear();
    epochs.push_back(make_epoch(s, n));
    for (const lb::TraceEdge& edge : trace.steps[s].edges) {
      add_out(epochs.back(), phases, position.at(edge.from), position.at(edge.to), edge.bytes);
    }
  }
  return epochs;
}

}  // namespace vela::sim::detail
