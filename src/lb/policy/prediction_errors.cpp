// Scores a predictor on a trace: predict step t + 1 from steps <= t, compare per object and per PE.
#include "vela/lb/policy/prediction_errors.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "vela/lb/model/metrics.hpp"

namespace vela::lb {

namespace {

struct Sums {
  double squared_error = 0.0;
  double measured = 0.0;
  std::size_t count = 0;
  double rank_correlation = 0.0;
  std::size_t ranked_steps = 0;

  void add(const std::vector<double>& predicted, const std::vector<double>& measured_values) {
    for (std::size_t i = 0; i < predicted.size(); ++i) {
      const double d = predicted[i] - measured_values[i];
      squared_error += d * d;
      measured += measured_values[i];
    }
    count += predicted.size();
    if (predicted.size() >= 2) {
      rank_correlation += vela::lb::rank_correlation(predicted, measured_values);
      ++ranked_steps;
    }
  }

  double rmse() const { return count == 0 ? 0.0 : std::sqrt(squared_error / count_d()); }
  double relative_rmse() const { return measured > 0.0 ? rmse() / (measured / count_d()) : 0.0; }
  double mean_rank_correlation() const {
    return ranked_steps == 0 ? 0.0 : rank_correlation / static_cast<double>(ranked_steps);
  }
  double count_d() const { return static_cast<double>(count); }
};

}  // namespace

PredictionErrors prediction_errors(Predictor& predictor, const Trace& trace) {
  TraceCursor cursor(trace);
  PredictionErrors errors;
  Sums objects;
  Sums pes;
  double max_error = 0.0;
  std::unordered_map<ObjectId, double> predicted_by_id;
  std::vector<double> predicted;
  std::vector<double> measured;
  for (;;) {
    const Instance& before = cursor.instance();
    predictor.observe(before);
    const std::vector<double> next = predictor.predict(before);
    predicted_by_id.clear();
    for (std::size_t i = 0; i < before.objects.size(); ++i) {
      predicted_by_id.emplace(before.objects[i].id, next[i]);
    }
    if (!cursor.next()) break;
    const Instance& now = cursor.instance();
    const std::size_t pe_count = now.pes.size();
    std::vector<double> pe_predicted(pe_count, 0.0);
    std::vector<double> pe_measured(pe_count, 0.0);
    predicted.clear();
    measured.clear();
    for (const Object& o : now.objects) {
      const auto it = predicted_by_id.find(o.id);
      if (it == predicted_by_id.end()) continue;  // created this step: nothing to compare
      predicted.push_back(it->second);
      measured.push_back(o.load);
      const auto p = static_cast<std::size_t>(o.pe);
      pe_predicted[p] += it->second;
      pe_measured[p] += o.load;
    }
    for (std::size_t p = 0; p < pe_count; ++p) {
      const Pe& pe = now.pes[p];
      pe_predicted[p] = pe.background + pe_predicted[p] / pe.speed;
      pe_measured[p] = pe.background + pe_measured[p] / pe.speed;
    }
    objects.add(predicted, measured);
    pes.add(pe_predicted, pe_measured);
    if (pe_count > 0) {
      const double predicted_max = *std::max_element(pe_predicted.begin(), pe_predicted.end());
      const double measured_max = *std::max_element(pe_measured.begin(), pe_measured.end());
      if (measured_max > 0.0) max_error += std::abs(predicted_max - measured_max) / measured_max;
    }
    ++errors.predictions;
  }
  errors.compared = objects.count;
  errors.object_rmse = objects.rmse();
  errors.object_relative_rmse = objects.relative_rmse();
  errors.object_rank_correlation = objects.mean_rank_correlation();
  errors.pe_rmse = pes.rmse();
  errors.pe_relative_rmse = pes.relative_rmse();
  errors.pe_rank_correlation = pes.mean_rank_correlation();
  errors.max_pe_relative_error =
      errors.predictions == 0 ? 0.0 : max_error / static_cast<double>(errors.predictions);
  return errors;
}

}  // namespace vela::lb
