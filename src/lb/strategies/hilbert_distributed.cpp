// Distributed Hilbert strategy: the cut of the central strategy computed the way the PEs
// compute it in a run (one curve segment per PE), by a parallel prefix sum over the segments, a
// broadcast and a local rule. The runtime's agents (hilbert_agent.cpp) follow the same sums.
#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "kernels/curve_cache.hpp"
#include "strategies.hpp"

namespace vela::lb {

DistributedCut hilbert_distributed_cut(const Instance& instance,
                                       const std::vector<std::uint32_t>& order) {
  const std::size_t n = instance.objects.size();
  if (order.size() != n) {
    throw std::invalid_argument("hilbert_distributed_cut: the order has " +
                                std::to_string(order.size()) + " entries for " + std::to_string(n) +
                                " objects");
  }
  if (instance.pes.empty()) throw InstanceError("the instance has no PEs");
  DistributedCut result;
  result.assignment = current_assignment(instance);
  if (n == 0) return result;
  const std::size_t pes = instance.pes.size();

  // Each owner's running sums over its segment, load and count side by side: the count stands
  // in for the load when no object has work (as hilbert_cut shares by count).
  std::vector<double> local_load(n), local_count(n);
  std::vector<double> window_load(pes, 0.0), window_count(pes, 0.0);
  for (std::size_t s = 0; s < pes; ++s) {
    double load = 0.0, count = 0.0;
    for (std::size_t k = hilbert_segment_begin(n, pes, s); k < hilbert_segment_begin(n, pes, s + 1);
         ++k) {
      const Object& o = instance.objects[order[k]];
      load += o.migratable ? o.load : 0.0;
      count += o.migratable ? 1.0 : 0.0;
      local_load[k] = load;
      local_count[k] = count;
    }
    window_load[s] = load;
    window_count[s] = count;
  }
  // Recursive doubling over the owners: after the round with distance d, window[s] sums the
  // segments (s - 2d, s] and offset[s] the segments (s - 2d, s).
  std::vector<double> offset_load(pes, 0.0), offset_count(pes, 0.0);
  for (std::size_t d = 1; d < pes; d *= 2) {
    for (std::size_t s = pes; s-- > d;) {  // downwards: s - d still holds the last round's value
      offset_load[s] = window_load[s - d] + offset_load[s];
      offset_count[s] = window_count[s - d] + offset_count[s];
      window_load[s] = window_load[s - d] + window_load[s];
      window_count[s] = window_count[s - d] + window_count[s];
    }
    result.messages += pes - d;
    ++result.prefix_rounds;
  }
  // Binomial-tree broadcast of the total from the last owner: the holders double each round.
  for (std::size_t holders = 1; holders < pes; holders *= 2) {
    result.messages += std::min(holders, pes - holders);
    ++result.broadcast_rounds;
  }
  const bool by_count = !(window_load[pes - 1] > 0.0);
  const double total = by_count ? window_count[pes - 1] : window_load[pes - 1];
  for (std::size_t k = 0; k < n; ++k) {
    const Object& o = instance.objects[order[k]];
    if (!o.migratable) continue;
    const std::size_t s = hilbert_segment_of(k, n, pes);
    const double prefix =
        by_count ? offset_count[s] + local_count[k] : offset_load[s] + local_load[k];
    result.assignment.pe[order[k]] =
        hilbert_destination(prefix, by_count ? 1.0 : o.load, total, static_cast<PeId>(pes));
  }
  return result;
}

namespace builtin {

StrategyInfo hilbert_distributed() {
  return {"hilbert-distributed",
          "hilbert's cut computed as the PEs would, one curve segment each: parallel prefix sum, "
          "broadcast, local rule (equal PE shares); runs distributed in the runtime",
          {{"bits", "lattice resolution for non-integer coordinates", kHilbertDefaultBits,
            kHilbertMinBits, kHilbertMaxBits, true}},
          [](const ParamValues& p) -> std::unique_ptr<Strategy> {
            const auto cut = [](const Instance& in, const std::vector<std::uint32_t>& order) {
              DistributedCut c = hilbert_distributed_cut(in, order);
              return Solution{
                  std::move(c.assignment),
                  {{"rounds", static_cast<double>(c.prefix_rounds + c.broadcast_rounds)},
                   {"messages", static_cast<double>(c.messages)}}};
            };
            return std::make_unique<CurveCutStrategy<decltype(cut)>>(
                static_cast<int>(p.get("bits")), cut);
          }};
}

}  // namespace builtin
}  // namespace vela::lb
