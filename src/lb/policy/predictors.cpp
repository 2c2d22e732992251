// Load predictors: persistence, median of the last N loads, linear trend over the last N.
// Each keeps a short history per object id; objects that disappear are forgotten, objects never
// observed are predicted at their current load.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "model/registry.hpp"
#include "vela/lb/policy/policy.hpp"

namespace vela::lb {

namespace {

// The last `depth` loads of every object seen in the latest observe(), in one flat buffer:
// slot s holds its values in [s * depth, (s + 1) * depth) as a ring.
class LoadHistory {
 public:
  explicit LoadHistory(std::size_t depth) : depth_(depth) {}

  void observe(const Instance& instance) {
    ++stamp_;
    for (const Object& o : instance.objects) {
      auto [it, fresh] = slot_of_.try_emplace(o.id, 0);
      if (fresh) it->second = allocate();
      const std::uint32_t s = it->second;
      if (seen_[s] == stamp_) continue;  // an id twice in one instance: keep the first
      seen_[s] = stamp_;
      values_[s * depth_ + head_[s]] = o.load;
      head_[s] = static_cast<std::uint32_t>((head_[s] + 1) % depth_);
      count_[s] = std::min<std::uint32_t>(count_[s] + 1, static_cast<std::uint32_t>(depth_));
    }
    if (slot_of_.size() > instance.objects.size()) forget_unseen();
  }

  // The object's loads, oldest first; empty when it was not seen in the latest observe().
  void values(ObjectId id, std::vector<double>& out) const {
    out.clear();
    const auto it = slot_of_.find(id);
    if (it == slot_of_.end()) return;
    const std::uint32_t s = it->second;
    const std::size_t n = count_[s];
    const std::size_t first = (head_[s] + depth_ - n) % depth_;
    for (std::size_t k = 0; k < n; ++k) out.push_back(values_[s * depth_ + (first + k) % depth_]);
  }

 private:
  std::uint32_t allocate() {
    if (!free_.empty()) {
      const std::uint32_t s = free_.back();
      free_.pop_back();
      head_[s] = 0;
      count_[s] = 0;
      return s;
    }
    const auto s = static_cast<std::uint32_t>(head_.size());
    head_.push_back(0);
    count_.push_back(0);
    seen_.push_back(0);
    values_.resize(values_.size() + depth_);
    return s;
  }

  void forget_unseen() {
    for (auto it = slot_of_.begin(); it != slot_of_.end();) {
      if (seen_[it->second] == stamp_) {
        ++it;
        continue;
      }
      free_.push_back(it->second);
      it = slot_of_.erase(it);
    }
  }

  std::size_t depth_;
  std::uint64_t stamp_ = 0;
  std::unordered_map<ObjectId, std::uint32_t> slot_of_;
  std::vector<std::uint32_t> head_;   // next write position in the slot's ring
  std::vector<std::uint32_t> count_;  // values held (at most depth_)
  std::vector<std::uint64_t> seen_;   // stamp of the last observe() that saw the slot
  std::vector<double> values_;
  std::vector<std::uint32_t> free_;
};

// A predictor that maps each object's recent loads (oldest first, never empty) to a prediction.
class HistoryPredictor : public Predictor {
 public:
  explicit HistoryPredictor(std::size_t depth) : history_(depth) {}

  void observe(const Instance& instance) override { history_.observe(instance); }

  std::vector<double> predict(const Instance& instance) const override {
    std::vector<double> predicted;
    predicted.reserve(instance.objects.size());
    std::vector<double> recent;
    for (const Object& o : instance.objects) {
      history_.values(o.id, recent);
      predicted.push_back(recent.empty() ? o.load : std::max(0.0, from(recent)));
    }
    return predicted;
  }

 protected:
  virtual double from(std::vector<double>& recent) const = 0;

 private:
  LoadHistory history_;
};

class PersistencePredictor final : public HistoryPredictor {
 public:
  PersistencePredictor() : HistoryPredictor(1) {}

 protected:
  double from(std::vector<double>& recent) const override { return recent.back(); }
};

// The median resists a one-step spike (radiation) that persistence would carry forward.
class MedianPredictor final : public HistoryPredictor {
 public:
  explicit MedianPredictor(std::size_t window) : HistoryPredictor(window) {}

 protected:
  double from(std::vector<double>& recent) const override {
    const std::size_t n = recent.size();
    const auto mid = recent.begin() + static_cast<std::ptrdiff_t>(n / 2);
    std::nth_element(recent.begin(), mid, recent.end());
    if (n % 2 == 1) return *mid;
    const double upper = *mid;
    const double lower = *std::max_element(recent.begin(), mid);
    return (lower + upper) / 2.0;
  }
};

// Least squares line through (k, load_k), k = 0 .. n-1, evaluated at k = n: follows drift.
class TrendPredictor final : public HistoryPredictor {
 public:
  explicit TrendPredictor(std::size_t window) : HistoryPredictor(window) {}

 protected:
  double from(std::vector<double>& recent) const override {
    const std::size_t n = recent.size();
    if (n == 1) return recent[0];
    const double mean_x = static_cast<double>(n - 1) / 2.0;
    double mean_y = 0.0;
    for (const double y : recent) mean_y += y;
    mean_y /= static_cast<double>(n);
    double sxy = 0.0;
    double sxx = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      const double dx = static_cast<double>(k) - mean_x;
      sxy += dx * (recent[k] - mean_y);
      sxx += dx * dx;
    }
    return mean_y + (sxy / sxx) * (static_cast<double>(n) - mean_x);
  }
};

std::size_t window_of(const ParamValues& p) {
  return static_cast<std::size_t>(p.get("window"));
}

registry_detail::Registry<PredictorInfo>& registry() {
  static registry_detail::Registry<PredictorInfo> all(
      "predictor",
      {
          {"persistence",
           "next load = last load (the principle of persistence)",
           {},
           [](const ParamValues&) { return std::make_unique<PersistencePredictor>(); }},
          {"median",
           "next load = median of the last `window` loads (ignores isolated spikes)",
           {{"window", "loads remembered per object", 5.0, 1.0, 1000.0, true}},
           [](const ParamValues& p) { return std::make_unique<MedianPredictor>(window_of(p)); }},
          {"trend",
           "next load = least-squares line through the last `window` loads, one step ahead",
           {{"window", "loads remembered per object", 5.0, 2.0, 1000.0, true}},
           [](const ParamValues& p) { return std::make_unique<TrendPredictor>(window_of(p)); }},
      });
  return all;
}

}  // namespace

std::vector<PredictorInfo> predictors() {
  return registry().all();
}

std::unique_ptr<Predictor> make_predictor(const std::string& name, const RawParams& params) {
  const PredictorInfo& info = registry().find(name);
  return info.make(ParamValues(info.name, info.params, params));
}

void register_predictor(PredictorInfo info) {
  registry().add(std::move(info));
}

}  // namespace vela::lb
