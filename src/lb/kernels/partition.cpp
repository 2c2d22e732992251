// Graph construction, PE shares and migration-minimising part matching for the partitioner
// strategies (see partition.hpp).
#include "partition.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "pe_times.hpp"
#include "vela/lb/model/metrics.hpp"

namespace vela::lb::builtin {

namespace {

constexpr double kMaxVertexWeight = 1e6;
constexpr double kTotalWeight = 1e9;  // keeps sums inside the libraries' 32-bit integers

std::int32_t scaled(double value, double scale) {
  const double w = std::round(value * scale);
  return static_cast<std::int32_t>(std::clamp(w, 1.0, kTotalWeight));
}

}  // namespace

PartitionGraph build_partition_graph(const Instance& instance, EdgeWeight weight) {
  PartitionGraph g;
  const std::size_t n = instance.objects.size();
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> vertex_of(n, kNone);
  double max_load = 0.0;
  double total_load = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const Object& o = instance.objects[i];
    if (!o.migratable) continue;
    vertex_of[i] = static_cast<std::uint32_t>(g.object.size());
    g.object.push_back(static_cast<std::uint32_t>(i));
    max_load = std::max(max_load, o.load);
    total_load += o.load;
  }
  const std::size_t nv = g.object.size();
  double scale = 0.0;
  if (max_load > 0.0) scale = std::min(kMaxVertexWeight / max_load, kTotalWeight / total_load);
  g.vwgt.resize(nv);
  for (std::size_t v = 0; v < nv; ++v) {
    g.vwgt[v] = scale > 0.0 ? scaled(instance.objects[g.object[v]].load, scale) : 1;
  }

  // Undirected edges as (low, high) vertex pairs: bucketed by the low end (a counting sort),
  // then each bucket sorted by the high end and repeats merged. O(m + sum d log d), about
  // three times faster than sorting all pairs at 10^5 objects.
  struct Half {
    std::uint32_t b = 0;
    std::uint64_t raw = 0;
  };
  const auto ends = [&](const Edge& e, std::uint32_t& a, std::uint32_t& b) {
    if (e.from >= n || e.to >= n) return false;
    a = vertex_of[e.from];
    b = vertex_of[e.to];
    if (a == kNone || b == kNone || a == b) return false;
    if (a > b) std::swap(a, b);
    return true;
  };
  std::vector<std::uint32_t> start(nv + 1, 0);
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  for (const Edge& e : instance.edges) {
    if (ends(e, a, b)) ++start[a + 1];
  }
  for (std::size_t v = 0; v < nv; ++v) start[v + 1] += start[v];
  std::vector<Half> halves(start[nv]);
  {
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    for (const Edge& e : instance.edges) {
      if (!ends(e, a, b)) continue;
      halves[fill[a]++] = {b, weight == EdgeWeight::bytes ? e.bytes : e.messages};
    }
  }
  // Merge repeats in place; `start` then delimits each vertex's unique higher neighbours.
  std::size_t m = 0;
  double total_raw = 0.0;
  for (std::size_t v = 0; v < nv; ++v) {
    const auto first = halves.begin() + start[v];
    const auto last = halves.begin() + start[v + 1];
    std::sort(first, last, [](const Half& x, const Half& y) { return x.b < y.b; });
    start[v] = static_cast<std::uint32_t>(m);
    for (auto it = first; it != last; ++it) {
      if (m > start[v] && halves[m - 1].b == it->b) {
        halves[m - 1].raw += it->raw;
      } else {
        halves[m++] = *it;
      }
    }
  }
  start[nv] = static_cast<std::uint32_t>(m);
  for (std::size_t k = 0; k < m; ++k) total_raw += static_cast<double>(halves[k].raw);
  // Each undirected edge appears twice in CSR.
  g.edge_scale = total_raw > 0.0 ? std::min(1.0, kTotalWeight / (2.0 * total_raw)) : 1.0;

