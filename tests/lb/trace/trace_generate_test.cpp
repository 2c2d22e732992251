// The trace generator (vela/lb/trace/generate.hpp): each effect does what it says, alone and
// composed, and a seed gives the same trace every time.
#include "vela/lb/trace/generate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "lb/trace/trace_support.hpp"
#include "support/program.hpp"

namespace {

using vela::lb::generate_trace;
using vela::lb::MovingStorm;
using vela::lb::Trace;
using vela::lb::TraceOptions;

// The loads at time t: the initial instance's at t = 0, step t - 1's after.
std::vector<double> loads_at(const Trace& trace, std::size_t t) {
  if (t > 0) return trace.steps[t - 1].loads;
  std::vector<double> loads;
  for (const auto& o : trace.initial.objects) loads.push_back(o.load);
  return loads;
}

TraceOptions small(std::int64_t steps) {
  TraceOptions o;
  o.nx = 10;
  o.ny = 10;
  o.pes = 4;
  o.steps = steps;
  return o;
}

MovingStorm storm(double cx, double cy, double radius, double factor, double vx, double vy) {
  return {{cx, cy, radius, factor}, vx, vy};
}

std::string invalid(const TraceOptions& options) {
  try {
    generate_trace(options);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(TraceGenerate, SameOptionsGiveTheSameTraceAndAnotherSeedAnother) {
  TraceOptions o = small(60);
  o.radiation.period = 10;
  o.drift.fraction = 0.5;
  o.churn.created_per_step = 0.6;
  o.churn.deleted_per_step = 0.3;
  o.churn.where = vela::lb::Appear::storm;
  const Trace a = generate_trace(o);
  const Trace b = generate_trace(o);
  vela::testing::expect_same_trace(a, b);
  o.seed = 2;
  const Trace c = generate_trace(o);
  EXPECT_NE(loads_at(a, 30), loads_at(c, 30));
}

TEST(TraceGenerate, ReportsEachStepOnceInOrderWithoutChangingTheTrace) {
  TraceOptions options;
  options.nx = 6;
  options.ny = 5;
  options.pes = 4;
  options.steps = 25;
  options.drift.fraction = 0.5;
  options.churn.created_per_step = 0.5;
  std::vector<std::int64_t> reported;
  const Trace observed =
      generate_trace(options, [&](std::int64_t done) { reported.push_back(done); });
  ASSERT_EQ(reported.size(), 25u);
  for (std::size_t i = 0; i < reported.size(); ++i) {
    EXPECT_EQ(reported[i], static_cast<std::int64_t>(i) + 1);
  }
  vela::testing::expect_same_trace(observed, generate_trace(options));
}

TEST(TraceGenerate, InitialInstanceIsTheBramsGridWithTheStormAtItsStart) {
  TraceOptions o;
  o.nx = 16;
  o.ny = 12;
  o.pes = 8;
  o.seed = 7;
  o.steps = 3;
  o.storms = std::vector<MovingStorm>{storm(5, 6, 4, 3, 1, 0)};
  const Trace trace = generate_trace(o);
  vela::lb::BramsOptions b;
  b.nx = 16;
  b.ny = 12;
  b.pes = 8;
  b.seed = 7;
  b.storms = std::vector<vela::lb::Storm>{{5, 6, 4, 3}};
  const vela::lb::Instance brams = vela::lb::generate_brams(b);
  const vela::lb::Instance& in = trace.initial;
  ASSERT_EQ(in.objects.size(), brams.objects.size());
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    EXPECT_EQ(in.objects[i].id, brams.objects[i].id);
    EXPECT_EQ(in.objects[i].pe, brams.objects[i].pe);
    EXPECT_EQ(in.objects[i].size, brams.objects[i].size);
    EXPECT_EQ(in.objects[i].coords, brams.objects[i].coords);
    EXPECT_DOUBLE_EQ(in.objects[i].load, brams.objects[i].load) << i;
  }
  EXPECT_EQ(in.edges.size(), brams.edges.size());
  EXPECT_EQ(in.pes.size(), 8u);
  EXPECT_NO_THROW(vela::lb::validate(trace));
}

TEST(TraceGenerate, TheStormsCentreFollowsItsVelocity) {
  TraceOptions o;
  o.nx = 48;
  o.ny = 48;
  o.pes = 16;
  o.noise = 0.0;
  o.steps = 100;
  o.storms = std::vector<MovingStorm>{storm(12, 20, 6, 3, 0.2, 0.1)};
  const Trace trace = generate_trace(o);
  for (const std::size_t t : {0u, 1u, 25u, 50u, 77u, 100u}) {
    const std::vector<double> loads = loads_at(trace, t);
    // The load above the base load, weighted by position: the centre of a symmetric storm.
    double mass = 0.0;
    double x = 0.0;
    double y = 0.0;
    std::size_t heaviest = 0;
    for (std::size_t i = 0; i < loads.size(); ++i) {
      const double excess = loads[i] - 1.0;
      mass += excess;
      x += excess * trace.initial.objects[i].coords[0];
      y += excess * trace.initial.objects[i].coords[1];
      if (loads[i] > loads[heaviest]) heaviest = i;
    }
    const double cx = 12 + 0.2 * static_cast<double>(t);
    const double cy = 20 + 0.1 * static_cast<double>(t);
    EXPECT_NEAR(x / mass, cx, 0.05) << "t = " << t;
    EXPECT_NEAR(y / mass, cy, 0.05) << "t = " << t;
    EXPECT_LE(std::abs(trace.initial.objects[heaviest].coords[0] - cx), 0.5) << "t = " << t;
    EXPECT_LE(std::abs(trace.initial.objects[heaviest].coords[1] - cy), 0.5) << "t = " << t;
    EXPECT_NEAR(loads[heaviest], 3.0, 0.1) << "the peak is the storm's factor";
  }
}

TEST(TraceGenerate, RadiationSpikesExactlyEveryKSteps) {
  TraceOptions o = small(50);
  o.storms = std::vector<MovingStorm>{storm(3, 4, 3, 2, 0, 0)};  // at rest
  o.radiation.period = 7;
  o.radiation.factor = 2.5;
  for (const std::int64_t offset : {0, 3}) {
    o.radiation.offset = offset;
    const Trace trace = generate_trace(o);
    const std::vector<double> calm = loads_at(trace, 0);
    std::vector<std::size_t> spikes;
    for (std::size_t s = 0; s < trace.steps.size(); ++s) {
      const bool spike = static_cast<std::int64_t>(s + 1) % 7 == offset;
      if (spike) spikes.push_back(s);
      for (std::size_t i = 0; i < calm.size(); ++i) {
        EXPECT_EQ(trace.steps[s].loads[i], spike ? calm[i] * 2.5 : calm[i])
            << "step " << s << " object " << i;
      }
    }
    ASSERT_EQ(spikes.size(), 7u);
    EXPECT_EQ(spikes.front(), offset == 0 ? 6u : 2u);
    EXPECT_EQ(spikes.back(), offset == 0 ? 48u : 44u);
  }
}

TEST(TraceGenerate, DriftChangesAboutHalfTheLoadsByAtMostTheRatePerStep) {
  TraceOptions o;
  o.nx = 32;
  o.ny = 32;
  o.pes = 16;
  o.steps = 200;
  o.storms = std::vector<MovingStorm>{};
  o.drift = {0.5, 0.05};
  const Trace trace = generate_trace(o);
  const std::size_t n = trace.initial.objects.size();
  std::vector<char> changes(n, 0);
  double largest = 0.0;
  for (std::size_t t = 1; t <= trace.steps.size(); ++t) {
    const std::vector<double> before = loads_at(trace, t - 1);
    const std::vector<double> after = loads_at(trace, t);
    for (std::size_t i = 0; i < n; ++i) {
      const double change = after[i] / before[i] - 1.0;
      EXPECT_LE(std::abs(change), 0.05 + 1e-12) << "step " << t - 1 << " object " << i;
      if (t == 1) changes[i] = change != 0.0 ? 1 : 0;
      EXPECT_EQ(change != 0.0, changes[i] != 0) << "the same objects drift at every step";
      largest = std::max(largest, std::abs(change));
    }
  }
  const auto drifting = static_cast<double>(std::count(changes.begin(), changes.end(), 1));
  EXPECT_NEAR(drifting / static_cast<double>(n), 0.5, 0.06);
  EXPECT_GT(largest, 0.049) << "the rate is reached, not just respected";
  o.drift.fraction = 0.0;
  const Trace still = generate_trace(o);
  EXPECT_EQ(loads_at(still, 0), loads_at(still, 200));
}

TEST(TraceGenerate, CreatesAndDeletesAtTheRatesWithFreshIdsOnTheirCellsPe) {
  TraceOptions o = small(40);
  o.churn.created_per_step = 2.5;
  o.churn.deleted_per_step = 1.5;
  const Trace trace = generate_trace(o);
  EXPECT_NO_THROW(vela::lb::validate(trace));
  const auto placement = vela::lb::block_placement_2d(10, 10, 4);
  std::size_t created = 0;
  std::size_t deleted = 0;
  vela::lb::ObjectId next = 100;
  for (std::size_t s = 0; s < trace.steps.size(); ++s) {
    const double t = static_cast<double>(s + 1);
    const auto expected = [&](double rate) {
      return static_cast<std::size_t>(std::floor(rate * t) - std::floor(rate * (t - 1)));
    };
    const auto& step = trace.steps[s];
    EXPECT_EQ(step.created.size(), expected(2.5)) << "step " << s;
    EXPECT_EQ(step.deleted.size(), expected(1.5)) << "step " << s;
    for (const auto& c : step.created) {
      EXPECT_EQ(c.id, next++);
      EXPECT_GE(c.coords[0], -0.5);
      EXPECT_LT(c.coords[0], 9.5);
      const auto i = std::llround(c.coords[0]);
      const auto j = std::llround(c.coords[1]);
      EXPECT_EQ(c.pe, placement[static_cast<std::size_t>(j * 10 + i)]);
    }
    created += step.created.size();
    deleted += step.deleted.size();
  }
  EXPECT_EQ(created, 100u);
  EXPECT_EQ(deleted, 60u);
  EXPECT_EQ(trace.steps.back().loads.size(), 100u + 100u - 60u);
}

TEST(TraceGenerate, ObjectsCreatedInAStormAppearInsideIt) {
  TraceOptions o = small(30);
  o.storms = std::vector<MovingStorm>{storm(3, 5, 2, 3, 0.1, 0)};
  o.churn.created_per_step = 1;
  o.churn.where = vela::lb::Appear::storm;
  const Trace trace = generate_trace(o);
  for (std::size_t s = 0; s < trace.steps.size(); ++s) {
    ASSERT_EQ(trace.steps[s].created.size(), 1u);
    const auto& c = trace.steps[s].created[0];
    const double cx = 3 + 0.1 * static_cast<double>(s + 1);
    EXPECT_LE(std::hypot(c.coords[0] - cx, c.coords[1] - 5), 2.0) << "step " << s;
  }
}

TEST(TraceGenerate, DeletesNoMoreThanThereAre) {
  TraceOptions o = small(3);
  o.nx = 2;
  o.ny = 2;
  o.pes = 1;
  o.churn.deleted_per_step = 3;
  const Trace trace = generate_trace(o);
  EXPECT_EQ(trace.steps[0].deleted.size(), 3u);
  EXPECT_EQ(trace.steps[1].deleted.size(), 1u);
  EXPECT_TRUE(trace.steps[2].deleted.empty());
  EXPECT_TRUE(trace.steps[2].loads.empty());
  EXPECT_NO_THROW(vela::lb::validate(trace));
}

TEST(TraceGenerate, EffectsCompose) {
  TraceOptions o = small(100);  // the default storm moves 4 cells over the trace
  o.radiation = {20, 0, 2.0};
  o.drift = {0.5, 0.02};
  o.churn.created_per_step = 0.5;
  o.churn.deleted_per_step = 0.5;
  const Trace trace = generate_trace(o);
  EXPECT_NO_THROW(vela::lb::validate(trace));
  const auto total = [&](std::size_t s) {
    double sum = 0.0;
    for (const double l : trace.steps[s].loads) sum += l;
    return sum;
  };
  for (const std::size_t spike : {19u, 39u, 59u, 79u, 99u}) {
    EXPECT_NEAR(total(spike) / total(spike - 1), 2.0, 0.15) << "step " << spike;
  }
  EXPECT_NEAR(total(50) / total(49), 1.0, 0.1);
}

TEST(TraceGenerate, RejectsBadOptionsNamingThem) {
  TraceOptions o = small(10);
  o.drift.rate = 1.5;
  EXPECT_EQ(invalid(o), "trace: drift.rate must be in [0, 1), got 1.5");
  o = small(10);
  o.drift.fraction = -0.1;
  EXPECT_EQ(invalid(o), "trace: drift.fraction must be in [0, 1], got -0.1");
  o = small(10);
  o.radiation = {5, 5, 2.0};
  EXPECT_EQ(invalid(o), "trace: radiation.offset must be in 0..4, got 5");
  o = small(-1);
  EXPECT_EQ(invalid(o), "trace: steps must be >= 0, got -1");
  o = small(10);
  o.churn.created_per_step = std::nan("");
  EXPECT_EQ(invalid(o), "trace: churn.created_per_step must be a finite number >= 0, got nan");
  o = small(10);
  o.storms = std::vector<MovingStorm>{};
  o.churn.created_per_step = 1;
  o.churn.where = vela::lb::Appear::storm;
  EXPECT_EQ(invalid(o), "trace: churn.where must be uniform when there is no storm, got storm");
  o = small(10);
  o.storms = std::vector<MovingStorm>{storm(1, 1, 0, 2, 0, 0)};
  EXPECT_EQ(invalid(o), "trace: storm 0 radius must be a finite number > 0, got 0");
}

}  // namespace
