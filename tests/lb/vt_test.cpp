// DARMA vt LB data files (vela/lb/trace/vt.hpp): a hand-written pair of rank files imports to known
// values, export then import gives back the loads, placements and edges, and bad files are
// rejected naming the file, the phase and the element.
#include "vela/lb/trace/vt.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>

#include "lb/trace_support.hpp"
#include "support/program.hpp"
#include "vela/lb/trace/generate.hpp"

namespace {

using vela::lb::ObjectId;
using vela::lb::Trace;
using vela::lb::TraceCursor;
using vela::lb::TraceEdge;
using vela::lb::TraceError;

const std::filesystem::path fixtures = VELA_TEST_FIXTURES;

std::vector<std::string> fixture_files() {
  return {(fixtures / "vt" / "data.1.json").string(), (fixtures / "vt" / "data.0.json").string()};
}

std::vector<ObjectId> ids(const vela::lb::Instance& in) {
  std::vector<ObjectId> result;
  for (const auto& o : in.objects) result.push_back(o.id);
  return result;
}

// The cursor's edges as (from id, to id, messages, bytes), sorted: import orders edges by ids.
std::vector<std::tuple<ObjectId, ObjectId, std::uint64_t, std::uint64_t>> edges(
    const vela::lb::Instance& in) {
  std::vector<std::tuple<ObjectId, ObjectId, std::uint64_t, std::uint64_t>> result;
  for (const auto& e : in.edges) {
    result.emplace_back(in.objects[e.from].id, in.objects[e.to].id, e.messages, e.bytes);
  }
  std::sort(result.begin(), result.end());
  return result;
}

TEST(VtImport, HandWrittenRankFilesImportToKnownValues) {
  vela::lb::VtImportSummary summary;
  const Trace trace = vela::lb::import_vt(fixture_files(), &summary);
  const auto& in = trace.initial;
  ASSERT_EQ(in.pes.size(), 2u);
  EXPECT_EQ(in.dims, 0);
  // Phase 0, by id, without vt's placeholder task (id 0) of each rank.
  EXPECT_EQ(ids(in), (std::vector<ObjectId>{262147, 524291, 786435, 3145740}));
  const std::vector<double> loads = {0.5, 0.75, 1.0, 0.125};
  const std::vector<int> pes = {0, 0, 1, 0};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(in.objects[i].load, loads[i]) << i;
    EXPECT_EQ(in.objects[i].pe, pes[i]) << i;
  }
  EXPECT_FALSE(in.objects[3].migratable) << "the objgroup";
  using Edges = std::vector<std::tuple<ObjectId, ObjectId, std::uint64_t, std::uint64_t>>;
  EXPECT_EQ(edges(in), (Edges{{262147, 786435, 2, 1024}, {786435, 262147, 1, 256}}));

  ASSERT_EQ(trace.steps.size(), 3u) << "phases 1, 2 and 3 (identical to 2)";
  const auto& s0 = trace.steps[0];
  EXPECT_TRUE(s0.deleted.empty());
  EXPECT_TRUE(s0.created.empty());
  EXPECT_EQ(s0.loads, (std::vector<double>{0.625, 0.5, 1.25, 0.125}));
  EXPECT_TRUE(s0.replaces_edges);
  // The pair recorded in both files adds up: 3 + 1 messages, 300 + 100 bytes.
  EXPECT_EQ(s0.edges, (std::vector<TraceEdge>{{262147, 524291, 4, 400}, {262147, 786435, 1, 512}}));

  const auto& s1 = trace.steps[1];
  EXPECT_EQ(s1.deleted, (std::vector<ObjectId>{262147}));
  ASSERT_EQ(s1.created.size(), 1u);
  EXPECT_EQ(s1.created[0].id, 1048579);
  EXPECT_EQ(s1.created[0].pe, 1);
  EXPECT_EQ(s1.loads, (std::vector<double>{0.5, 1.5, 0.25, 2.0}));  // 524291, 786435, 3145740, new
  EXPECT_EQ(s1.edges, (std::vector<TraceEdge>{{1048579, 786435, 1, 64}}));

  const auto& s2 = trace.steps[2];
  EXPECT_EQ(s2.loads, s1.loads);
  EXPECT_FALSE(s2.replaces_edges) << "the same edges carry on";

  // 524291 ran on rank 1 in phases 1 to 3 but the trace keeps it where it started.
  TraceCursor cursor(trace);
  while (cursor.next()) {
    const auto& objects = cursor.instance().objects;
    const auto it = std::find_if(objects.begin(), objects.end(),
                                 [](const vela::lb::Object& o) { return o.id == 524291; });
    ASSERT_NE(it, objects.end());
    EXPECT_EQ(it->pe, 0) << "step " << cursor.steps_done() - 1;
  }
  EXPECT_EQ(summary.files, 2u);
  EXPECT_EQ(summary.phases, 4u);
  EXPECT_EQ(summary.tasks, 16u);
  EXPECT_EQ(summary.skipped_tasks, 2u) << "the two placeholders";
  EXPECT_EQ(summary.skipped_communications, 3u) << "node-to-collection, and twice one to id 99";
  EXPECT_EQ(summary.moved_tasks, 3u);
}

