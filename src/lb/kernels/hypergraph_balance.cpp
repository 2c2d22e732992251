// Balance repair after the hypergraph partition (see hypergraph_balance.hpp).
#include "hypergraph_balance.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>

#include "vela/lb/model/metrics.hpp"

namespace vela::lb::builtin {

namespace {

// Least busy PEs a swap also looks at, beside those sharing a net with the object.
constexpr std::size_t kIdleCandidates = 4;

// How many pins of each net lie on each PE: a short list per net, since a net spans few PEs.
class NetSpread {
 public:
  NetSpread(const std::vector<Hyperedge>& nets, const Assignment& a) : spread_(nets.size()) {
    for (std::size_t e = 0; e < nets.size(); ++e) {
      for (const std::uint32_t pin : nets[e].pins) add(e, a.pe[pin], 1);
    }
  }

  std::int64_t count(std::size_t e, PeId pe) const {
    for (const auto& [p, c] : spread_[e]) {
      if (p == pe) return c;
    }
    return 0;
  }

  void add(std::size_t e, PeId pe, std::int64_t delta) {
    auto& list = spread_[e];
    for (std::size_t k = 0; k < list.size(); ++k) {
      if (list[k].first != pe) continue;
      list[k].second += delta;
      if (list[k].second == 0) {
        list[k] = list.back();
        list.pop_back();
      }
      return;
    }
    list.emplace_back(pe, delta);
  }

  const std::vector<std::pair<PeId, std::int64_t>>& of(std::size_t e) const { return spread_[e]; }

