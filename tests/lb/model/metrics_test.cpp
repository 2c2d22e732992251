// Each metric against values worked out by hand.
#include "vela/lb/model/metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace vela::lb {
namespace {

TEST(LoadStats, MomentsOfASmallVector) {
  // mean 3, deviations -2 -1 0 3: m2 = 14/4, m3 = 18/4, m4 = 98/4.
  const LoadStats s = load_stats({1.0, 2.0, 3.0, 6.0});
  EXPECT_DOUBLE_EQ(s.max, 6.0);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_DOUBLE_EQ(s.imbalance, 1.0);
  EXPECT_DOUBLE_EQ(s.max_over_avg, 2.0);
  EXPECT_NEAR(s.stddev, std::sqrt(3.5), 1e-12);
  EXPECT_NEAR(s.skewness, 0.687243193, 1e-9);
  EXPECT_NEAR(s.excess_kurtosis, -1.0, 1e-12);
}

TEST(LoadStats, BalancedLoadsHaveNoImbalanceAndNoShape) {
  const LoadStats s = load_stats({2.5, 2.5, 2.5});
  EXPECT_DOUBLE_EQ(s.imbalance, 0.0);
  EXPECT_DOUBLE_EQ(s.stddev, 0.0);
  EXPECT_DOUBLE_EQ(s.skewness, 0.0);
  EXPECT_DOUBLE_EQ(s.excess_kurtosis, 0.0);
}

TEST(LoadStats, OneHotSpotIsSkewedRight) {
  // One PE at 9, three at 1: mean 3, deviations 6 -2 -2 -2.
  const LoadStats s = load_stats({9.0, 1.0, 1.0, 1.0});
  EXPECT_DOUBLE_EQ(s.imbalance, 2.0);
  const double m2 = (36.0 + 12.0) / 4.0, m3 = (216.0 - 24.0) / 4.0, m4 = (1296.0 + 48.0) / 4.0;
  EXPECT_NEAR(s.skewness, m3 / std::pow(m2, 1.5), 1e-12);
  EXPECT_NEAR(s.excess_kurtosis, m4 / (m2 * m2) - 3.0, 1e-12);
  EXPECT_GT(s.skewness, 1.0);
}

TEST(RankCorrelation, TiesGetTheirMeanRank) {
  // ranks of b: 1 2 3.5 5 3.5; Pearson with 1..5 is 8 / sqrt(10 * 9.5).
  EXPECT_NEAR(rank_correlation({1, 2, 3, 4, 5}, {5, 6, 7, 8, 7}), 8.0 / std::sqrt(95.0), 1e-12);
}

TEST(RankCorrelation, MonotoneAndReversedOrders) {
  EXPECT_DOUBLE_EQ(rank_correlation({1, 2, 3, 4}, {1, 8, 27, 64}), 1.0);
  EXPECT_DOUBLE_EQ(rank_correlation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
}

TEST(RankCorrelation, RejectsMismatchedSizes) {
  EXPECT_THROW(rank_correlation({1, 2, 3}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(rank_correlation({1}, {1}), std::invalid_argument);
}

// Four objects on three PEs in two clusters; a ring of edges 0->1->2->3->0.
Instance small_instance() {
  Instance in;
  in.pes = {{1.0, 0.0, 0}, {1.0, 0.0, 0}, {1.0, 0.0, 1}};
  for (int i = 0; i < 4; ++i) {
    Object o;
    o.id = 10 + i;
    o.load = 1.0;
    o.size = 100u * static_cast<unsigned>(i + 1);
    in.objects.push_back(o);
  }
  in.objects[0].pe = 0;
  in.objects[1].pe = 0;
  in.objects[2].pe = 1;
  in.objects[3].pe = 2;
  in.edges = {{0, 1, 1, 10}, {1, 2, 2, 20}, {2, 3, 3, 30}, {3, 0, 4, 40}};
  return in;
}

TEST(PeLoads, ScaleBySpeedAndAddBackground) {
  Instance in = small_instance();
  in.pes[0].background = 0.5;
  in.pes[1].speed = 2.0;
  in.objects[0].load = 1.0;
  in.objects[1].load = 2.0;
  in.objects[2].load = 3.0;
  in.objects[3].load = 4.0;
  const std::vector<double> loads = pe_loads(in, {{0, 1, 1, 2}});
  ASSERT_EQ(loads.size(), 3u);
  EXPECT_DOUBLE_EQ(loads[0], 1.5);  // 0.5 background + 1 / 1
  EXPECT_DOUBLE_EQ(loads[1], 2.5);  // (2 + 3) / 2
  EXPECT_DOUBLE_EQ(loads[2], 4.0);
}

TEST(IdealTime, SharesMovableWorkOverFixedLoadsBySpeed) {
  Instance in;
  in.pes = {{1.0, 1.0, 0}, {2.0, 0.0, 0}};
  in.objects = {{1, 2.0, 0, {}, 1, false}, {2, 5.0, 0, {}, 0, true}};
  // Fixed loads 1 and 2/2; T solves 1 * (T - 1) + 2 * (T - 1) = 5.
  EXPECT_EQ(fixed_pe_loads(in), (std::vector<double>{1.0, 1.0}));
  EXPECT_NEAR(ideal_time(in), 8.0 / 3.0, 1e-12);
}

TEST(IdealTime, LeavesOutAPeBusierThanTheLevel) {
  Instance in;
  in.pes = {{1.0, 10.0, 0}, {1.0, 0.0, 0}};
  in.objects = {{1, 4.0, 0, {}, 0, true}};
  EXPECT_DOUBLE_EQ(ideal_time(in), 4.0);  // PE 0's background alone exceeds it
  in.pes[0].background = 1.0;
  EXPECT_DOUBLE_EQ(ideal_time(in), 2.5);  // (4 + 1) / 2
}

TEST(CommCut, CountsEdgesBetweenPesAndBetweenClusters) {
  const Instance in = small_instance();
  const CommCut cut = comm_cut(in, current_assignment(in));
  EXPECT_EQ(cut.bytes, 90u);  // 0->1 stays on PE 0
  EXPECT_EQ(cut.messages, 9u);
  EXPECT_EQ(cut.cluster_bytes, 70u);  // 2->3 and 3->0 cross into or out of cluster 1
  EXPECT_EQ(cut.cluster_messages, 7u);
  const CommCut none = comm_cut(in, {{1, 1, 1, 1}});
  EXPECT_EQ(none.bytes, 0u);
  EXPECT_EQ(none.cluster_messages, 0u);
}

TEST(HypergraphCut, WeighsEachHyperedgeByItsExtraPes) {
  Instance in = small_instance();       // objects 0, 1 on PE 0; 2 on PE 1; 3 on PE 2
  in.hyperedges = {{{0, 1}, 5},         // one PE: 0
                   {{0, 2, 3}, 7},      // three PEs: 7 * 2 = 14
                   {{3, 1, 0, 2}, 11},  // three PEs: 11 * 2 = 22
                   {{1, 2}, 0}};        // two PEs, but no bytes: 0
  EXPECT_EQ(hypergraph_cut(in, current_assignment(in)), 36u);
  // Objects 2 and 3 joining PE 0: nothing is cut.
  EXPECT_EQ(hypergraph_cut(in, {{0, 0, 0, 0}}), 0u);
  // Objects 1 and 3 on PE 1: 5 * 1 + 7 * 2 + 11 * 2 + 0 * 1.
  EXPECT_EQ(hypergraph_cut(in, {{0, 1, 2, 1}}), 41u);
  // Every object on a PE of its own (the nets alone): 5 * 1 + 7 * 2 + 11 * 3 + 0 * 1.
  EXPECT_EQ(hypergraph_cut(in.hyperedges, {{0, 1, 2, 3}}), 52u);
  // The edges do not count.
  in.hyperedges.clear();
  EXPECT_EQ(hypergraph_cut(in, current_assignment(in)), 0u);
}

TEST(Migrations, CountObjectsAndBytesThatMove) {
  const Instance in = small_instance();
  const MigrationStats m = migrations(in, current_assignment(in), {{0, 1, 1, 0}});
  EXPECT_EQ(m.count, 2u);  // objects 1 and 3
  EXPECT_EQ(m.bytes, 600u);
  EXPECT_DOUBLE_EQ(migration_time(m, {0.1, 0.01}), 0.2 + 6.0);
}

TEST(PredictedStepTime, AddsEachPesOutgoingRemoteTraffic) {
  const Instance in = small_instance();
  // PE loads 2 1 1; remote sends: PE0 2 msgs/20 B, PE1 3/30, PE2 4/40.
  const double t = predicted_step_time(in, current_assignment(in), {0.1, 0.01});
  EXPECT_NEAR(t, 2.0 + 0.2 + 0.2, 1e-12);
  EXPECT_DOUBLE_EQ(predicted_step_time(in, current_assignment(in), {}), 2.0);
}

}  // namespace
}  // namespace vela::lb
