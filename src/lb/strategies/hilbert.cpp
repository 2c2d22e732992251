// Hilbert-curve strategy: objects in curve order, cut into one contiguous segment of
// near-equal work per PE, so neighbours in space mostly share a PE. The curve order is computed
// once per set of coordinates and reused; each call then costs one O(n) cut.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/curve_cache.hpp"
#include "strategies.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/strategies/hilbert.hpp"

namespace vela::lb {

namespace {

struct WorkShares {
  std::vector<double> targets;  // c_p of pe_work_targets
  double work = 0.0;            // total migratable load
  std::size_t movable = 0;      // migratable objects
};

WorkShares work_shares(const Instance& instance) {
  const std::size_t pes = instance.pes.size();
  if (pes == 0) throw InstanceError("the instance has no PEs");
  WorkShares shares;
  for (const Object& o : instance.objects) {
    if (o.migratable) {
      shares.work += o.load;
      ++shares.movable;
    }
  }
  shares.targets.resize(pes);
  if (!(shares.work > 0.0)) {
    double speed_sum = 0.0;
    for (const Pe& pe : instance.pes) speed_sum += pe.speed;
    for (std::size_t p = 0; p < pes; ++p) shares.targets[p] = instance.pes[p].speed / speed_sum;
    return shares;
  }
  const double finish = ideal_time(instance);
  const std::vector<double> fixed = fixed_pe_loads(instance);
  for (std::size_t p = 0; p < pes; ++p) {
    shares.targets[p] = std::max(0.0, finish - fixed[p]) * instance.pes[p].speed;
  }
  return shares;
}

}  // namespace

std::vector<double> pe_work_targets(const Instance& instance) {
  return work_shares(instance).targets;
}

Assignment hilbert_cut(const Instance& instance, const std::vector<std::uint32_t>& order) {
  const std::size_t n = instance.objects.size();
  if (order.size() != n) {
    throw std::invalid_argument("hilbert_cut: the order has " + std::to_string(order.size()) +
                                " entries for " + std::to_string(n) + " objects");
  }
  WorkShares shares = work_shares(instance);
  std::vector<double>& targets = shares.targets;
  if (!(shares.work > 0.0)) {
    // No work to share: share the objects by count in proportion to the targets.
    for (double& target : targets) target *= static_cast<double>(shares.movable);
  }
  const bool by_count = !(shares.work > 0.0);

  // An object goes to the PE whose target interval [C_p, C_{p+1}) holds its load midpoint:
  // that puts each cut at the prefix boundary nearest to C_k, and every boundary is crossed
  // by a single moving pointer. PE -1 marks objects not yet seen, which checks `order`.
  constexpr PeId kUnseen = -1;
  Assignment a;
  a.pe.assign(n, kUnseen);
  const auto last_pe = static_cast<PeId>(targets.size()) - 1;
  PeId pe = 0;
  double boundary = targets[0];  // C_{pe+1}
  double prefix = 0.0;
  for (const std::uint32_t position : order) {
    if (position >= n || a.pe[position] != kUnseen) {
      throw std::invalid_argument("hilbert_cut: the order is not a permutation of the objects (" +
                                  std::to_string(position) + " is out of range or repeated)");
    }
    const Object& o = instance.objects[position];
    if (!o.migratable) {
      a.pe[position] = o.pe;
      continue;
    }
    const double load = by_count ? 1.0 : o.load;
    const double midpoint = prefix + 0.5 * load;
    while (pe < last_pe && boundary <= midpoint) {
      ++pe;
      boundary += targets[static_cast<std::size_t>(pe)];
    }
    a.pe[position] = pe;
    prefix += load;
  }
  return a;
}

PeId hilbert_destination(double inclusive_prefix, double load, double total, PeId pes) {
  if (pes < 1) {
    throw std::invalid_argument("hilbert_destination: " + std::to_string(pes) +
                                " PEs, expected at least 1");
  }
  if (!(total > 0.0)) return 0;
  const double share = (inclusive_prefix - 0.5 * load) * static_cast<double>(pes) / total;
  if (!(share >= 0.0)) return 0;  // also catches NaN
  if (share >= static_cast<double>(pes)) return pes - 1;
  return std::min(static_cast<PeId>(share), pes - 1);
}

namespace builtin {

StrategyInfo hilbert() {
  return {
      "hilbert",
      "cuts a Hilbert curve through the objects' coordinates into one segment per PE "
      "(keeps neighbours together)",
      {{"bits", "lattice resolution for non-integer coordinates: 2^bits cells on the longest side",
        static_cast<double>(kHilbertDefaultBits), static_cast<double>(kHilbertMinBits),
        static_cast<double>(kHilbertMaxBits), true}},
      [](const ParamValues& p) -> std::unique_ptr<Strategy> {
        const auto cut = [](const Instance& in, const std::vector<std::uint32_t>& order) {
          return Solution{hilbert_cut(in, order), {}};
        };
        return std::make_unique<CurveCutStrategy<decltype(cut)>>(static_cast<int>(p.get("bits")),
                                                                 cut);
      }};
}

}  // namespace builtin

}  // namespace vela::lb
