// Graph construction, PE shares and migration-minimising part mapping for ST-7 (see
// partition.hpp).
#include "partition.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "pe_times.hpp"
#include "vela/lb/metrics.hpp"

namespace vela::lb::builtin {

namespace {

constexpr double kMaxVertexWeight = 1e6;
constexpr double kTotalWeight = 1e9;  // keeps sums inside the libraries' 32-bit integers

std::int32_t scaled(double value, double scale) {
  const double w = std::round(value * scale);
  return static_cast<std::int32_t>(std::clamp(w, 1.0, kTotalWeight));
}

}  // namespace

PartitionGraph build_partition_graph(const Instance& instance) {
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

  // Undirected edges as (low, high) vertex pairs, merged after sorting.
  struct Pair {
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    std::uint64_t bytes = 0;
  };
  std::vector<Pair> pairs;
  pairs.reserve(instance.edges.size());
  for (const Edge& e : instance.edges) {
    if (e.from >= n || e.to >= n) continue;
    const std::uint32_t a = vertex_of[e.from];
    const std::uint32_t b = vertex_of[e.to];
    if (a == kNone || b == kNone || a == b) continue;
    pairs.push_back({std::min(a, b), std::max(a, b), e.bytes});
  }
  std::sort(pairs.begin(), pairs.end(),
            [](const Pair& x, const Pair& y) { return std::tie(x.a, x.b) < std::tie(y.a, y.b); });
  std::size_t m = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    if (m > 0 && pairs[m - 1].a == pairs[k].a && pairs[m - 1].b == pairs[k].b) {
      pairs[m - 1].bytes += pairs[k].bytes;
    } else {
      pairs[m++] = pairs[k];
    }
  }
  pairs.resize(m);
  double total_bytes = 0.0;
  for (const Pair& p : pairs) total_bytes += static_cast<double>(p.bytes);
  // Each undirected edge appears twice in CSR.
  const double edge_scale =
      total_bytes > 0.0 ? std::min(1.0, kTotalWeight / (2.0 * total_bytes)) : 1.0;

  g.xadj.assign(nv + 1, 0);
  for (const Pair& p : pairs) {
    ++g.xadj[p.a + 1];
    ++g.xadj[p.b + 1];
  }
  for (std::size_t v = 0; v < nv; ++v) g.xadj[v + 1] += g.xadj[v];
  g.adjncy.resize(2 * m);
  g.adjwgt.resize(2 * m);
  std::vector<std::int32_t> next(g.xadj.begin(), g.xadj.end() - 1);
  for (const Pair& p : pairs) {
    const std::int32_t w = scaled(static_cast<double>(p.bytes), edge_scale);
    const auto at_a = static_cast<std::size_t>(next[p.a]++);
    g.adjncy[at_a] = static_cast<std::int32_t>(p.b);
    g.adjwgt[at_a] = w;
    const auto at_b = static_cast<std::size_t>(next[p.b]++);
    g.adjncy[at_b] = static_cast<std::int32_t>(p.a);
    g.adjwgt[at_b] = w;
  }
  return g;
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

  // Share classes: PEs (and parts) with the same target share are interchangeable.
  std::vector<std::uint32_t> cls(pes);
  {
    std::map<double, std::uint32_t> ids;
    for (std::size_t p = 0; p < pes; ++p) {
      cls[p] = ids.try_emplace(shares[p], static_cast<std::uint32_t>(ids.size())).first->second;
    }
  }
  // Overlap of each (part, current PE) pair of one class, aggregated by sorting.
  struct Overlap {
    std::uint64_t key = 0;  // part * P + pe
    std::uint64_t bytes = 0;
  };
  std::vector<Overlap> overlaps;
  overlaps.reserve(graph.vertices());
  for (std::size_t v = 0; v < graph.vertices(); ++v) {
    const Object& o = instance.objects[graph.object[v]];
    const auto pt = static_cast<std::size_t>(part[v]);
    if (pt >= pes) throw std::logic_error("partitioner returned a part out of range");
    const auto pe = static_cast<std::size_t>(o.pe);
    if (pe >= pes || cls[pt] != cls[pe]) continue;
    overlaps.push_back({pt * pes + pe, o.size + 1});
  }
  std::sort(overlaps.begin(), overlaps.end(),
            [](const Overlap& x, const Overlap& y) { return x.key < y.key; });
  std::size_t m = 0;
  for (std::size_t k = 0; k < overlaps.size(); ++k) {
    if (m > 0 && overlaps[m - 1].key == overlaps[k].key) {
      overlaps[m - 1].bytes += overlaps[k].bytes;
    } else {
      overlaps[m++] = overlaps[k];
    }
  }
  overlaps.resize(m);
  // Largest overlap first; ties by lower part, then lower PE (the key), for determinism.
  std::sort(overlaps.begin(), overlaps.end(), [](const Overlap& x, const Overlap& y) {
    return x.bytes > y.bytes || (x.bytes == y.bytes && x.key < y.key);
  });
  constexpr PeId kUnset = -1;
  std::vector<PeId> pe_of_part(pes, kUnset);
  std::vector<char> pe_used(pes, 0);
  for (const Overlap& o : overlaps) {
    const std::size_t pt = o.key / pes;
    const std::size_t pe = o.key % pes;
    if (pe_of_part[pt] != kUnset || pe_used[pe] != 0) continue;
    pe_of_part[pt] = static_cast<PeId>(pe);
    pe_used[pe] = 1;
  }
  // Leftovers in id order within their class.
  std::vector<std::vector<std::uint32_t>> free_pes(pes);
  for (std::size_t pe = pes; pe-- > 0;) {
    if (pe_used[pe] == 0) free_pes[cls[pe]].push_back(static_cast<std::uint32_t>(pe));
  }
  for (std::size_t pt = 0; pt < pes; ++pt) {
    if (pe_of_part[pt] != kUnset) continue;
    std::vector<std::uint32_t>& pool = free_pes[cls[pt]];
    pe_of_part[pt] = static_cast<PeId>(pool.back());
    pool.pop_back();
  }
  for (std::size_t v = 0; v < graph.vertices(); ++v) {
    a.pe[graph.object[v]] = pe_of_part[static_cast<std::size_t>(part[v])];
  }
  stats.insert(stats.begin(), {{"moves", count_moves(current, a)}, {"partition_ms", ms}});
  return {std::move(a), std::move(stats)};
}

}  // namespace vela::lb::builtin
