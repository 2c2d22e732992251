#include "vela/lb/model/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace vela::lb {

std::vector<double> pe_loads(const Instance& instance, const Assignment& assignment) {
  std::vector<double> work(instance.pes.size(), 0.0);
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    work[static_cast<std::size_t>(assignment.pe[i])] += instance.objects[i].load;
  }
  for (std::size_t p = 0; p < work.size(); ++p) {
    work[p] = instance.pes[p].background + work[p] / instance.pes[p].speed;
  }
  return work;
}

std::vector<double> fixed_pe_loads(const Instance& instance) {
  std::vector<double> fixed(instance.pes.size(), 0.0);
  for (const Object& o : instance.objects) {
    if (!o.migratable) fixed[static_cast<std::size_t>(o.pe)] += o.load;
  }
  for (std::size_t p = 0; p < fixed.size(); ++p) {
    fixed[p] = instance.pes[p].background + fixed[p] / instance.pes[p].speed;
  }
  return fixed;
}

double ideal_time(const Instance& instance) {
  double work = 0.0;
  for (const Object& o : instance.objects) work += o.migratable ? o.load : 0.0;
  // Water-filling: raise the level over the PEs in order of fixed load; with the first k PEs
  // below it, level = (work + sum speed * fixed) / sum speed, until it reaches the next PE.
  const std::vector<double> fixed = fixed_pe_loads(instance);
  std::vector<std::pair<double, double>> by_fixed(fixed.size());  // (fixed load, speed)
  for (std::size_t p = 0; p < fixed.size(); ++p) by_fixed[p] = {fixed[p], instance.pes[p].speed};
  std::sort(by_fixed.begin(), by_fixed.end());
  double speed_sum = 0.0;
  double weighted_fixed = 0.0;
  for (std::size_t k = 0; k < by_fixed.size(); ++k) {
    speed_sum += by_fixed[k].second;
    weighted_fixed += by_fixed[k].second * by_fixed[k].first;
    const double level = (work + weighted_fixed) / speed_sum;
    if (k + 1 == by_fixed.size() || level <= by_fixed[k + 1].first) return level;
  }
  return 0.0;  // no PEs
}

LoadStats load_stats(const std::vector<double>& loads) {
  LoadStats s;
  if (loads.empty()) return s;
  const auto n = static_cast<double>(loads.size());
  s.max = *std::max_element(loads.begin(), loads.end());
  s.mean = std::accumulate(loads.begin(), loads.end(), 0.0) / n;
  double m2 = 0.0, m3 = 0.0, m4 = 0.0;
  for (const double l : loads) {
    const double d = l - s.mean;
    m2 += d * d;
    m3 += d * d * d;
    m4 += d * d * d * d;
  }
  m2 /= n;
  m3 /= n;
  m4 /= n;
  s.stddev = std::sqrt(m2);
  if (s.mean > 0.0) {
    s.max_over_avg = s.max / s.mean;
    s.imbalance = s.max_over_avg - 1.0;
  }
  if (m2 > 0.0) {
    s.skewness = m3 / std::pow(m2, 1.5);
    s.excess_kurtosis = m4 / (m2 * m2) - 3.0;
  }
  return s;
}

namespace {

// Ranks starting at 1; tied values share the mean of the ranks they span.
std::vector<double> ranks(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> rank(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double mean_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = mean_rank;
    i = j + 1;
  }
  return rank;
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const auto n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n;
  const double mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0.0, saa = 0.0, sbb = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (saa == 0.0 || sbb == 0.0) return 0.0;  // a constant vector correlates with nothing
  return sab / std::sqrt(saa * sbb);
}

}  // namespace

double rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) {
    throw std::invalid_argument("rank_correlation: vectors differ in size (" +
                                std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                                ")");
  }
  if (a.size() < 2) throw std::invalid_argument("rank_correlation: needs at least 2 values");
  return pearson(ranks(a), ranks(b));
}

MigrationStats migrations(const Instance& instance, const Assignment& from, const Assignment& to) {
  MigrationStats m;
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    if (from.pe[i] != to.pe[i]) {
      ++m.count;
      m.bytes += instance.objects[i].size;
    }
  }
  return m;
}

CommCut comm_cut(const Instance& instance, const Assignment& assignment) {
  CommCut cut;
  for (const Edge& e : instance.edges) {
    const PeId a = assignment.pe[e.from];
    const PeId b = assignment.pe[e.to];
    if (a == b) continue;
    cut.bytes += e.bytes;
    cut.messages += e.messages;
    if (instance.pes[static_cast<std::size_t>(a)].cluster !=
        instance.pes[static_cast<std::size_t>(b)].cluster) {
      cut.cluster_bytes += e.bytes;
      cut.cluster_messages += e.messages;
    }
  }
  return cut;
}

std::uint64_t hypergraph_cut(const Instance& instance, const Assignment& assignment) {
  return hypergraph_cut(instance.hyperedges, assignment);
}

std::uint64_t hypergraph_cut(const std::vector<Hyperedge>& hyperedges,
                             const Assignment& assignment) {
  if (hyperedges.empty()) return 0;
  PeId pes = 0;
  for (const PeId pe : assignment.pe) pes = std::max(pes, pe + 1);
  // last[pe] == h + 1 once hyperedge h has counted that PE.
  std::vector<std::size_t> last(static_cast<std::size_t>(pes), 0);
  std::uint64_t cut = 0;
  for (std::size_t h = 0; h < hyperedges.size(); ++h) {
    const Hyperedge& hyperedge = hyperedges[h];
    std::uint64_t pes = 0;
    for (const std::uint32_t pin : hyperedge.pins) {
      std::size_t& mark = last[static_cast<std::size_t>(assignment.pe[pin])];
      if (mark == h + 1) continue;
      mark = h + 1;
      ++pes;
    }
    if (pes > 1) cut += hyperedge.bytes * (pes - 1);
  }
  return cut;
}

double predicted_step_time(const Instance& instance, const Assignment& assignment,
                           const CommModel& model) {
  std::vector<double> time = pe_loads(instance, assignment);
  for (const Edge& e : instance.edges) {
    const PeId a = assignment.pe[e.from];
    if (a == assignment.pe[e.to]) continue;
    time[static_cast<std::size_t>(a)] += model.startup * static_cast<double>(e.messages) +
                                         model.per_byte * static_cast<double>(e.bytes);
  }
  return time.empty() ? 0.0 : *std::max_element(time.begin(), time.end());
}

double migration_time(const MigrationStats& moved, const CommModel& model) {
  return model.startup * static_cast<double>(moved.count) +
         model.per_byte * static_cast<double>(moved.bytes);
}

}  // namespace vela::lb