  g.xadj.assign(nv + 1, 0);
  for (std::size_t v = 0; v < nv; ++v) {
    g.xadj[v + 1] += static_cast<std::int32_t>(start[v + 1] - start[v]);
    for (std::size_t k = start[v]; k < start[v + 1]; ++k) ++g.xadj[halves[k].b + 1];
  }
  for (std::size_t v = 0; v < nv; ++v) g.xadj[v + 1] += g.xadj[v];
  g.adjncy.resize(2 * m);
  g.adjwgt.resize(2 * m);
  std::vector<std::int32_t> next(g.xadj.begin(), g.xadj.end() - 1);
  for (std::size_t v = 0; v < nv; ++v) {
    for (std::size_t k = start[v]; k < start[v + 1]; ++k) {
      const Half& h = halves[k];
      const std::int32_t w = scaled(static_cast<double>(h.raw), g.edge_scale);
      const auto at_a = static_cast<std::size_t>(next[v]++);
      g.adjncy[at_a] = static_cast<std::int32_t>(h.b);
      g.adjwgt[at_a] = w;
      const auto at_b = static_cast<std::size_t>(next[h.b]++);
      g.adjncy[at_b] = static_cast<std::int32_t>(v);
      g.adjwgt[at_b] = w;
    }
  }
  return g;
}

std::vector<PartitionGraph> split_graph(const PartitionGraph& graph,
                                        const std::vector<std::uint32_t>& group,
                                        std::size_t groups) {
  std::vector<PartitionGraph> sub(groups);
  std::vector<std::uint32_t> local(graph.vertices());  // position of each vertex in its group
  for (PartitionGraph& s : sub) {
    s.edge_scale = graph.edge_scale;
    s.xadj.push_back(0);
  }
  for (std::size_t v = 0; v < graph.vertices(); ++v) {
    PartitionGraph& s = sub[group[v]];
    local[v] = static_cast<std::uint32_t>(s.object.size());
    s.object.push_back(graph.object[v]);
    s.vwgt.push_back(graph.vwgt[v]);
  }
  for (std::size_t v = 0; v < graph.vertices(); ++v) {
    PartitionGraph& s = sub[group[v]];
    for (std::int32_t j = graph.xadj[v]; j < graph.xadj[v + 1]; ++j) {
      const auto u = static_cast<std::size_t>(graph.adjncy[static_cast<std::size_t>(j)]);
      if (group[u] != group[v]) continue;
      s.adjncy.push_back(static_cast<std::int32_t>(local[u]));
      s.adjwgt.push_back(graph.adjwgt[static_cast<std::size_t>(j)]);
    }
    s.xadj.push_back(static_cast<std::int32_t>(s.adjncy.size()));
  }
  return sub;
}

std::vector<double> pe_shares(const Instance& instance) {
  const std::size_t pes = instance.pes.size();
  std::vector<double> share(pes, 0.0);
  if (pes == 0) return share;
  const double target = ideal_time(instance);
  const std::vector<double> fixed = fixed_pe_loads(instance);
  double sum = 0.0;
  for (std::size_t p = 0; p < pes; ++p) {
    share[p] = instance.pes[p].speed * std::max(0.0, target - fixed[p]);
    sum += share[p];
  }
  if (!(sum > 0.0) || !std::isfinite(sum)) {
    sum = 0.0;
    for (std::size_t p = 0; p < pes; ++p) sum += share[p] = instance.pes[p].speed;
  }
  const double floor = 1e-6 / static_cast<double>(pes);
  double total = 0.0;
  for (double& s : share) total += s = std::max(s / sum, floor);
  for (double& s : share) s /= total;
  return share;
}

