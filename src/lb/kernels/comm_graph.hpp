// The communication graph of an instance as compressed sparse rows: undirected, one entry per
// neighbour with the bytes of every edge between the two objects (both directions) summed.
// Self-loops are dropped. Used by the communication-aware strategies (refine-comm,
// rec-bisect-bf). O(n + m log d) to build, d = largest degree.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vela/lb/model/instance.hpp"

namespace vela::lb::builtin {

class CommGraph {
 public:
  struct Neighbour {
    std::uint32_t object = 0;
    std::uint64_t bytes = 0;
  };

  // With `migratable_only`, edges that touch a non-migratable object are left out.
  explicit CommGraph(const Instance& instance, bool migratable_only = false) {
    const std::size_t n = instance.objects.size();
    const auto keep = [&](const Edge& e) {
      if (e.from == e.to || e.from >= n || e.to >= n) return false;
      return !migratable_only ||
             (instance.objects[e.from].migratable && instance.objects[e.to].migratable);
    };
    std::vector<std::size_t> start(n + 1, 0);
    for (const Edge& e : instance.edges) {
      if (!keep(e)) continue;
      ++start[e.from + 1];
      ++start[e.to + 1];
    }
    for (std::size_t i = 0; i < n; ++i) start[i + 1] += start[i];
    std::vector<Neighbour> raw(start[n]);
    std::vector<std::size_t> fill(start.begin(), start.end() - 1);
    for (const Edge& e : instance.edges) {
      if (!keep(e)) continue;
      raw[fill[e.from]++] = {e.to, e.bytes};
      raw[fill[e.to]++] = {e.from, e.bytes};
    }
    // Sort each row by neighbour and merge repeats, compacting into place.
    start_.assign(n + 1, 0);
    std::size_t out = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const auto begin = raw.begin() + static_cast<std::ptrdiff_t>(start[i]);
      const auto end = raw.begin() + static_cast<std::ptrdiff_t>(start[i + 1]);
      std::sort(begin, end,
                [](const Neighbour& a, const Neighbour& b) { return a.object < b.object; });
      start_[i] = out;
      for (auto it = begin; it != end; ++it) {
        if (out > start_[i] && raw[out - 1].object == it->object) {
          raw[out - 1].bytes += it->bytes;
        } else {
          raw[out++] = *it;
        }
      }
    }
    start_[n] = out;
    raw.resize(out);
    neighbours_ = std::move(raw);
  }

  std::size_t size() const { return start_.size() - 1; }

  const Neighbour* begin(std::size_t i) const { return neighbours_.data() + start_[i]; }
  const Neighbour* end(std::size_t i) const { return neighbours_.data() + start_[i + 1]; }

 private:
  std::vector<std::size_t> start_;
  std::vector<Neighbour> neighbours_;
};

}  // namespace vela::lb::builtin
