#include "vela/lb/model/instance.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_set>

namespace vela::lb {

Assignment current_assignment(const Instance& instance) {
  Assignment a;
  a.pe.reserve(instance.objects.size());
  for (const Object& o : instance.objects) a.pe.push_back(o.pe);
  return a;
}

namespace {

std::string object_name(std::size_t index, const Object& o) {
  return "object " + std::to_string(index) + " (id " + std::to_string(o.id) + ")";
}

// A one-pin hyperedge can never be cut, so it is taken for a mistake (a truncated list).
void validate_hyperedges(const Instance& instance) {
  if (instance.hyperedges.empty()) return;
  const auto n = instance.objects.size();
  // seen[i] == h + 1 while hyperedge h is checked: repeats are found in O(pins).
  std::vector<std::size_t> seen(n, 0);
  for (std::size_t h = 0; h < instance.hyperedges.size(); ++h) {
    const Hyperedge& hyperedge = instance.hyperedges[h];
    const std::string name = "hyperedge " + std::to_string(h);
    if (hyperedge.pins.size() < 2) {
      throw InstanceError(name + ": " + std::to_string(hyperedge.pins.size()) +
                          (hyperedge.pins.size() == 1 ? " pin" : " pins") +
                          "; a hyperedge needs at least 2");
    }
    for (std::size_t k = 0; k < hyperedge.pins.size(); ++k) {
      const std::uint32_t pin = hyperedge.pins[k];
      if (pin >= n) {
        throw InstanceError(name + ": pin " + std::to_string(k) + " is object index " +
                            std::to_string(pin) + ", out of range (the instance has " +
                            std::to_string(n) + " objects)");
      }
      if (seen[pin] == h + 1) {
        throw InstanceError(name + ": pin " + std::to_string(k) + " repeats object index " +
                            std::to_string(pin));
      }
      seen[pin] = h + 1;
    }
  }
}

}  // namespace

std::vector<Hyperedge> communication_nets(const Instance& instance) {
  if (!instance.hyperedges.empty()) return instance.hyperedges;
  struct Send {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    std::uint64_t bytes = 0;
  };
  std::vector<Send> sends;
  sends.reserve(instance.edges.size());
  for (const Edge& e : instance.edges) {
    if (e.from != e.to) sends.push_back({e.from, e.to, e.bytes});
  }
  std::sort(sends.begin(), sends.end(), [](const Send& a, const Send& b) {
    return a.from < b.from || (a.from == b.from && a.to < b.to);
  });
  std::vector<Hyperedge> nets;
  for (std::size_t k = 0; k < sends.size();) {
    Hyperedge net;
    net.pins.push_back(sends[k].from);
    std::uint64_t total = 0;
    const std::uint32_t from = sends[k].from;
    for (; k < sends.size() && sends[k].from == from; ++k) {
      if (sends[k].to != net.pins.back()) net.pins.push_back(sends[k].to);
      total = sends[k].bytes > UINT64_MAX - total ? UINT64_MAX : total + sends[k].bytes;
    }
    const std::uint64_t receivers = net.pins.size() - 1;
    net.bytes = total / receivers + (total % receivers != 0 ? 1 : 0);
    nets.push_back(std::move(net));
  }
  return nets;
}

void validate(const Instance& instance) {
  if (instance.dims < 0 || instance.dims > 3) {
    throw InstanceError("dims is " + std::to_string(instance.dims) + ", expected 0 to 3");
  }
  if (instance.pes.empty()) throw InstanceError("the instance has no PEs");
  if (instance.objects.size() > UINT32_MAX) {
    throw InstanceError("more than 2^32-1 objects are not supported");
  }
  for (std::size_t p = 0; p < instance.pes.size(); ++p) {
    const Pe& pe = instance.pes[p];
    if (!std::isfinite(pe.speed) || pe.speed <= 0.0) {
      throw InstanceError("PE " + std::to_string(p) + ": speed " + std::to_string(pe.speed) +
                          " must be a finite number > 0");
    }
    if (!std::isfinite(pe.background) || pe.background < 0.0) {
      throw InstanceError("PE " + std::to_string(p) + ": background load " +
                          std::to_string(pe.background) + " must be a finite number >= 0");
    }
    if (pe.cluster < 0) {
      throw InstanceError("PE " + std::to_string(p) + ": cluster " + std::to_string(pe.cluster) +
                          " must be >= 0");
    }
  }
  const auto pe_count = static_cast<PeId>(instance.pes.size());
  std::unordered_set<ObjectId> ids;
  ids.reserve(instance.objects.size());
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    const Object& o = instance.objects[i];
    if (!ids.insert(o.id).second) {
      throw InstanceError(object_name(i, o) + ": duplicate object id");
    }
    if (!std::isfinite(o.load) || o.load < 0.0) {
      throw InstanceError(object_name(i, o) + ": load " + std::to_string(o.load) +
                          " must be a finite number >= 0");
    }
    if (o.pe < 0 || o.pe >= pe_count) {
      throw InstanceError(object_name(i, o) + ": PE " + std::to_string(o.pe) +
                          " does not exist (the instance has " + std::to_string(pe_count) +
                          " PEs)");
    }
    for (int d = 0; d < instance.dims; ++d) {
      if (!std::isfinite(o.coords[static_cast<std::size_t>(d)])) {
        throw InstanceError(object_name(i, o) + ": coordinate " + std::to_string(d) +
                            " is not finite");
      }
    }
  }
  const auto n = instance.objects.size();
  for (std::size_t e = 0; e < instance.edges.size(); ++e) {
    const Edge& edge = instance.edges[e];
    if (edge.from >= n || edge.to >= n) {
      throw InstanceError("edge " + std::to_string(e) + ": object index " +
                          std::to_string(edge.from >= n ? edge.from : edge.to) +
                          " is out of range (the instance has " + std::to_string(n) + " objects)");
    }
  }
  validate_hyperedges(instance);
}

void validate(const Instance& instance, const Assignment& assignment) {
  if (assignment.pe.size() != instance.objects.size()) {
    throw InstanceError("assignment has " + std::to_string(assignment.pe.size()) + " entries for " +
                        std::to_string(instance.objects.size()) + " objects");
  }
  const auto pe_count = static_cast<PeId>(instance.pes.size());
  for (std::size_t i = 0; i < assignment.pe.size(); ++i) {
    if (assignment.pe[i] < 0 || assignment.pe[i] >= pe_count) {
      throw InstanceError("assignment: " + object_name(i, instance.objects[i]) + " goes to PE " +
                          std::to_string(assignment.pe[i]) + ", which does not exist");
    }
  }
}

}  // namespace vela::lb
