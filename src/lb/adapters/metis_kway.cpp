// METIS_PartGraphKway with target part weights, and the small cases it must not see.
#include "metis_kway.hpp"

#include <metis.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/seed_growth.hpp"
#include "stdout_to_stderr.hpp"

namespace vela::lb::builtin {

namespace {

static_assert(sizeof(idx_t) == sizeof(std::int32_t), "METIS built with 64-bit idx_t");

// Below this many vertices per part METIS' recursive bisection may reach a part with no vertex.
constexpr std::size_t kMinVerticesPerPart = 4;

double edge_cut(const PartitionGraph& g, const std::vector<std::int32_t>& part) {
  double cut = 0.0;
  for (std::size_t v = 0; v < g.vertices(); ++v) {
    for (std::int32_t j = g.xadj[v]; j < g.xadj[v + 1]; ++j) {
      const auto k = static_cast<std::size_t>(j);
      if (part[v] != part[static_cast<std::size_t>(g.adjncy[k])]) cut += g.adjwgt[k];
    }
  }
  return cut / 2.0;
}

// The seed technique with one target per part, its speed the part's share: levels the parts'
// weights in proportion to their shares and keeps neighbours together.
std::vector<std::int32_t> grow(const PartitionGraph& g, const std::vector<double>& shares,
                               double imbalance) {
  GrowthProblem p;
  p.graph = &g;
  p.load.assign(g.vwgt.begin(), g.vwgt.end());
  p.first.assign(g.vertices(), 1);
  p.targets.resize(shares.size());
  for (std::size_t t = 0; t < shares.size(); ++t) p.targets[t].speed = shares[t];
  p.work.assign(shares.size(), 0.0);
  p.tolerance = imbalance - 1.0;
  return grow_from_seeds(p);
}

// METIS' initial partition is a recursive bisection over the parts in the order given: the
// first floor(k/2) parts against the rest, recursively. A side of two or more parts that METIS
// may leave empty makes it fail: one whose share of its parent is so small that the other side
// can take everything within `imbalance`, or that expects too few vertices.
bool bisections_safe(const std::vector<double>& share, std::size_t lo, std::size_t hi,
                     double parent, double n, double imbalance) {
  if (hi - lo < 2) return true;
  double sum = 0.0;
  for (std::size_t k = lo; k < hi; ++k) sum += share[k];
  if (parent > 0.0 && (sum / parent <= 1.0 - 1.0 / imbalance ||
                       sum * n < static_cast<double>(2 * kMinVerticesPerPart))) {
    return false;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  return bisections_safe(share, lo, mid, sum, n, imbalance) &&
         bisections_safe(share, mid, hi, sum, n, imbalance);
}

// Orders `parts` (sorted by share, largest first) so that each bisection splits the share as
// evenly as the part counts allow: largest first into the lighter side that has room.
void balanced_order(std::vector<std::int32_t> parts, const std::vector<double>& shares,
                    std::vector<std::int32_t>& out) {
  if (parts.size() < 2) {
    out.insert(out.end(), parts.begin(), parts.end());
    return;
  }
  const std::size_t left_size = parts.size() / 2;
  std::vector<std::int32_t> side[2];
  double sum[2] = {0.0, 0.0};
  for (const std::int32_t p : parts) {
    const bool left_open = side[0].size() < left_size;
    const bool right_open = side[1].size() < parts.size() - left_size;
    const int s = !right_open || (left_open && sum[0] <= sum[1]) ? 0 : 1;
    side[s].push_back(p);
    sum[s] += shares[static_cast<std::size_t>(p)];
  }
  balanced_order(std::move(side[0]), shares, out);
  balanced_order(std::move(side[1]), shares, out);
}

// The parts METIS is given, in order: all with a target of at least one average vertex, in id
// order if that is safe, else in balanced order, dropping the smallest until it is safe.
std::vector<std::int32_t> metis_parts(const std::vector<double>& shares, std::size_t n,
                                      double imbalance) {
  std::vector<std::int32_t> kept;
  for (std::size_t p = 0; p < shares.size(); ++p) {
    if (shares[p] * static_cast<double>(n) >= 1.0) kept.push_back(static_cast<std::int32_t>(p));
  }
  const auto safe = [&](const std::vector<std::int32_t>& order) {
    std::vector<double> s;
    double total = 0.0;
    for (const std::int32_t p : order) total += shares[static_cast<std::size_t>(p)];
    for (const std::int32_t p : order) s.push_back(shares[static_cast<std::size_t>(p)] / total);
    return bisections_safe(s, 0, s.size(), 0.0, static_cast<double>(n), imbalance);
  };
  if (safe(kept)) return kept;
  std::stable_sort(kept.begin(), kept.end(), [&](std::int32_t a, std::int32_t b) {
    return shares[static_cast<std::size_t>(a)] > shares[static_cast<std::size_t>(b)];
  });
  for (; kept.size() > 1; kept.pop_back()) {
    std::vector<std::int32_t> order;
    balanced_order(kept, shares, order);
    if (safe(order)) return order;
  }
  return kept;
}

// Whether some vertex weighs more than the smallest target among `kept` parts. METIS cannot
// meet its balance constraint then, and its recursive bisection may leave a side with no vertex
// (it prints "Cannot bisect a graph with 0 vertices" and returns empty parts); the seed
// technique places the heaviest vertices first, each where it finishes earliest.
bool has_vertex_over_a_target(const PartitionGraph& g, const std::vector<double>& shares,
                              const std::vector<std::int32_t>& kept) {
  double total = 0.0;
  double heaviest = 0.0;
  for (const std::int32_t w : g.vwgt) {
    total += w;
    heaviest = std::max(heaviest, static_cast<double>(w));
  }
  double kept_share = 0.0;
  double smallest = 1.0;
  for (const std::int32_t p : kept) {
    kept_share += shares[static_cast<std::size_t>(p)];
    smallest = std::min(smallest, shares[static_cast<std::size_t>(p)]);
  }
  return kept_share > 0.0 && heaviest > total * smallest / kept_share;
}

}  // namespace

std::vector<std::int32_t> metis_kway(const PartitionGraph& g, const std::vector<double>& shares,
                                     double imbalance, std::int32_t seed, StrategyStats& stats) {
  const std::size_t parts = shares.size();
  if (parts == 0) throw std::logic_error("metis_kway: no parts");
  const std::size_t n = g.vertices();
  if (parts == 1 || n == 0) {
    stats.emplace_back("edge_cut", 0.0);
    return std::vector<std::int32_t>(n, 0);
  }
  const std::vector<std::int32_t> kept = metis_parts(shares, n, imbalance);
  // Parts with room for at least one average vertex. Too few vertices for them makes
  // metis_parts drop parts until METIS is safe (with one vertex per PE, down to a handful of
  // PEs holding everything), so the seed technique places such graphs, judged by the parts
  // there should be rather than those METIS could take.
  std::size_t eligible = 0;
  for (const double share : shares) eligible += share * static_cast<double>(n) >= 1.0 ? 1 : 0;
  if (kept.empty() || n < kMinVerticesPerPart * std::max(kept.size(), eligible) ||
      (kept.size() < 2 && eligible >= 2) || has_vertex_over_a_target(g, shares, kept)) {
    std::vector<std::int32_t> part = grow(g, shares, imbalance);
    stats.emplace_back("edge_cut", edge_cut(g, part));
    return part;
  }
  if (kept.size() == 1) {
    stats.emplace_back("edge_cut", 0.0);
    return std::vector<std::int32_t>(n, kept[0]);
  }
  double kept_share = 0.0;
  for (const std::int32_t p : kept) kept_share += shares[static_cast<std::size_t>(p)];
  std::vector<real_t> tpwgts;
  for (const std::int32_t p : kept) {
    tpwgts.push_back(static_cast<real_t>(shares[static_cast<std::size_t>(p)] / kept_share));
  }
  idx_t nvtxs = static_cast<idx_t>(g.vertices());
  idx_t ncon = 1;
  idx_t nparts = static_cast<idx_t>(kept.size());
  // METIS wants arrays even for an edgeless graph.
  std::vector<idx_t> xadj(g.xadj.begin(), g.xadj.end());
  std::vector<idx_t> adjncy(g.adjncy.begin(), g.adjncy.end());
  std::vector<idx_t> adjwgt(g.adjwgt.begin(), g.adjwgt.end());
  if (adjncy.empty()) {
    adjncy.push_back(0);
    adjwgt.push_back(1);
  }
  std::vector<idx_t> vwgt(g.vwgt.begin(), g.vwgt.end());
  real_t ubvec = static_cast<real_t>(imbalance);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = seed;
  options[METIS_OPTION_NUMBERING] = 0;
  idx_t objval = 0;
  std::vector<idx_t> part(g.vertices(), 0);
  // Should METIS still print a complaint, it goes to stderr (stdout_to_stderr.hpp).
  const StdoutToStderr quiet;
  const int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(),
                                     nullptr, adjwgt.data(), &nparts, tpwgts.data(), &ubvec,
                                     options, &objval, part.data());
  if (rc != METIS_OK) {
    throw std::runtime_error("metis: METIS_PartGraphKway failed with code " + std::to_string(rc));
  }
  stats.emplace_back("edge_cut", static_cast<double>(objval));
  std::vector<std::int32_t> result(n);
  for (std::size_t v = 0; v < n; ++v) result[v] = kept[static_cast<std::size_t>(part[v])];
  return result;
}

}  // namespace vela::lb::builtin
