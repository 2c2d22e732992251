// Greedy: ignores where objects are and places them heaviest first, each on the PE
// where it would finish earliest. O(n log n) for the sort plus O(log P) per object (times
// the number of speed groups when PEs differ in speed, see EarliestFinish).
#include "kernels/pe_times.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

class GreedyStrategy final : public Strategy {
 public:
  Solution solve(const Instance& instance) override {
    const Assignment current = current_assignment(instance);
    Assignment a = current;
    if (instance.pes.empty()) return {std::move(a), {{"moves", 0.0}}};
    // Non-migratable objects stay and count as work their PE already has.
    EarliestFinish pes(instance, pe_work(instance, current, true));
    for (const LoadedObject& o : migratable_heaviest_first(instance)) {
      const PeId pe = pes.best(o.load);
      pes.add(pe, o.load);
      a.pe[o.index] = pe;
    }
    StrategyStats stats = {{"moves", count_moves(current, a)}};
    return {std::move(a), std::move(stats)};
  }
};

}  // namespace

StrategyInfo greedy() {
  return {"greedy",
          "heaviest object first to the PE where it finishes earliest; ignores current placement",
          {},
          [](const ParamValues&) { return std::make_unique<GreedyStrategy>(); }};
}

}  // namespace vela::lb::builtin
