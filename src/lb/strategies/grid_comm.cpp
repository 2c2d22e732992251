// GridCommLB: load balancing for PEs spread over several clusters joined by a slow
// wide-area network. No object ever leaves the cluster of the PE it is on. Within each cluster,
// independently, the migratable objects are placed again heaviest first (equal loads: more WAN
// messages first), each on the PE where it finishes earliest, except that a border object (one
// with an edge to an object in another cluster) goes, among the PEs whose finish time is within
// `tolerance` of the best, to the one with the fewest border objects so far, so that WAN traffic
// is spread over the cluster's PEs. Non-migratable objects stay and count as fixed work.
//
// Per cluster, PEs are kept in one lazy min-heap of PE time per speed group, so the best PE is
// found from the group tops and the tolerance window is a bounded scan of each group's best PEs:
// O(n log n + m + n * G * W log P) for G speed groups and a window of at most W PEs per group.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <queue>
#include <utility>
#include <vector>

#include "kernels/pe_times.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

constexpr std::size_t kMaxGroups = 32;  // speed groups per cluster; more speeds are bucketed
constexpr std::size_t kWindow = 16;     // PEs per speed group looked at in the tolerance window

struct HeapEntry {
  double time = 0.0;
  PeId pe = 0;
  std::uint64_t version = 0;
};

// Orders a std::priority_queue as a min-heap on time, ties to the lower PE id.
struct LaterEntry {
  bool operator()(const HeapEntry& a, const HeapEntry& b) const {
    return a.time > b.time || (a.time == b.time && a.pe > b.pe);
  }
};

using PeHeap = std::priority_queue<HeapEntry, std::vector<HeapEntry>, LaterEntry>;

// The PEs of one cluster with their times, grouped by speed; entries go stale when their PE
// gains work (its version moves on) and are dropped when met.
class ClusterPes {
 public:
  ClusterPes(const Instance& instance, const std::vector<PeId>& pes, std::vector<double>& time,
             std::vector<std::uint64_t>& version, std::vector<std::uint32_t>& group)
      : instance_(instance), time_(time), version_(version), group_(group) {
    std::vector<double> speeds;
    for (const PeId p : pes) speeds.push_back(speed(p));
    std::sort(speeds.begin(), speeds.end());
    speeds.erase(std::unique(speeds.begin(), speeds.end()), speeds.end());
    const bool exact = speeds.size() <= kMaxGroups;
    const double span = std::log(speeds.back() / speeds.front());
    std::map<std::size_t, std::size_t> dense;
    for (const PeId p : pes) {
      std::size_t key = 0;
      if (exact) {
        key = static_cast<std::size_t>(std::lower_bound(speeds.begin(), speeds.end(), speed(p)) -
                                       speeds.begin());
      } else {
        const double at = std::log(speed(p) / speeds.front()) / span * kMaxGroups;
        key = std::min(static_cast<std::size_t>(at), kMaxGroups - 1);
      }
      const auto [it, added] = dense.try_emplace(key, groups_.size());
      if (added) groups_.emplace_back();
      group_[static_cast<std::size_t>(p)] = static_cast<std::uint32_t>(it->second);
      groups_[it->second].push(entry(p));
    }
  }

  // The lowest finish time over the cluster for an object of `load`.
  double best_finish(double load) {
    PeId best_pe = -1;
    double best = 0.0;
    for (PeHeap& heap : groups_) {
      const PeId p = top(heap);
      const double f = finish(p, load);
      if (best_pe < 0 || f < best || (f == best && p < best_pe)) {
        best_pe = p;
        best = f;
      }
    }
    return best;
  }

  // The PE for an object of `load`: the earliest finish, or for a border object the PE with the
  // fewest border objects among those finishing within `limit` (then earliest, then lower id).
  PeId choose(double load, bool border, double limit, const std::vector<std::uint32_t>& borders) {
    PeId chosen = -1;
    double chosen_finish = 0.0;
    const auto better = [&](PeId p, double f) {
      if (chosen < 0) return true;
      if (border) {
        const auto bp = borders[static_cast<std::size_t>(p)];
        const auto bc = borders[static_cast<std::size_t>(chosen)];
        if (bp != bc) return bp < bc;
      }
      return f < chosen_finish || (f == chosen_finish && p < chosen);
    };
    for (PeHeap& heap : groups_) {
      if (!border) {
        const PeId p = top(heap);
        const double f = finish(p, load);
        if (better(p, f)) chosen = p, chosen_finish = f;
        continue;
      }
      // Pop up to kWindow live entries within the window, then put them back.
      std::vector<HeapEntry> seen;
      while (seen.size() < kWindow) {
        const PeId p = top(heap);
        const double f = finish(p, load);
        if (f > limit) break;  // the cluster's best PE is always within the window
        if (better(p, f)) chosen = p, chosen_finish = f;
        seen.push_back(heap.top());
        heap.pop();
        if (heap.empty()) break;
      }
      for (const HeapEntry& e : seen) heap.push(e);
    }
    return chosen;
  }

  // Records that `pe` now has time_[pe]; its old entry goes stale.
  void updated(PeId pe) {
    ++version_[static_cast<std::size_t>(pe)];
    group_of(pe).push(entry(pe));
  }

