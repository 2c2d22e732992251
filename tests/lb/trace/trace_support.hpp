// Shared by the trace tests: a small hand-made trace that exercises every rule, and a bitwise
// comparison of traces (TraceStep's == needs Object ==, which the model does not define).
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>

#include "vela/lb/trace/trace.hpp"

namespace vela::testing {

// 2 PEs, dims 2, objects 10..13 with edges 10->11, 11->12, 12->13, 13->10; then
//   step 0: loads only;
//   step 1: deletes 11, creates 20 on PE 1 (edges touching 11 go);
//   step 2: replaces the edges with 20->12, 12->20;
//   step 3: deletes 10, creates 21 on PE 0 and 22 on PE 1 (not migratable);
//   step 4: replaces the edges with none.
// Loads include -0.0, a subnormal and values that need 17 digits, to test exact round trips.
inline lb::Trace small_trace() {
  lb::Trace t;
  lb::Instance& in = t.initial;
  in.dims = 2;
  in.pes = {{1.0, 0.0, 0}, {2.5, 0.125, 1}};
  for (int k = 0; k < 4; ++k) {
    lb::Object o;
    o.id = 10 + k;
    o.load = 0.1 * (k + 1);
    o.size = 4096u * static_cast<unsigned>(k + 1);
    o.coords = {static_cast<double>(k), 0.5 * k, 0.0};
    o.pe = k % 2;
    o.migratable = k != 3;
    in.objects.push_back(o);
  }
  in.edges = {{0, 1, 1, 800}, {1, 2, 2, 1600}, {2, 3, 1, 800}, {3, 0, 3, 2400}};
  const auto created = [](lb::ObjectId id, lb::PeId pe, bool migratable) {
    lb::Object o;
    o.id = id;
    o.size = 512;
    o.coords = {0.25 * static_cast<double>(id), -1.0 / 3.0, 0.0};
    o.pe = pe;
    o.migratable = migratable;
    return o;
  };
  lb::TraceStep s0;
  s0.loads = {1.0 / 3.0, -0.0, 5e-324, 1.7976931348623157e308 / 1e300};
  lb::TraceStep s1;
  s1.deleted = {11};
  s1.created = {created(20, 1, true)};
  s1.loads = {0.5, 0.25, 0.125, 2.0};  // 10, 12, 13, 20
  lb::TraceStep s2;
  s2.replaces_edges = true;
  s2.edges = {{20, 12, 4, 4000}, {12, 20, 5, 5000}};
  s2.loads = {0.5, 0.25, 0.125, 3.0};
  lb::TraceStep s3;
  s3.deleted = {10};
  s3.created = {created(21, 0, true), created(22, 1, false)};
  s3.loads = {0.2, 0.3, 0.4, 0.5, 0.6};  // 12, 13, 20, 21, 22
  lb::TraceStep s4;
  s4.replaces_edges = true;
  s4.loads = {0.2, 0.3, 0.4, 0.5, 0.7};
  t.steps = {s0, s1, s2, s3, s4};
  return t;
}

inline bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// Every field of both objects, doubles bit for bit; `with_load` false for created objects,
// whose load the model ignores.
inline void expect_same_object(const lb::Object& a, const lb::Object& b, int dims, bool with_load,
                               const std::string& where) {
  EXPECT_EQ(a.id, b.id) << where;
  if (with_load) {
    EXPECT_TRUE(same_bits(a.load, b.load)) << where << ": " << a.load << " vs " << b.load;
  }
  EXPECT_EQ(a.size, b.size) << where;
  for (int d = 0; d < dims; ++d) {
    EXPECT_TRUE(
        same_bits(a.coords[static_cast<std::size_t>(d)], b.coords[static_cast<std::size_t>(d)]))
        << where << " coordinate " << d;
  }
  EXPECT_EQ(a.pe, b.pe) << where;
  EXPECT_EQ(a.migratable, b.migratable) << where;
}

inline void expect_same_instance(const lb::Instance& a, const lb::Instance& b,
                                 const std::string& where) {
  EXPECT_EQ(a.dims, b.dims) << where;
  ASSERT_EQ(a.pes.size(), b.pes.size()) << where;
  for (std::size_t p = 0; p < a.pes.size(); ++p) {
    EXPECT_TRUE(same_bits(a.pes[p].speed, b.pes[p].speed)) << where << " PE " << p;
    EXPECT_TRUE(same_bits(a.pes[p].background, b.pes[p].background)) << where << " PE " << p;
    EXPECT_EQ(a.pes[p].cluster, b.pes[p].cluster) << where << " PE " << p;
  }
  ASSERT_EQ(a.objects.size(), b.objects.size()) << where;
  for (std::size_t i = 0; i < a.objects.size(); ++i) {
    expect_same_object(a.objects[i], b.objects[i], a.dims, true,
                       where + " object " + std::to_string(i));
  }
  ASSERT_EQ(a.edges.size(), b.edges.size()) << where;
  for (std::size_t e = 0; e < a.edges.size(); ++e) {
    EXPECT_EQ(a.edges[e].from, b.edges[e].from) << where << " edge " << e;
    EXPECT_EQ(a.edges[e].to, b.edges[e].to) << where << " edge " << e;
    EXPECT_EQ(a.edges[e].messages, b.edges[e].messages) << where << " edge " << e;
    EXPECT_EQ(a.edges[e].bytes, b.edges[e].bytes) << where << " edge " << e;
  }
}

inline void expect_same_trace(const lb::Trace& a, const lb::Trace& b) {
  expect_same_instance(a.initial, b.initial, "initial");
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (std::size_t s = 0; s < a.steps.size(); ++s) {
    const lb::TraceStep& x = a.steps[s];
    const lb::TraceStep& y = b.steps[s];
    const std::string where = "step " + std::to_string(s);
    EXPECT_EQ(x.deleted, y.deleted) << where;
    ASSERT_EQ(x.created.size(), y.created.size()) << where;
    for (std::size_t k = 0; k < x.created.size(); ++k) {
      expect_same_object(x.created[k], y.created[k], a.initial.dims, false,
                         where + " created " + std::to_string(k));
    }
    EXPECT_EQ(x.replaces_edges, y.replaces_edges) << where;
    EXPECT_EQ(x.edges, y.edges) << where;
    ASSERT_EQ(x.loads.size(), y.loads.size()) << where;
    for (std::size_t i = 0; i < x.loads.size(); ++i) {
      EXPECT_TRUE(same_bits(x.loads[i], y.loads[i])) << where << " load " << i;
    }
  }
}

}  // namespace vela::testing
