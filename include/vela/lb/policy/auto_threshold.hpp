// The automatic imbalance threshold (Rodrigues §4.5): remember the per-object loads of the
// last steps, replay them under each candidate threshold and keep the cheapest, on the principle
// of persistence (the best threshold of the recent past is the best for the near future).
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "vela/lb/model/instance.hpp"
#include "vela/lb/policy/policy.hpp"

namespace vela::lb {

// Rodrigues' candidates, as fractions: 1, 10, 20, 30, 40 and 50%.
const std::vector<double>& default_thresholds();

// The loads and PEs of every object in each of the last `capacity` steps, by object id.
class LoadWindow {
 public:
  struct Step {
    std::size_t step = 0;
    std::shared_ptr<const std::vector<ObjectId>> ids;  // shared while the objects do not change
    std::vector<double> loads;
    std::vector<PeId> pes;
  };

  explicit LoadWindow(std::size_t capacity);

  // Records the step's loads and placement, forgetting the oldest step when full.
  void record(std::size_t step, const Instance& instance);
  void clear() { steps_.clear(); }

  std::size_t capacity() const { return capacity_; }
  std::size_t size() const { return steps_.size(); }
  bool full() const { return steps_.size() == capacity_; }
  const std::deque<Step>& steps() const { return steps_; }

 private:
  std::size_t capacity_;
  std::deque<Step> steps_;
};

// What the window replay found: one total per candidate threshold, and the cheapest.
struct ThresholdChoice {
  double threshold = 0.0;             // the chosen fraction
  std::vector<double> thresholds;     // the candidates, as given
  std::vector<double> totals;         // seconds each would have cost over the window
  std::vector<std::size_t> balances;  // balances each would have done
};

// Replays `window` once per candidate threshold, over the objects of `latest` (an object absent
// from a recorded step has load 0 there; objects deleted since are left out) and its PEs and
// edges, starting from the placement of the window's first step (objects created since start
// where they are now). At the end of each recorded step s the step's time, the largest PE time
// (background + work / speed), is added; then, when (s + 1) % interval == 0 and λ > threshold,
// `strategy` re-maps the objects (on that step's loads) and the balance costs
// costs.strategy_seconds + costs.startup * objects moved + costs.per_byte * bytes moved.
// The cheapest threshold wins; a tie goes to the first candidate (the smallest, in the default
// list): tied candidates balanced at the same steps, so the data cannot tell them apart, and the
// smaller one reacts sooner to what the window did not show.
// Throws std::invalid_argument for an empty window, no candidates or interval 0.
ThresholdChoice choose_threshold(const LoadWindow& window, const Instance& latest,
                                 const std::vector<double>& thresholds, std::size_t interval,
                                 const std::string& strategy, const RawParams& strategy_params,
                                 const CostParameters& costs);

}  // namespace vela::lb