class VtFiles : public vela::testing::ScratchDirTest {
 protected:
  // Export, then import what was written: loads, placements and edges come back at every step.
  void expect_round_trip(const Trace& original) {
    const auto files = vela::lb::export_vt(original, path("vt"));
    EXPECT_EQ(files.size(), original.initial.pes.size());
    const Trace back = vela::lb::import_vt(files);
    vela::testing::expect_same_instance(back.initial, sorted_edges(original.initial), "initial");
    ASSERT_EQ(back.steps.size(), original.steps.size());
    TraceCursor a(original);
    TraceCursor b(back);
    while (a.next()) {
      ASSERT_TRUE(b.next());
      const std::size_t s = a.steps_done() - 1;
      EXPECT_EQ(back.steps[s].deleted, original.steps[s].deleted) << "step " << s;
      EXPECT_EQ(ids(b.instance()), ids(a.instance())) << "step " << s;
      for (std::size_t i = 0; i < a.instance().objects.size(); ++i) {
        const auto& x = a.instance().objects[i];
        const auto& y = b.instance().objects[i];
        EXPECT_TRUE(vela::testing::same_bits(x.load, y.load)) << "step " << s << " object " << i;
        EXPECT_EQ(x.pe, y.pe) << "step " << s << " object " << i;
        EXPECT_EQ(x.size, y.size);
        EXPECT_EQ(x.coords, y.coords);
        EXPECT_EQ(x.migratable, y.migratable);
      }
      EXPECT_EQ(edges(b.instance()), edges(a.instance())) << "step " << s;
    }
  }

  // `in` with its edges in the order import gives them: by (from id, to id).
  static vela::lb::Instance sorted_edges(vela::lb::Instance in) {
    std::sort(in.edges.begin(), in.edges.end(), [&](const auto& x, const auto& y) {
      return std::pair(in.objects[x.from].id, in.objects[x.to].id) <
             std::pair(in.objects[y.from].id, in.objects[y.to].id);
    });
    return in;
  }

  std::string rejection(const std::vector<std::string>& files) {
    try {
      vela::lb::import_vt(files);
    } catch (const TraceError& e) {
      return e.what();
    }
    return "";
  }

  // A copy of a fixture file with pieces of text replaced (each at its first occurrence).
  std::string spoiled(const std::string& name,
                      const std::vector<std::pair<std::string, std::string>>& changes) {
    std::ifstream in(fixtures / "vt" / name);
    std::ostringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    for (const auto& [from, to] : changes) {
      const auto at = s.find(from);
      EXPECT_NE(at, std::string::npos) << from;
      if (at != std::string::npos) s.replace(at, from.size(), to);
    }
    const std::string file = path(name);
    std::ofstream(file) << s;
    return file;
  }
};

#define EXPECT_MENTIONS(message, part)               \
  EXPECT_NE((message).find(part), std::string::npos) \
      << "expected '" << (part) << "' in: " << (message)

TEST_F(VtFiles, ExportThenImportGivesBackTheSmallTrace) {
  expect_round_trip(vela::testing::small_trace());
  const Trace back = vela::lb::import_vt({path("vt/data.0.json"), path("vt/data.1.json")});
  EXPECT_EQ(back.initial.dims, 2);
  EXPECT_EQ(back.initial.pes[1].speed, 2.5);
  EXPECT_EQ(back.initial.pes[1].background, 0.125);
  EXPECT_EQ(back.initial.pes[1].cluster, 1);
}

TEST_F(VtFiles, ExportThenImportGivesBackAGeneratedTraceWithChurn) {
  vela::lb::TraceOptions o;
  o.nx = 9;
  o.ny = 7;
  o.pes = 6;
  o.steps = 40;
  o.radiation.period = 9;
  o.drift = {0.5, 0.05};
  o.churn.created_per_step = 0.8;
  o.churn.deleted_per_step = 0.6;
  expect_round_trip(vela::lb::generate_trace(o));
}

