// The trace model: validate's rules and the cursor's semantics (trace.hpp).
#include "vela/lb/trace/trace.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "lb/trace/trace_support.hpp"
#include "vela/lb/trace/generate.hpp"

namespace {

using vela::lb::Assignment;
using vela::lb::InstanceError;
using vela::lb::ObjectId;
using vela::lb::Trace;
using vela::lb::TraceCursor;
using vela::lb::TraceError;
using vela::testing::small_trace;

// validate's message for `trace`, or "" when it passes.
std::string rejection(const Trace& trace) {
  try {
    vela::lb::validate(trace);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

std::vector<ObjectId> ids(const vela::lb::Instance& in) {
  std::vector<ObjectId> result;
  for (const auto& o : in.objects) result.push_back(o.id);
  return result;
}

// Edges of the cursor's instance as (from id, to id) pairs.
std::vector<std::pair<ObjectId, ObjectId>> edge_ids(const vela::lb::Instance& in) {
  std::vector<std::pair<ObjectId, ObjectId>> result;
  for (const auto& e : in.edges) result.emplace_back(in.objects[e.from].id, in.objects[e.to].id);
  return result;
}

TEST(TraceValidate, AcceptsTheSmallTrace) {
  EXPECT_EQ(rejection(small_trace()), "");
}

TEST(TraceValidate, RejectsDeletingADeadOrUnknownId) {
  Trace t = small_trace();
  t.steps[2].deleted = {11};  // deleted at step 1
  t.steps[2].loads.pop_back();
  EXPECT_EQ(rejection(t),
            "step 2: deleted[0]: object id 11 is not alive: it was deleted at step 1");
  t = small_trace();
  t.steps[0].deleted = {99};
  EXPECT_EQ(rejection(t), "step 0: deleted[0]: object id 99 does not exist");
}

TEST(TraceValidate, RejectsReusingAnId) {
  Trace t = small_trace();
  t.steps[3].created[1].id = 11;  // deleted at step 1
  EXPECT_EQ(rejection(t),
            "step 3: created[1]: object id 11 was used before (it was deleted at "
            "step 1); ids are never reused");
  t = small_trace();
  t.steps[3].created[0].id = 13;  // alive
  EXPECT_EQ(rejection(t), "step 3: created[0]: object id 13 was used before and is alive");
}

TEST(TraceValidate, RejectsEdgesToDeadObjects) {
  Trace t = small_trace();
  t.steps[2].edges[1].to = 11;
  EXPECT_EQ(rejection(t),
            "step 2: edges[1]: to object id 11 is not alive: it was deleted at step 1");
  t = small_trace();
  t.steps[2].edges[0].from = 77;
  EXPECT_EQ(rejection(t), "step 2: edges[0]: from object id 77 is not alive (no such object)");
  t = small_trace();
  t.steps[1].edges = t.steps[2].edges;  // edges without replaces_edges
  EXPECT_NE(rejection(t).find("step 1: has 2 edges but does not replace the edges"),
            std::string::npos);
}

TEST(TraceValidate, RejectsALoadCountOtherThanTheAliveObjects) {
  Trace t = small_trace();
  t.steps[3].loads.pop_back();
  EXPECT_EQ(rejection(t), "step 3: has 4 loads for 5 alive objects");
}

TEST(TraceValidate, RejectsNaNAndNegativeLoadsNamingTheObject) {
  Trace t = small_trace();
  t.steps[1].loads[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(rejection(t), "step 1: loads[3] (object id 20): nan must be a finite number >= 0");
  t = small_trace();
  t.steps[3].loads[0] = -0.5;
  EXPECT_EQ(rejection(t), "step 3: loads[0] (object id 12): -0.5 must be a finite number >= 0");
}

TEST(TraceValidate, RejectsCreatedObjectsOnMissingPesAndBadInitialInstances) {
  Trace t = small_trace();
  t.steps[1].created[0].pe = 2;
  EXPECT_EQ(rejection(t), "step 1: created[0] (id 20): PE 2 does not exist (the trace has 2 PEs)");
  t = small_trace();
  t.steps[1].created[0].coords[1] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(rejection(t), "step 1: created[0] (id 20): coordinate 1 is not finite");
  t = small_trace();
  t.initial.objects[2].id = 10;
  EXPECT_EQ(rejection(t).rfind("initial instance: object 2 (id 10): duplicate object id", 0), 0u);
  t = small_trace();
  t.initial.hyperedges.push_back({{0, 1}, 8});
  EXPECT_EQ(rejection(t).rfind("initial instance: has 1 hyperedges", 0), 0u);
}

TEST(TraceCursor, StartsAtTheInitialInstanceAndEndsAfterTheLastStep) {
  const Trace t = small_trace();
  TraceCursor cursor(t);
  EXPECT_EQ(cursor.steps_done(), 0u);
  vela::testing::expect_same_instance(cursor.instance(), t.initial, "before any step");
  std::size_t steps = 0;
  while (cursor.next()) ++steps;
  EXPECT_EQ(steps, t.steps.size());
  EXPECT_EQ(cursor.steps_done(), t.steps.size());
  EXPECT_FALSE(cursor.next());
}

TEST(TraceCursor, DeletesThenAppendsCreatedObjectsInOrderWithTheStepsLoads) {
  const Trace t = small_trace();
  TraceCursor cursor(t);
  ASSERT_TRUE(cursor.next());
  EXPECT_EQ(ids(cursor.instance()), (std::vector<ObjectId>{10, 11, 12, 13}));
  ASSERT_TRUE(cursor.next());  // step 1: 11 goes, 20 comes on PE 1
  const auto& in = cursor.instance();
  EXPECT_EQ(ids(in), (std::vector<ObjectId>{10, 12, 13, 20}));
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    EXPECT_TRUE(vela::testing::same_bits(in.objects[i].load, t.steps[1].loads[i])) << i;
  }
  EXPECT_EQ(in.objects[3].pe, 1);
  EXPECT_EQ(in.objects[3].size, 512u);
  EXPECT_EQ(in.pes.size(), 2u);
  ASSERT_TRUE(cursor.next());
  ASSERT_TRUE(cursor.next());  // step 3: 10 goes, 21 and 22 come
  EXPECT_EQ(ids(cursor.instance()), (std::vector<ObjectId>{12, 13, 20, 21, 22}));
  EXPECT_FALSE(cursor.instance().objects[4].migratable);
  EXPECT_EQ(cursor.instance().objects[4].pe, 1);
}

TEST(TraceCursor, DropsEdgesOfDeletedObjectsAndTakesReplacedEdges) {
  const Trace t = small_trace();
  TraceCursor cursor(t);
  using Pairs = std::vector<std::pair<ObjectId, ObjectId>>;
  EXPECT_EQ(edge_ids(cursor.instance()), (Pairs{{10, 11}, {11, 12}, {12, 13}, {13, 10}}));
  cursor.next();
  EXPECT_EQ(edge_ids(cursor.instance()), (Pairs{{10, 11}, {11, 12}, {12, 13}, {13, 10}}));
  cursor.next();  // 11 deleted: its two edges go, the others keep their order
  EXPECT_EQ(edge_ids(cursor.instance()), (Pairs{{12, 13}, {13, 10}}));
  EXPECT_EQ(cursor.instance().edges[1].bytes, 2400u);
  cursor.next();  // replaced
  EXPECT_EQ(edge_ids(cursor.instance()), (Pairs{{20, 12}, {12, 20}}));
  EXPECT_EQ(cursor.instance().edges[0].messages, 4u);
  cursor.next();  // 10 deleted: the replaced edges do not touch it
  EXPECT_EQ(edge_ids(cursor.instance()), (Pairs{{20, 12}, {12, 20}}));
  EXPECT_EQ(cursor.instance().edges[0].from, 2u) << "positions follow the deletion";
  cursor.next();  // replaced by none
  EXPECT_TRUE(cursor.instance().edges.empty());
}

TEST(TraceCursor, AssignKeepsThePlacementAcrossSteps) {
  const Trace t = small_trace();
  TraceCursor cursor(t);
  cursor.assign(Assignment{{1, 1, 0, 0}});
  cursor.next();
  EXPECT_EQ(vela::lb::current_assignment(cursor.instance()).pe, (std::vector<int>{1, 1, 0, 0}));
  cursor.next();  // 11 gone, 20 created on PE 1
  EXPECT_EQ(vela::lb::current_assignment(cursor.instance()).pe, (std::vector<int>{1, 0, 0, 1}));
  EXPECT_THROW(cursor.assign(Assignment{{0, 0, 0}}), InstanceError);
  EXPECT_THROW(cursor.assign(Assignment{{0, 0, 0, 2}}), InstanceError);
  EXPECT_EQ(vela::lb::current_assignment(cursor.instance()).pe, (std::vector<int>{1, 0, 0, 1}));
}

TEST(TraceCursor, AssignByIdSkipsDeadIdsAndCountsEachMovedObjectOnce) {
  const Trace t = small_trace();
  TraceCursor cursor(t);
  cursor.next();
  cursor.next();  // alive: 10 (PE 0), 12 (PE 0), 13 (PE 1), 20 (PE 1)
  // 11 is dead, 12 stays, 10 moves twice (counted once), 13 moves and comes back (not moved).
  const std::size_t moved =
      cursor.assign_by_id({{11, 1}, {12, 0}, {10, 1}, {10, 1}, {13, 0}, {13, 1}, {20, 0}});
  EXPECT_EQ(moved, 2u);
  EXPECT_EQ(vela::lb::current_assignment(cursor.instance()).pe, (std::vector<int>{1, 0, 1, 0}));
  EXPECT_THROW(cursor.assign_by_id({{12, 1}, {13, 5}}), InstanceError);
  EXPECT_EQ(cursor.instance().objects[1].pe, 0) << "a bad PE places nothing";
}

TEST(TraceCursor, StepsAThousandObjectsThroughTwentyFourHundredStepsWithChurn) {
  vela::lb::TraceOptions options;  // 32 x 32 objects, 2,400 steps
  options.radiation.period = 100;
  options.churn.created_per_step = 0.5;
  options.churn.deleted_per_step = 0.5;
  const Trace trace = vela::lb::generate_trace(options);
  TraceCursor cursor(trace);
  double work = 0.0;
  while (cursor.next()) work += cursor.instance().objects.front().load;
  EXPECT_EQ(cursor.steps_done(), 2400u);
  EXPECT_GT(work, 0.0);
  // Its speed is a row of bench/trace_bench.cpp, not a timed test.
}

}  // namespace
