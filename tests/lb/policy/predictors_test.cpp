// Load predictors and their scoring on traces.
#include <gtest/gtest.h>

#include <cmath>

#include "lb/policy/policy_support.hpp"
#include "vela/lb/policy/prediction_errors.hpp"

namespace {

using namespace vela::lb;
using vela::testing::object_at;

// One PE holding one object per given load.
Instance loads_instance(const std::vector<double>& loads, ObjectId first_id = 1) {
  Instance in;
  in.pes = {Pe{}};
  for (std::size_t k = 0; k < loads.size(); ++k) {
    in.objects.push_back(object_at(first_id + static_cast<ObjectId>(k), loads[k], 0));
  }
  return in;
}

// Feeds one object's loads, one observe() per value, and predicts the next.
double after(Predictor& p, const std::vector<double>& sequence) {
  for (const double v : sequence) p.observe(loads_instance({v}));
  return p.predict(loads_instance({sequence.back()})).at(0);
}

TEST(Predictors, RegisteredInFixedOrder) {
  std::vector<std::string> names;
  for (const PredictorInfo& info : predictors()) names.push_back(info.name);
  EXPECT_EQ(names, (std::vector<std::string>{"persistence", "median", "trend"}));
}

TEST(Predictors, BadNamesAndParametersAreRejected) {
  try {
    make_predictor("oracle");
    FAIL() << "an unknown predictor was accepted";
  } catch (const ParamError& e) {
    EXPECT_NE(std::string(e.what()).find("known: persistence, median, trend"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(make_predictor("median", {{"window", "0"}}), ParamError);
  EXPECT_THROW(make_predictor("trend", {{"window", "1"}}), ParamError);  // a line needs 2 points
  EXPECT_THROW(make_predictor("persistence", {{"window", "3"}}), ParamError);
}

TEST(Predictors, AllAreExactOnAConstantSequence) {
  for (const PredictorInfo& info : predictors()) {
    auto p = make_predictor(info.name);
    EXPECT_EQ(after(*p, {2.5, 2.5, 2.5, 2.5, 2.5, 2.5}), 2.5) << info.name;
  }
}

TEST(Predictors, PersistencePredictsTheLastLoad) {
  auto p = make_predictor("persistence");
  EXPECT_EQ(after(*p, {1.0, 7.0, 3.0}), 3.0);
}

TEST(Predictors, TrendIsExactOnALine) {
  auto p = make_predictor("trend", {{"window", "4"}});
  // 1, 1.5, 2, 2.5 -> 3; all values and the least-squares sums are exact in binary.
  EXPECT_EQ(after(*p, {1.0, 1.5, 2.0, 2.5}), 3.0);
  auto q = make_predictor("trend", {{"window", "5"}});
  EXPECT_DOUBLE_EQ(after(*q, {10.0, 9.0, 8.0, 7.0, 6.0}), 5.0);  // falling
}

TEST(Predictors, TrendUsesOnlyItsWindowAndNeverPredictsNegativeLoad) {
  auto p = make_predictor("trend", {{"window", "3"}});
  // The old 5s are outside the window of 3: the line through 1, 2, 3 gives 4.
  EXPECT_DOUBLE_EQ(after(*p, {5.0, 5.0, 5.0, 1.0, 2.0, 3.0}), 4.0);
  auto q = make_predictor("trend", {{"window", "2"}});
  EXPECT_EQ(after(*q, {3.0, 1.0}), 0.0);  // the line says -1
}

TEST(Predictors, MedianIsRobustToASpikeWherePersistenceIsNot) {
  const std::vector<double> spiked = {1.0, 1.0, 1.0, 1.0, 10.0};
  auto median = make_predictor("median", {{"window", "5"}});
  auto persistence = make_predictor("persistence");
  EXPECT_EQ(after(*median, spiked), 1.0);
  EXPECT_EQ(after(*persistence, spiked), 10.0);
  auto even = make_predictor("median", {{"window", "4"}});
  EXPECT_EQ(after(*even, {9.0, 3.0, 1.0, 2.0, 10.0}), 2.5);  // last 4: 3, 1, 2, 10
}

TEST(Predictors, ObjectsThatComeAndGoAreTrackedById) {
  auto p = make_predictor("median", {{"window", "3"}});
  p->observe(loads_instance({4.0, 6.0}, 1));  // ids 1, 2
  p->observe(loads_instance({4.0, 8.0}, 1));
  // Id 1 disappears; id 2 stays (now first); id 3 appears.
  Instance later;
  later.pes = {Pe{}};
  later.objects = {object_at(2, 10.0, 0), object_at(3, 5.0, 0)};
  p->observe(later);
  // Id 2: median of 6, 8, 10. Id 3: median of 5. Id 1 reappearing is forgotten: its own load.
  later.objects.push_back(object_at(1, 0.5, 0));
  const std::vector<double> predicted = p->predict(later);
  EXPECT_EQ(predicted, (std::vector<double>{8.0, 5.0, 0.5}));
  // Never observed: predicted at its current load, by every predictor.
  for (const PredictorInfo& info : predictors()) {
    auto fresh = make_predictor(info.name);
    EXPECT_EQ(fresh->predict(loads_instance({0.25, 4.0})), (std::vector<double>{0.25, 4.0}));
  }
}

// 4 objects on 2 PEs, object k's load at time t (t = 0 initial, t = s + 1 step s) is
// k + 1 + 0.5 t: a line. Persistence is always 0.5 late; the trend is exact from the second
// prediction on (its first prediction has one point and equals persistence).
TEST(PredictionErrors, MatchHandComputedErrorsOnALinearTrace) {
  constexpr std::size_t steps = 8;
  std::vector<Object> objects;
  for (int k = 0; k < 4; ++k) objects.push_back(object_at(k, k + 1.0, k % 2));
  std::vector<std::vector<double>> loads;
  for (std::size_t s = 0; s < steps; ++s) {
    std::vector<double> row;
    for (int k = 0; k < 4; ++k) row.push_back(k + 1.0 + 0.5 * static_cast<double>(s + 1));
    loads.push_back(row);
  }
  const Trace trace = vela::testing::static_objects_trace(2, objects, {}, loads);
  auto persistence = make_predictor("persistence");
  const PredictionErrors pe = prediction_errors(*persistence, trace);
  EXPECT_EQ(pe.predictions, steps);
  EXPECT_EQ(pe.compared, 4 * steps);
  EXPECT_DOUBLE_EQ(pe.object_rmse, 0.5);
  EXPECT_DOUBLE_EQ(pe.pe_rmse, 1.0);  // two objects per PE, each 0.5 low
  EXPECT_DOUBLE_EQ(pe.object_rank_correlation, 1.0);

  auto trend = make_predictor("trend");
  const PredictionErrors te = prediction_errors(*trend, trace);
  // Only the first prediction errs: sqrt(4 * 0.25 / (4 * 8)) and sqrt(2 * 1 / (2 * 8)).
  EXPECT_NEAR(te.object_rmse, 0.5 / std::sqrt(8.0), 1e-12);
  EXPECT_NEAR(te.pe_rmse, 1.0 / std::sqrt(8.0), 1e-12);
  // Relative RMSE divides by the mean measured load of the compared pairs.
  double sum = 0.0;
  for (const auto& row : loads) sum += row[0] + row[1] + row[2] + row[3];
  EXPECT_NEAR(pe.object_relative_rmse, 0.5 / (sum / (4.0 * steps)), 1e-12);
}

TEST(PredictionErrors, CreatedObjectsAreLeftOutOfTheirFirstStep) {
  Trace t = vela::testing::static_objects_trace(2, {object_at(1, 1.0, 0), object_at(2, 1.0, 1)}, {},
                                                {{1.0, 1.0}, {1.0, 1.0}});
  // Step 2 creates id 3 (load 100: a prediction for it would dominate the error) and step 3
  // deletes id 1.
  TraceStep s2;
  s2.created = {object_at(3, 0.0, 1)};
  s2.loads = {1.0, 1.0, 100.0};
  TraceStep s3;
  s3.deleted = {1};
  s3.loads = {1.0, 100.0};
  t.steps.push_back(s2);
  t.steps.push_back(s3);
  validate(t);
  auto p = make_predictor("persistence");
  const PredictionErrors e = prediction_errors(*p, t);
  EXPECT_EQ(e.predictions, 4u);
  EXPECT_EQ(e.compared, 2u + 2u + 2u + 2u);  // id 3 not in step 2; id 1 gone in step 3
  EXPECT_EQ(e.object_rmse, 0.0);
  EXPECT_EQ(e.pe_rmse, 0.0);
}

}  // namespace