 private:
  std::vector<std::vector<std::pair<PeId, std::int64_t>>> spread_;
};

}  // namespace

std::size_t repair_balance(const Instance& instance, const std::vector<Hyperedge>& nets,
                           double tolerance, Assignment& assignment) {
  const std::size_t pes = instance.pes.size();
  const std::size_t n = instance.objects.size();
  if (pes < 2 || n == 0) return 0;
  const double limit = tolerance * ideal_time(instance);
  std::vector<double> time(pes);
  for (std::size_t p = 0; p < pes; ++p) time[p] = instance.pes[p].background;
  // The migratable objects of each PE; slot[i] is object i's place in its PE's list.
  std::vector<std::vector<std::uint32_t>> members(pes);
  std::vector<std::size_t> slot(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Object& o = instance.objects[i];
    const auto p = static_cast<std::size_t>(assignment.pe[i]);
    time[p] += o.load / instance.pes[p].speed;
    if (!o.migratable) continue;
    slot[i] = members[p].size();
    members[p].push_back(static_cast<std::uint32_t>(i));
  }
  // The nets of each object, in compressed form.
  std::vector<std::size_t> first(n + 1, 0);
  for (const Hyperedge& net : nets) {
    for (const std::uint32_t pin : net.pins) ++first[pin + 1];
  }
  for (std::size_t i = 0; i < n; ++i) first[i + 1] += first[i];
  std::vector<std::uint32_t> net_of(first[n]);
  {
    std::vector<std::size_t> next(first.begin(), first.end() - 1);
    for (std::size_t e = 0; e < nets.size(); ++e) {
      for (const std::uint32_t pin : nets[e].pins)
        net_of[next[pin]++] = static_cast<std::uint32_t>(e);
    }
  }
  NetSpread spread(nets, assignment);
  // As the partitioner weighs them: a net of 0 bytes weighs 1.
  const auto weight = [&](std::size_t e) {
    return std::max(1.0, static_cast<double>(nets[e].bytes));
  };

  // Cut added by moving object i from PE `from` to PE `to` (as the partitioner weighs nets).
  const auto cut_change = [&](std::uint32_t i, PeId from, PeId to) {
    double delta = 0.0;
    for (std::size_t k = first[i]; k < first[i + 1]; ++k) {
      const std::size_t e = net_of[k];
      if (spread.count(e, to) == 0) delta += weight(e);
      if (spread.count(e, from) == 1) delta -= weight(e);
    }
    return delta;
  };
  const auto shift_nets = [&](std::uint32_t i, PeId from, PeId to) {
    for (std::size_t k = first[i]; k < first[i + 1]; ++k) {
      spread.add(net_of[k], from, -1);
      spread.add(net_of[k], to, 1);
    }
  };
  const auto move = [&](std::uint32_t i, PeId to) {
    const auto p = static_cast<std::size_t>(assignment.pe[i]);
    const auto q = static_cast<std::size_t>(to);
    time[p] -= instance.objects[i].load / instance.pes[p].speed;
    time[q] += instance.objects[i].load / instance.pes[q].speed;
    shift_nets(i, assignment.pe[i], to);
    std::vector<std::uint32_t>& out = members[p];
    out[slot[i]] = out.back();
    slot[out.back()] = slot[i];
    out.pop_back();
    slot[i] = members[q].size();
    members[q].push_back(i);
    assignment.pe[i] = to;
  };
  // The `count` least busy PEs.
  const auto least_busy = [&](std::size_t count) {
    std::vector<PeId> order(pes);
    for (std::size_t p = 0; p < pes; ++p) order[p] = static_cast<PeId>(p);
    count = std::min(count, pes);
    std::partial_sort(
        order.begin(), order.begin() + static_cast<long>(count), order.end(), [&](PeId a, PeId b) {
          return time[static_cast<std::size_t>(a)] < time[static_cast<std::size_t>(b)];
        });
    order.resize(count);
    return order;
  };

  std::vector<std::size_t> seen(pes, 0);  // seen[q] == stamp: q is a candidate already
  std::size_t stamp = 0;
  std::size_t moves = 0;
  // A move either leaves its target within the limit (preferred: least cut added) or, when no
  // such move exists, lowers the larger of the two PE times (least resulting time first). Either
  // way the PE times, sorted in decreasing order, decrease lexicographically, so the loop ends;
  // the cap only bounds its cost.
  const std::size_t max_moves = 4 * n;
  while (moves < max_moves) {
    const auto busiest =
        static_cast<std::size_t>(std::max_element(time.begin(), time.end()) - time.begin());
    if (time[busiest] <= limit) break;
    const auto idlest =
        static_cast<PeId>(std::min_element(time.begin(), time.end()) - time.begin());
    const auto from = static_cast<PeId>(busiest);
    // Best move so far, smallest first: (beyond the limit, resulting time if beyond, cut
    // increase, -load, object, PE).
    using Move = std::tuple<bool, double, double, double, std::uint32_t, PeId>;
    Move best{};
    bool found = false;
    for (const std::uint32_t i : members[busiest]) {
      const double load = instance.objects[i].load;
      if (!(load > 0.0)) continue;
      const double left = time[busiest] - load / instance.pes[busiest].speed;
      const auto consider = [&](PeId to) {
        const auto q = static_cast<std::size_t>(to);
        if (to == from || seen[q] == stamp) return;
        seen[q] = stamp;
        const double arrived = time[q] + load / instance.pes[q].speed;
        const bool beyond = arrived > limit;
        if (beyond && !(std::max(arrived, left) < time[busiest])) return;
        const double delta = cut_change(i, from, to);
        const Move candidate{beyond, beyond ? std::max(arrived, left) : 0.0, delta, -load, i, to};
        if (!found || candidate < best) best = candidate;
        found = true;
      };
      ++stamp;
      for (std::size_t k = first[i]; k < first[i + 1]; ++k) {
        for (const auto& [pe, count] : spread.of(net_of[k])) consider(pe);
      }
      consider(idlest);
    }
    if (found) {
      move(std::get<4>(best), std::get<5>(best));
      ++moves;
      continue;
    }
    // No single move helps: swap a heavy object of the busiest PE with a lighter one of a PE
    // it shares a net with (or of one of the least busy PEs), under the same rules.
    using Swap = std::tuple<bool, double, double, std::uint32_t, std::uint32_t>;
    Swap best_swap{};
    bool swap_found = false;
    const std::vector<PeId> idle = least_busy(kIdleCandidates);
    std::vector<PeId> targets;
    for (const std::uint32_t i : members[busiest]) {
      const double load = instance.objects[i].load;
      if (!(load > 0.0)) continue;
      const auto consider = [&](PeId to) {
        const auto q = static_cast<std::size_t>(to);
        if (to == from || seen[q] == stamp) return;
        seen[q] = stamp;
        // With i already on `to`, so that nets of both objects count right.
        const double delta_i = cut_change(i, from, to);
        shift_nets(i, from, to);
        for (const std::uint32_t j : members[q]) {
          const double other = instance.objects[j].load;
          if (!(other < load)) continue;
          const double left = time[busiest] + (other - load) / instance.pes[busiest].speed;
          const double arrived = time[q] + (load - other) / instance.pes[q].speed;
          const bool beyond = arrived > limit;
          if (beyond && !(std::max(arrived, left) < time[busiest])) continue;
          const double delta = delta_i + cut_change(j, to, from);
          const Swap candidate{beyond, beyond ? std::max(arrived, left) : 0.0, delta, i, j};
          if (!swap_found || candidate < best_swap) best_swap = candidate;
          swap_found = true;
        }
        shift_nets(i, to, from);
      };
      // Listed first: considering a PE shifts i's nets for a while, which reorders spread.
      targets.assign(idle.begin(), idle.end());
      for (std::size_t k = first[i]; k < first[i + 1]; ++k) {
        for (const auto& [pe, count] : spread.of(net_of[k])) targets.push_back(pe);
      }
      ++stamp;
      for (const PeId q : targets) consider(q);
    }
    if (!swap_found) break;
    const std::uint32_t i = std::get<3>(best_swap);
    const std::uint32_t j = std::get<4>(best_swap);
    const PeId to = assignment.pe[j];
    move(i, to);
    move(j, from);
    moves += 2;
  }
  return moves;
}

}  // namespace vela::lb::builtin