std::vector<std::int32_t> match_parts(const std::vector<PartMember>& members,
                                      const std::vector<std::uint32_t>& target_class) {
  const std::size_t k = target_class.size();
  // Overlap of each (part, current target) pair of one class, aggregated by sorting.
  struct Overlap {
    std::uint64_t key = 0;  // part * K + target
    std::uint64_t weight = 0;
  };
  std::vector<Overlap> overlaps;
  overlaps.reserve(members.size());
  for (const PartMember& m : members) {
    const auto part = static_cast<std::size_t>(m.part);
    if (m.part < 0 || part >= k) throw std::logic_error("partitioner returned a part out of range");
    const auto target = static_cast<std::size_t>(m.current);
    if (m.current < 0 || target >= k || target_class[part] != target_class[target]) continue;
    overlaps.push_back({part * k + target, m.weight});
  }
  std::sort(overlaps.begin(), overlaps.end(),
            [](const Overlap& x, const Overlap& y) { return x.key < y.key; });
  std::size_t m = 0;
  for (std::size_t j = 0; j < overlaps.size(); ++j) {
    if (m > 0 && overlaps[m - 1].key == overlaps[j].key) {
      overlaps[m - 1].weight += overlaps[j].weight;
    } else {
      overlaps[m++] = overlaps[j];
    }
  }
  overlaps.resize(m);
  // Largest overlap first; ties by lower part, then lower target (the key), for determinism.
  std::sort(overlaps.begin(), overlaps.end(), [](const Overlap& x, const Overlap& y) {
    return x.weight > y.weight || (x.weight == y.weight && x.key < y.key);
  });
  constexpr std::int32_t kUnset = -1;
  std::vector<std::int32_t> target_of(k, kUnset);
  std::vector<char> used(k, 0);
  for (const Overlap& o : overlaps) {
    const std::size_t part = o.key / k;
    const std::size_t target = o.key % k;
    if (target_of[part] != kUnset || used[target] != 0) continue;
    target_of[part] = static_cast<std::int32_t>(target);
    used[target] = 1;
  }
  // Leftovers in id order within their class.
  std::vector<std::vector<std::uint32_t>> free_targets(k);
  for (std::size_t t = k; t-- > 0;) {
    if (used[t] == 0) free_targets[target_class[t]].push_back(static_cast<std::uint32_t>(t));
  }
  for (std::size_t part = 0; part < k; ++part) {
    if (target_of[part] != kUnset) continue;
    std::vector<std::uint32_t>& pool = free_targets[target_class[part]];
    target_of[part] = static_cast<std::int32_t>(pool.back());
    pool.pop_back();
  }
  return target_of;
}

Solution solve_by_partition(const Instance& instance, const Partitioner& partitioner) {
  const Assignment current = current_assignment(instance);
  Assignment a = current;
  const std::size_t pes = instance.pes.size();
  StrategyStats stats;
  const PartitionGraph graph = build_partition_graph(instance);
  if (pes == 0 || graph.vertices() == 0) {
    return {std::move(a), {{"moves", 0.0}, {"partition_ms", 0.0}}};
  }
  if (pes == 1) {
    for (const std::uint32_t i : graph.object) a.pe[i] = 0;
    const double moves = count_moves(current, a);
    return {std::move(a), {{"moves", moves}, {"partition_ms", 0.0}}};
  }
  const std::vector<double> shares = pe_shares(instance);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::int32_t> part = partitioner(graph, shares, stats);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (part.size() != graph.vertices()) throw std::logic_error("partitioner returned wrong size");

  std::vector<PartMember> members(graph.vertices());
  for (std::size_t v = 0; v < graph.vertices(); ++v) {
    const Object& o = instance.objects[graph.object[v]];
    members[v] = {part[v], o.pe, o.size + 1};
  }
  const std::vector<std::int32_t> pe_of_part = match_parts(members, equal_classes(shares));
  for (std::size_t v = 0; v < graph.vertices(); ++v) {
    a.pe[graph.object[v]] = pe_of_part[static_cast<std::size_t>(part[v])];
  }
  stats.insert(stats.begin(), {{"moves", count_moves(current, a)}, {"partition_ms", ms}});
  return {std::move(a), std::move(stats)};
}

}  // namespace vela::lb::builtin
