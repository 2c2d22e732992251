// Refine-swap: refine, then, while the most loaded PE is still above the level, the
// best single move off it or, when no move lowers it, the best swap of an object pair between
// it and one of the PEs with the most room. Every step lowers that PE and keeps its partner
// below the old maximum, so the maximum never rises above refine's. Each step costs O(P) to
// find the PE and its partners plus O(k log k') per partner (k, k' their object counts); the
// phase runs only when refine left a PE above the level, and at most 4P + 64 steps.
#include <limits>
#include <optional>

#include "kernels/pe_times.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

constexpr std::size_t kPartners = 8;

// One change to a PE pair: `give` (an entry of the loaded PE) goes to `to`; when `take` is set,
// that entry of `to` comes back (a swap).
struct Change {
  double peak = std::numeric_limits<double>::infinity();  // the larger of the two new times
  std::size_t to = 0;
  std::size_t give = 0;
  std::optional<std::size_t> take;
};

class SwapPhase {
 public:
  SwapPhase(const Instance& instance, RefineOutcome& state, double level)
      : instance_(instance), state_(state), level_(level), objects_(instance.pes.size()) {
    for (std::size_t i = 0; i < instance.objects.size(); ++i) {
      const Object& o = instance.objects[i];
      if (o.migratable && o.load > 0.0) {
        objects_[static_cast<std::size_t>(state.assignment.pe[i])].push_back(
            {o.load, static_cast<std::uint32_t>(i)});
      }
    }
    for (std::vector<LoadedObject>& on_pe : objects_) {
      std::sort(on_pe.begin(), on_pe.end(), heavier);
    }
  }

  // Returns how many swaps it made.
  std::size_t run() {
    std::size_t swaps = 0;
    const std::size_t max_steps = 4 * instance_.pes.size() + 64;
    for (std::size_t step = 0; step < max_steps; ++step) {
      const std::size_t loaded = most_loaded();
      if (time(loaded) <= level_) break;
      const std::vector<std::size_t> partners = roomiest(loaded);
      Change best;
      for (const std::size_t to : partners) best_move(loaded, to, best);
      if (best.peak == std::numeric_limits<double>::infinity()) {
        for (const std::size_t to : partners) best_swap(loaded, to, best);
      }
      if (best.peak == std::numeric_limits<double>::infinity()) break;
      apply(loaded, best);
      if (best.take) ++swaps;
    }
    return swaps;
  }

 private:
  double time(std::size_t p) const { return pe_time(instance_.pes[p], state_.work[p]); }
  double speed(std::size_t p) const { return instance_.pes[p].speed; }

  std::size_t most_loaded() const {
    std::size_t best = 0;
    for (std::size_t p = 1; p < instance_.pes.size(); ++p) {
      if (time(p) > time(best)) best = p;
    }
    return best;
  }

  // The partners with the most room below the loaded PE's time, most first.
  std::vector<std::size_t> roomiest(std::size_t loaded) const {
    const double top = time(loaded);
    std::vector<std::pair<double, std::size_t>> room;  // (-room, PE), so ascending is best first
    for (std::size_t p = 0; p < instance_.pes.size(); ++p) {
      if (p != loaded && time(p) < top) room.emplace_back(-(top - time(p)) * speed(p), p);
    }
    const std::size_t keep = std::min(kPartners, room.size());
    std::partial_sort(room.begin(), room.begin() + static_cast<std::ptrdiff_t>(keep), room.end());
    std::vector<std::size_t> partners;
    for (std::size_t k = 0; k < keep; ++k) partners.push_back(room[k].second);
    return partners;
  }

  // The work to move from `loaded` to `to` that would leave both at the same time.
  double balancing_work(std::size_t loaded, std::size_t to) const {
    return (time(loaded) - time(to)) / (1.0 / speed(loaded) + 1.0 / speed(to));
  }

  // Entries of `on_pe` (heaviest first) nearest to `load`: the last above and the first at or
  // below it.
  static std::pair<std::size_t, std::size_t> nearest(const std::vector<LoadedObject>& on_pe,
                                                     double load) {
    const auto at = static_cast<std::size_t>(
        std::partition_point(on_pe.begin(), on_pe.end(),
                             [load](const LoadedObject& o) { return o.load > load; }) -
        on_pe.begin());
    return {at == 0 ? on_pe.size() : at - 1, at};
  }

