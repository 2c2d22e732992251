// Greedy-refine: greedy quality with fewer migrations. One greedy pass, heaviest object
// first: an object stays on its current PE when that PE, with it, is within
// (1 + tolerance) * ideal time, and otherwise goes where it finishes earliest. Deciding stays
// and moves in the same heaviest-first pass keeps greedy's guarantee: had every stay been
// decided first, PEs would fill with light objects that stay and leave no room for the heavy
// objects that must move. O(n log n + n log P).
#include "kernels/pe_times.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

class GreedyRefineStrategy final : public Strategy {
 public:
  explicit GreedyRefineStrategy(double tolerance) : tolerance_(tolerance) {}

  Solution solve(const Instance& instance) override {
    const Assignment current = current_assignment(instance);
    Assignment a = current;
    if (instance.pes.empty()) return {std::move(a), {{"moves", 0.0}, {"kept", 0.0}}};
    std::vector<double> work = pe_work(instance, current, true);
    const double limit = (1.0 + tolerance_) * ideal_time(instance);

    std::size_t kept = 0;
    EarliestFinish pes(instance, std::move(work));
    for (const LoadedObject& o : migratable_heaviest_first(instance)) {
      const PeId here = current.pe[o.index];
      const PeId pe = pes.finish(here, o.load) <= limit ? here : pes.best(o.load);
      kept += pe == here ? 1 : 0;
      pes.add(pe, o.load);
      a.pe[o.index] = pe;
    }
    StrategyStats stats = {{"moves", count_moves(current, a)}, {"kept", static_cast<double>(kept)}};
    return {std::move(a), std::move(stats)};
  }

 private:
  double tolerance_;
};

}  // namespace

StrategyInfo greedy_refine() {
  return {
      "greedy-refine",
      "greedy, but an object stays on its PE while that PE is within the tolerance",
      {{"tolerance", "an object stays while its PE's time is at most (1 + tolerance) * ideal time",
        0.05, 0.0, 10.0, false}},
      [](const ParamValues& p) {
        return std::make_unique<GreedyRefineStrategy>(p.get("tolerance"));
      }};
}

}  // namespace vela::lb::builtin
