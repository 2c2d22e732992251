// Greedy-refine (ST-4): greedy quality with fewer migrations. Objects are visited heaviest
// first and stay on their PE while it remains within (1 + tolerance) * ideal time; the rest
// are then placed greedily, heaviest first, on the PE where each finishes earliest.
// Deciding every "stay" before placing anything means no PE receives work that its own
// objects would later be displaced by. O(n log n + n log P).
#include "pe_times.hpp"
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
    const double limit = (1.0 + tolerance_) * ideal_time(instance, work, migratable_work(instance));

    std::vector<LoadedObject> order = migratable_heaviest_first(instance);
    std::size_t placed = 0;  // the objects still to place move to the front, in order
    for (const LoadedObject& o : order) {
      const auto pe = static_cast<std::size_t>(current.pe[o.index]);
      if (pe_time(instance.pes[pe], work[pe] + o.load) <= limit) {
        work[pe] += o.load;
      } else {
        order[placed++] = o;
      }
    }
    const std::size_t kept = order.size() - placed;
    order.resize(placed);
    EarliestFinish pes(instance, std::move(work));
    for (const LoadedObject& o : order) {
      const PeId pe = pes.best(o.load);
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