  // Records the change if it lowers the pair's peak below the loaded PE's time and beats `best`
  // (ties: the earlier candidate, i.e. lower partner, then heavier object).
  void consider(std::size_t loaded, std::size_t to, double net, std::size_t give,
                std::optional<std::size_t> take, Change& best) const {
    const double peak = std::max(time(loaded) - net / speed(loaded), time(to) + net / speed(to));
    if (net > 0.0 && peak < time(loaded) && peak < best.peak) best = {peak, to, give, take};
  }

  void best_move(std::size_t loaded, std::size_t to, Change& best) const {
    const std::vector<LoadedObject>& from = objects_[loaded];
    const auto [above, below] = nearest(from, balancing_work(loaded, to));
    for (const std::size_t e : {above, below}) {
      if (e < from.size()) consider(loaded, to, from[e].load, e, std::nullopt, best);
    }
  }

  void best_swap(std::size_t loaded, std::size_t to, Change& best) const {
    const std::vector<LoadedObject>& from = objects_[loaded];
    const std::vector<LoadedObject>& back = objects_[to];
    const double balance = balancing_work(loaded, to);
    for (std::size_t g = 0; g < from.size(); ++g) {
      const auto [above, below] = nearest(back, from[g].load - balance);
      for (const std::size_t t : {above, below}) {
        if (t < back.size()) consider(loaded, to, from[g].load - back[t].load, g, t, best);
      }
    }
  }

  void apply(std::size_t loaded, const Change& change) {
    const LoadedObject given = take_out(loaded, change.give);
    if (change.take) put_in(loaded, take_out(change.to, *change.take));
    put_in(change.to, given);
  }

  LoadedObject take_out(std::size_t pe, std::size_t entry) {
    std::vector<LoadedObject>& on_pe = objects_[pe];
    const LoadedObject o = on_pe[entry];
    on_pe.erase(on_pe.begin() + static_cast<std::ptrdiff_t>(entry));
    state_.work[pe] -= o.load;
    return o;
  }

  void put_in(std::size_t pe, const LoadedObject& o) {
    std::vector<LoadedObject>& on_pe = objects_[pe];
    on_pe.insert(std::upper_bound(on_pe.begin(), on_pe.end(), o, heavier), o);
    state_.work[pe] += o.load;
    state_.assignment.pe[o.index] = static_cast<PeId>(pe);
  }

  const Instance& instance_;
  RefineOutcome& state_;
  double level_;
  std::vector<std::vector<LoadedObject>> objects_;  // per PE, heaviest first, load > 0
};

class RefineSwapStrategy final : public Strategy {
 public:
  explicit RefineSwapStrategy(double tolerance) : tolerance_(tolerance) {}

  Solution solve(const Instance& instance) override {
    RefineOutcome state = refine_placement(instance, tolerance_);
    const double level = (1.0 + tolerance_) * state.target;
    std::size_t swaps = 0;
    bool above = false;
    for (std::size_t p = 0; p < instance.pes.size(); ++p) {
      above = above || pe_time(instance.pes[p], state.work[p]) > level;
    }
    if (above) swaps = SwapPhase(instance, state, level).run();
    StrategyStats stats = {{"moves", count_moves(current_assignment(instance), state.assignment)},
                           {"rounds", static_cast<double>(state.rounds)},
                           {"swaps", static_cast<double>(swaps)}};
    return {std::move(state.assignment), std::move(stats)};
  }

 private:
  double tolerance_;
};

}  // namespace

StrategyInfo refine_swap() {
  return {"refine-swap",
          "refine, then moves or swaps object pairs off the most loaded PE while that lowers it",
          {{"tolerance", "PEs above (1 + tolerance) * ideal time are unloaded", 0.05, 0.0, 10.0,
            false}},
          [](const ParamValues& p) {
            return std::make_unique<RefineSwapStrategy>(p.get("tolerance"));
          }};
}

}  // namespace vela::lb::builtin
