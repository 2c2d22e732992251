// The automatic threshold: the window of recent loads, its replay under each candidate
// threshold, and the policy that re-chooses its threshold every `every` steps.
#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "policies.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/policy/auto_threshold.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::lb {

const std::vector<double>& default_thresholds() {
  static const std::vector<double> all = {0.01, 0.10, 0.20, 0.30, 0.40, 0.50};
  return all;
}

LoadWindow::LoadWindow(std::size_t capacity) : capacity_(capacity) {
  if (capacity == 0) throw std::invalid_argument("LoadWindow: capacity must be at least 1");
}

void LoadWindow::record(std::size_t step, const Instance& instance) {
  Step s;
  s.step = step;
  const auto& objects = instance.objects;
  const Step* last = steps_.empty() ? nullptr : &steps_.back();
  const bool same = last != nullptr && last->ids->size() == objects.size() &&
                    std::equal(objects.begin(), objects.end(), last->ids->begin(),
                               [](const Object& o, ObjectId id) { return o.id == id; });
  if (same) {
    s.ids = last->ids;
  } else {
    auto ids = std::make_shared<std::vector<ObjectId>>();
    ids->reserve(objects.size());
    for (const Object& o : objects) ids->push_back(o.id);
    s.ids = std::move(ids);
  }
  s.loads.reserve(objects.size());
  s.pes.reserve(objects.size());
  for (const Object& o : objects) {
    s.loads.push_back(o.load);
    s.pes.push_back(o.pe);
  }
  if (steps_.size() == capacity_) steps_.pop_front();
  steps_.push_back(std::move(s));
}

namespace {

// A recorded step seen over `latest`'s objects: its loads directly when the objects are the
// same, else remapped by id.
struct StepView {
  std::size_t step = 0;
  const std::vector<double>* direct = nullptr;
  std::vector<double> remapped;

  const std::vector<double>& loads() const { return direct != nullptr ? *direct : remapped; }
};

std::vector<StepView> views_over(const LoadWindow& window, const Instance& latest) {
  const auto& objects = latest.objects;
  std::unordered_map<ObjectId, std::size_t> index;
  std::vector<StepView> views;
  for (const LoadWindow::Step& s : window.steps()) {
    StepView v;
    v.step = s.step;
    const bool same = s.ids->size() == objects.size() &&
                      std::equal(objects.begin(), objects.end(), s.ids->begin(),
                                 [](const Object& o, ObjectId id) { return o.id == id; });
    if (same) {
      v.direct = &s.loads;
    } else {
      if (index.empty()) {
        for (std::size_t i = 0; i < objects.size(); ++i) index.emplace(objects[i].id, i);
      }
      v.remapped.assign(objects.size(), 0.0);
      for (std::size_t k = 0; k < s.ids->size(); ++k) {
        const auto it = index.find((*s.ids)[k]);
        if (it != index.end()) v.remapped[it->second] = s.loads[k];
      }
    }
    views.push_back(std::move(v));
  }
  return views;
}

std::vector<PeId> start_placement(const LoadWindow& window, const Instance& latest) {
  std::vector<PeId> pes;
  pes.reserve(latest.objects.size());
  for (const Object& o : latest.objects) pes.push_back(o.pe);
  const LoadWindow::Step& first = window.steps().front();
  std::unordered_map<ObjectId, PeId> then;
  then.reserve(first.ids->size());
  for (std::size_t k = 0; k < first.ids->size(); ++k) then.emplace((*first.ids)[k], first.pes[k]);
  for (std::size_t i = 0; i < latest.objects.size(); ++i) {
    const auto it = then.find(latest.objects[i].id);
    if (it != then.end()) pes[i] = it->second;
  }
  return pes;
}

std::uint64_t hash_of(const std::vector<PeId>& pes) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const PeId p : pes) h = (h ^ static_cast<std::uint32_t>(p)) * 1099511628211ULL;
  return h;
}

// Candidates share their past until they first decide differently, so a strategy call is
// memoized on (step, placement): thresholds that reach the same state pay for one call.
class WindowReplay {
 public:
  WindowReplay(const Instance& latest, std::vector<StepView> views, std::size_t interval,
               Strategy& strategy, const CostParameters& costs)
      : work_(latest),
        views_(std::move(views)),
        interval_(interval),
        strategy_(strategy),
        costs_(costs),
        pe_time_(latest.pes.size()) {}

  std::pair<double, std::size_t> run(double threshold, std::vector<PeId> pes) {
    double total = 0.0;
    std::size_t balances = 0;
    for (std::size_t k = 0; k < views_.size(); ++k) {
      const std::vector<double>& loads = views_[k].loads();
      const LoadStats stats = load_stats(times(loads, pes));
      total += stats.max;
      if (!policy_detail::on_period(views_[k].step, interval_) || stats.imbalance <= threshold) {
        continue;
      }
      const std::vector<PeId>& next = remap(k, loads, pes);
      std::uint64_t moved = 0;
      std::uint64_t bytes = 0;
      for (std::size_t i = 0; i < pes.size(); ++i) {
        if (next[i] == pes[i]) continue;
        ++moved;
        bytes += work_.objects[i].size;
      }
      total += costs_.strategy_seconds + costs_.startup * static_cast<double>(moved) +
               costs_.per_byte * static_cast<double>(bytes);
      pes = next;
      ++balances;
    }
    return {total, balances};
  }

