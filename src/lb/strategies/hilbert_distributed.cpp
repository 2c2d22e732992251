// Distributed Hilbert strategy (ST-9): the cut of the central strategy computed the way the
// objects themselves would compute it, by a parallel prefix sum, a broadcast and a local rule.
#include <chrono>
#include <stdexcept>

#include "curve_cache.hpp"
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

  std::vector<double> load(n);
  bool any_work = false;
  for (std::size_t k = 0; k < n; ++k) {
    const Object& o = instance.objects[order[k]];
    load[k] = o.migratable ? o.load : 0.0;
    any_work = any_work || load[k] > 0.0;
  }
  if (!any_work) {  // as hilbert_cut does: share the movable objects by count
    for (std::size_t k = 0; k < n; ++k) load[k] = instance.objects[order[k]].migratable ? 1.0 : 0.0;
  }

  // Recursive doubling: after the round with distance d, prefix[k] sums load[k-2d+1 .. k].
  std::vector<double> prefix = load;
  std::vector<double> next(n);
  for (std::size_t d = 1; d < n; d *= 2) {
    for (std::size_t k = 0; k < n; ++k) next[k] = k >= d ? prefix[k] + prefix[k - d] : prefix[k];
    prefix.swap(next);
    result.messages += n - d;
    ++result.prefix_rounds;
  }
  // Binomial-tree broadcast of the total from the last object: the holders double each round.
  const double total = prefix[n - 1];
  for (std::size_t holders = 1; holders < n; holders *= 2) {
    result.messages += std::min(holders, n - holders);
    ++result.broadcast_rounds;
  }
  const auto pes = static_cast<PeId>(instance.pes.size());
  for (std::size_t k = 0; k < n; ++k) {
    if (!instance.objects[order[k]].migratable) continue;
    result.assignment.pe[order[k]] = hilbert_destination(prefix[k], load[k], total, pes);
  }
  return result;
}

namespace builtin {

StrategyInfo hilbert_distributed() {
  return {"hilbert-distributed",
          "hilbert's cut computed as the objects would: parallel prefix sum, broadcast, local "
          "rule (equal PE shares)",
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