TEST_F(VtFiles, ExportedFilesHaveTheFieldsAndTypesOfVtsSchema) {
  vela::lb::export_vt(vela::testing::small_trace(), path("vt"));
  for (const char* name : {"data.0.json", "data.1.json"}) {
    std::ifstream in(path("vt/") + name);
    const auto doc = nlohmann::json::parse(in);
    for (const auto& [key, value] : doc.items()) {
      EXPECT_TRUE(key == "metadata" || key == "phases" || key == "type") << key;
    }
    EXPECT_EQ(doc["metadata"]["type"], "LBDatafile");
    EXPECT_TRUE(doc["metadata"]["rank"].is_number_integer());
    ASSERT_EQ(doc["phases"].size(), 6u);
    for (const auto& phase : doc["phases"]) {
      EXPECT_TRUE(phase["id"].is_number_integer());
      ASSERT_TRUE(phase["tasks"].is_array());
      for (const auto& task : phase["tasks"]) {
        const auto& entity = task["entity"];
        EXPECT_TRUE(entity["type"].is_string());
        EXPECT_TRUE(entity["home"].is_number_integer());
        EXPECT_TRUE(entity["id"].is_number_integer());
        EXPECT_TRUE(entity["migratable"].is_boolean());
        EXPECT_TRUE(task["node"].is_number_integer());
        EXPECT_EQ(task["node"], doc["metadata"]["rank"]) << "a rank's file holds its own tasks";
        EXPECT_TRUE(task["resource"].is_string());
        EXPECT_TRUE(task["time"].is_number_float()) << "the schema's time is a float";
      }
      if (!phase.contains("communications")) continue;
      for (const auto& comm : phase["communications"]) {
        EXPECT_TRUE(comm["type"].is_string());
        EXPECT_TRUE(comm["messages"].is_number_integer());
        EXPECT_TRUE(comm["bytes"].is_number_float()) << "the schema's bytes is a float";
        for (const char* end : {"from", "to"}) {
          EXPECT_TRUE(comm[end]["type"].is_string());
          EXPECT_TRUE(comm[end]["id"].is_number_integer());
        }
      }
    }
  }
}

TEST_F(VtFiles, RefusesCompressedFilesWithAHint) {
  std::ofstream(path("data.0.json.br"), std::ios::binary) << "\x1b\x03\x00\xf8\x01";
  EXPECT_MENTIONS(rejection({path("data.0.json.br")}), "decompress it first");
  std::ofstream(path("data.1.json"), std::ios::binary) << "\x8b\x7f\x00 binary";
  EXPECT_MENTIONS(rejection({path("data.1.json")}),
                  "data.1.json: not a plain-JSON vt LB data file");
}

TEST_F(VtFiles, RejectsBadFilesNamingFilePhaseAndElement) {
  const std::string rank1 = (fixtures / "vt" / "data.1.json").string();
  const auto spoiled = [&](const std::string& from, const std::string& to) {
    return this->spoiled("data.0.json", {{from, to}});
  };
  std::string file = spoiled("\"time\": 0.625", "\"time\": \"slow\"");
  EXPECT_MENTIONS(rejection({file, rank1}),
                  "data.0.json: phases[1] (phase 1).tasks[0].time: expected a number, got the "
                  "string \"slow\"");
  file = spoiled("\"time\": 0.625", "\"time\": -1");
  EXPECT_MENTIONS(rejection({file, rank1}), "phases[1] (phase 1).tasks[0].time: -1 must be");
  file = spoiled("\"migratable\": false,\n                     \"objgroup_id\"", "\"objgroup_id\"");
  EXPECT_MENTIONS(rejection({file, rank1}),
                  "missing field \"phases[0] (phase 0).tasks[2].entity.migratable\"");
  file = spoiled(
      "\"id\": 3145740, \"home\": 0, \"migratable\": false,\n"
      "                     \"objgroup_id\": 786435},\n"
      "          \"node\": 0, \"resource\": \"cpu\", \"time\": 0.25",
      "\"id\": 786435, \"home\": 0, \"migratable\": false},\n"
      "          \"node\": 0, \"resource\": \"cpu\", \"time\": 0.25");
  EXPECT_MENTIONS(rejection({file, rank1}), "phase 2: object id 786435 has a second task");
  file = spoiled("\"id\": 2,", "\"id\": 5,");
  EXPECT_MENTIONS(rejection({file, rank1}), "has no phase 2, which");
  file = spoiled("\"rank\": 0", "\"rank\": 1");
  EXPECT_MENTIONS(rejection({file, rank1}), "rank 1 again");
  // 262147 has no task in phase 1 (another id takes its place), then one in phase 2.
  file = this->spoiled(
      "data.0.json",
      {{"\"id\": 262147, \"home\": 0, \"migratable\": true,\n                     "
        "\"collection_id\": 7, \"index\": [0]},\n          \"node\": 0, \"resource\": \"cpu\", "
        "\"time\": 0.625",
        "\"id\": 7777, \"home\": 0, \"migratable\": true},\n          \"node\": 0, "
        "\"resource\": \"cpu\", \"time\": 0.625"},
       {"\"node\": 0, \"resource\": \"cpu\", \"time\": 0.25",
        "\"node\": 0, \"resource\": \"cpu\", \"time\": 0.25}, {\"entity\": {\"type\": "
        "\"object\", \"id\": 262147, \"home\": 0, \"migratable\": true}, \"node\": 0, "
        "\"resource\": \"cpu\", \"time\": 1.0"}});
  EXPECT_MENTIONS(rejection({file, rank1}),
                  "phase 2: object id 262147 comes back after having no task in phase 1");
  file = spoiled("\"phases\": [\n    {", "\"phases\": [\n    {\"id\": 0}, {");
  EXPECT_MENTIONS(rejection({file, rank1}), "phase 0 appears twice");
}

}  // namespace