 private:
  const std::vector<double>& times(const std::vector<double>& loads, const std::vector<PeId>& pes) {
    std::fill(pe_time_.begin(), pe_time_.end(), 0.0);
    for (std::size_t i = 0; i < loads.size(); ++i)
      pe_time_[static_cast<std::size_t>(pes[i])] += loads[i];
    for (std::size_t p = 0; p < pe_time_.size(); ++p) {
      pe_time_[p] = work_.pes[p].background + pe_time_[p] / work_.pes[p].speed;
    }
    return pe_time_;
  }

  const std::vector<PeId>& remap(std::size_t k, const std::vector<double>& loads,
                                 const std::vector<PeId>& pes) {
    auto& bucket = memo_[{k, hash_of(pes)}];
    for (const auto& [from, to] : bucket) {
      if (from == pes) return to;
    }
    for (std::size_t i = 0; i < pes.size(); ++i) {
      work_.objects[i].load = loads[i];
      work_.objects[i].pe = pes[i];
    }
    Solution solution = strategy_.solve(work_);
    validate(work_, solution.assignment);
    bucket.emplace_back(pes, std::move(solution.assignment.pe));
    return bucket.back().second;
  }

  Instance work_;
  std::vector<StepView> views_;
  std::size_t interval_;
  Strategy& strategy_;
  CostParameters costs_;
  std::vector<double> pe_time_;
  std::map<std::pair<std::size_t, std::uint64_t>,
           std::vector<std::pair<std::vector<PeId>, std::vector<PeId>>>>
      memo_;
};

}  // namespace

ThresholdChoice choose_threshold(const LoadWindow& window, const Instance& latest,
                                 const std::vector<double>& thresholds, std::size_t interval,
                                 const std::string& strategy, const RawParams& strategy_params,
                                 const CostParameters& costs) {
  if (window.size() == 0) throw std::invalid_argument("choose_threshold: the window is empty");
  if (thresholds.empty()) throw std::invalid_argument("choose_threshold: no candidate thresholds");
  if (interval == 0) throw std::invalid_argument("choose_threshold: interval must be >= 1");
  std::unique_ptr<Strategy> solver = make_strategy(strategy, strategy_params);
  WindowReplay replay(latest, views_over(window, latest), interval, *solver, costs);
  const std::vector<PeId> start = start_placement(window, latest);
  ThresholdChoice choice;
  choice.thresholds = thresholds;
  double best = std::numeric_limits<double>::infinity();
  for (const double t : thresholds) {
    const auto [total, balances] = replay.run(t, start);
    choice.totals.push_back(total);
    choice.balances.push_back(balances);
    if (total < best) {  // ties keep the first, smallest threshold
      best = total;
      choice.threshold = t;
    }
  }
  return choice;
}

namespace policy_detail {

namespace {

// Balances when λ > its threshold at every `interval`-th step; re-chooses the threshold by
// replaying the window once it is full and then every `every` steps.
class AutoThresholdPolicy final : public Policy {
 public:
  explicit AutoThresholdPolicy(const ParamValues& p)
      : strategy_(p.text("strategy")),
        interval_(static_cast<std::size_t>(p.get("interval"))),
        every_(static_cast<std::size_t>(p.get("every"))),
        threshold_(p.get("initial") / 100.0),
        window_(static_cast<std::size_t>(p.get("window"))) {}

  Decision decide(const PolicyInput& input) override {
    window_.record(input.step, *input.instance);
    const bool first_full = window_.full() && !chosen_once_;
    if (first_full || (window_.full() && on_period(input.step, every_))) {
      threshold_ = choose_threshold(window_, *input.instance, default_thresholds(), interval_,
                                    strategy_, {}, input.costs)
                       .threshold;
      chosen_once_ = true;
    }
    if (!on_period(input.step, interval_)) return {};
    if (current_imbalance(*input.instance) <= threshold_) return {};
    return {strategy_, {}};
  }

 private:
  std::string strategy_;
  std::size_t interval_;
  std::size_t every_;
  double threshold_;
  LoadWindow window_;
  bool chosen_once_ = false;
};

}  // namespace

PolicyInfo auto_threshold() {
  return {"auto-threshold",
          "balances when λ > θ, choosing θ among 1,10,20,30,40,50% by replaying the last "
          "`window` steps' loads (Rodrigues §4.5); re-chosen every `every` steps",
          {strategy_param("strategy", "strategy to run (and to replay the window with)", "greedy"),
           {"interval", "steps between checks of λ", 1.0, 1.0, 1e9, true},
           {"window", "steps of per-object loads remembered", 50.0, 1.0, 100000.0, true},
           {"every", "steps between choices of θ", 100.0, 1.0, 1e9, true},
           {"initial", "θ in percent until the window is first full", 20.0, 0.0, 1e6, false}},
          [](const ParamValues& p) { return std::make_unique<AutoThresholdPolicy>(p); }};
}

}  // namespace policy_detail

}  // namespace vela::lb