 private:
  double speed(PeId p) const { return instance_.pes[static_cast<std::size_t>(p)].speed; }

  double finish(PeId p, double load) const {
    return time_[static_cast<std::size_t>(p)] + load / speed(p);
  }

  HeapEntry entry(PeId p) const {
    return {time_[static_cast<std::size_t>(p)], p, version_[static_cast<std::size_t>(p)]};
  }

  // The live top of a heap (every PE keeps one live entry, so a heap is never left empty).
  PeId top(PeHeap& heap) const {
    while (heap.top().version != version_[static_cast<std::size_t>(heap.top().pe)]) heap.pop();
    return heap.top().pe;
  }

  PeHeap& group_of(PeId pe) { return groups_[group_[static_cast<std::size_t>(pe)]]; }

  const Instance& instance_;
  std::vector<double>& time_;
  std::vector<std::uint64_t>& version_;
  std::vector<PeHeap> groups_;
  std::vector<std::uint32_t>& group_;  // speed group of each PE, by PE id
};

struct GridObject {
  double load = 0.0;
  std::uint64_t wan = 0;  // messages on edges to objects in other clusters
  std::uint32_t index = 0;
};

class GridCommStrategy final : public Strategy {
 public:
  explicit GridCommStrategy(double tolerance) : tolerance_(tolerance) {}

  Solution solve(const Instance& instance) override {
    const Assignment current = current_assignment(instance);
    Assignment a = current;
    const std::size_t n = instance.objects.size();
    const std::size_t pe_count = instance.pes.size();
    if (pe_count == 0) return {std::move(a), {{"moves", 0.0}, {"border_objects", 0.0}}};

    const auto cluster_of = [&](std::size_t object) {
      return instance.pes[static_cast<std::size_t>(current.pe[object])].cluster;
    };
    std::vector<std::uint64_t> wan(n, 0);
    std::vector<bool> border(n, false);
    for (const Edge& e : instance.edges) {
      if (e.from >= n || e.to >= n || cluster_of(e.from) == cluster_of(e.to)) continue;
      wan[e.from] += e.messages;
      wan[e.to] += e.messages;
      border[e.from] = true;
      border[e.to] = true;
    }

    // Fixed state: pinned work and pinned border objects.
    std::vector<double> time(pe_count);
    const std::vector<double> work = pe_work(instance, current, true);
    for (std::size_t p = 0; p < pe_count; ++p) time[p] = pe_time(instance.pes[p], work[p]);
    std::vector<std::uint64_t> version(pe_count, 0);
    std::vector<std::uint32_t> borders(pe_count, 0);
    std::size_t border_count = 0;
    std::map<std::int32_t, std::vector<std::uint32_t>> objects_by_cluster;
    for (std::size_t i = 0; i < n; ++i) {
      border_count += border[i] ? 1 : 0;
      if (!instance.objects[i].migratable) {
        if (border[i]) ++borders[static_cast<std::size_t>(current.pe[i])];
      } else {
        objects_by_cluster[cluster_of(i)].push_back(static_cast<std::uint32_t>(i));
      }
    }
    std::map<std::int32_t, std::vector<PeId>> pes_by_cluster;
    for (std::size_t p = 0; p < pe_count; ++p) {
      pes_by_cluster[instance.pes[p].cluster].push_back(static_cast<PeId>(p));
    }

    std::vector<std::uint32_t> group(pe_count, 0);
    for (const auto& [cluster, members] : objects_by_cluster) {
      const std::vector<PeId>& pes = pes_by_cluster.at(cluster);
      ClusterPes heaps(instance, pes, time, version, group);

      std::vector<GridObject> order;
      order.reserve(members.size());
      for (const std::uint32_t i : members) order.push_back({instance.objects[i].load, wan[i], i});
      std::sort(order.begin(), order.end(), [](const GridObject& x, const GridObject& y) {
        if (x.load != y.load) return x.load > y.load;
        if (x.wan != y.wan) return x.wan > y.wan;
        return x.index < y.index;
      });

      for (const GridObject& o : order) {
        const double best = heaps.best_finish(o.load);
        const double limit = best + tolerance_ * std::abs(best);
        const PeId pe = heaps.choose(o.load, border[o.index], limit, borders);
        const auto p = static_cast<std::size_t>(pe);
        time[p] += o.load / instance.pes[p].speed;
        if (border[o.index]) ++borders[p];
        heaps.updated(pe);
        a.pe[o.index] = pe;
      }
    }

    StrategyStats stats = {{"moves", count_moves(current, a)},
                           {"border_objects", static_cast<double>(border_count)}};
    return {std::move(a), std::move(stats)};
  }

 private:
  double tolerance_;
};

}  // namespace

StrategyInfo grid_comm() {
  return {
      "grid-comm",
      "per cluster, heaviest first to the earliest-finishing PE, spreading border objects "
      "over PEs within a tolerance; never moves objects between clusters",
      {{"tolerance",
        "relative slack over the best finish time within which a border object prefers the "
        "PE with the fewest border objects",
        0.10, 0.0, 10.0, false}},
      [](const ParamValues& v) { return std::make_unique<GridCommStrategy>(v.get("tolerance")); }};
}

}  // namespace vela::lb::builtin
