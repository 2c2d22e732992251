// The trace file formats (docs/trace-format.md): exact round trips, the documented binary
// layout, and every kind of bad file rejected with the file, step and element named.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>

#include "lb/trace/trace_support.hpp"
#include "support/program.hpp"
#include "vela/lb/trace/generate.hpp"
#include "vela/lb/trace/trace.hpp"

namespace {

using vela::lb::Trace;
using vela::lb::TraceError;
using vela::testing::expect_same_trace;
using vela::testing::small_trace;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void put_file(const std::string& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary) << contents;
}

// The little-endian bytes of the documented binary layout, written field by field.
class Bytes {
 public:
  template <class T>
  Bytes& put(T value) {
    std::array<char, sizeof(T)> raw;
    std::memcpy(raw.data(), &value, sizeof(T));
    if constexpr (std::endian::native == std::endian::big) std::reverse(raw.begin(), raw.end());
    text.append(raw.data(), raw.size());
    return *this;
  }
  Bytes& u8(std::uint8_t v) { return put(v); }
  Bytes& u32(std::uint32_t v) { return put(v); }
  Bytes& i32(std::int32_t v) { return put(v); }
  Bytes& u64(std::uint64_t v) { return put(v); }
  Bytes& i64(std::int64_t v) { return put(v); }
  Bytes& f64(double v) { return put(v); }
  std::string text;
};

// What a tiny binary trace holds; each test spoils one field.
struct Tiny {
  std::string magic = "\x89VELATR\n";
  std::uint32_t version = 1;
  std::int64_t deleted = 1;    // step 0 deletes object 1
  std::int64_t created = 5;    // and creates object 5
  std::int64_t edge_from = 5;  // step 1 replaces the edges with 5 -> 0
  std::uint8_t migratable = 1;
  double load = 2.5;
  bool short_loads = false;  // step 1 has one load for two objects
  double first_load = 1.5;   // step 0's load of object 0
  double speed = 2.0;
  std::uint64_t created_size = 32;
};

// dims 1, one PE of speed 2, objects 0 and 1 on it with an edge 0 -> 1; step 0 deletes 1 and
// creates 5, step 1 replaces the edges.
std::string tiny_binary(const Tiny& t = {}) {
  Bytes b;
  b.text = t.magic;
  b.u32(t.version).i32(1);
  b.u64(1).f64(t.speed).f64(0.5).i32(3);  // PE: speed, background, cluster
  b.u64(2);
  b.i64(0).f64(1.0).u64(64).i32(0).u8(1).f64(0.0);  // object: id, load, size, pe, migr., x
  b.i64(1).f64(2.0).u64(64).i32(0).u8(0).f64(1.0);
  b.u64(1).u32(0).u32(1).u64(1).u64(8);  // edge: from, to (positions), messages, bytes
  b.u64(2);                              // steps
  b.u64(1).i64(t.deleted);
  b.u64(1).i64(t.created).u64(t.created_size).i32(0).u8(t.migratable).f64(0.5);
  b.u8(0);
  b.u64(2).f64(t.first_load).f64(t.load);
  b.u64(0).u64(0).u8(1);
  b.u64(1).i64(t.edge_from).i64(0).u64(2).u64(16);
  if (t.short_loads) {
    b.u64(1).f64(3.0);
  } else {
    b.u64(2).f64(3.0).f64(4.0);
  }
  return b.text;
}

// The same trace as JSON.
const char* const tiny_json = R"({
  "format": "vela-trace",
  "version": 1,
  "initial": {"format": "vela-instance", "version": 1, "dims": 1,
    "pes": {"speed": [2], "background": [0.5], "cluster": [3]},
    "objects": {"id": [0, 1], "load": [1, 2], "size": [64, 64], "pe": [0, 0],
                "migratable": [true, false], "x": [0, 1]},
    "edges": {"from": [0], "to": [1], "messages": [1], "bytes": [8]}},
  "steps": [
    {"deleted": [1], "created": {"id": [5], "size": [32], "pe": [0], "migratable": [true],
     "x": [0.5]}, "loads": [1.5, 2.5]},
    {"edges": {"from": [5], "to": [0], "messages": [2], "bytes": [16]}, "loads": [3, 4]}
  ]
})";

class TraceFiles : public vela::testing::ScratchDirTest {
 protected:
  // read_trace's message for a file with these contents, or "" when it reads.
  std::string rejection(const std::string& contents, const std::string& name = "bad.trace") {
    put_file(path(name), contents);
    try {
      vela::lb::read_trace(path(name));
    } catch (const TraceError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind(path(name) + ": ", 0), 0u) << "names the file: " << message;
      return message;
    }
    return "";
  }

  std::string json_rejection(const std::string& from, const std::string& to) {
    std::string text = tiny_json;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    return rejection(text, "bad.json");
  }
};

#define EXPECT_MENTIONS(message, part)               \
  EXPECT_NE((message).find(part), std::string::npos) \
      << "expected '" << (part) << "' in: " << (message)

TEST_F(TraceFiles, JsonRoundTripsExactly) {
  const Trace original = small_trace();
  vela::lb::write_trace_json(original, path("t.json"));
  expect_same_trace(vela::lb::read_trace(path("t.json")), original);
  EXPECT_NE(slurp(path("t.json")).find("\"format\": \"vela-trace\""), std::string::npos);
}

TEST_F(TraceFiles, BinaryRoundTripsExactly) {
  const Trace original = small_trace();
  vela::lb::write_trace_binary(original, path("t.trace"));
  expect_same_trace(vela::lb::read_trace(path("t.trace")), original);
}

TEST_F(TraceFiles, ConvertingBackAndForthGivesTheSameBytes) {
  vela::lb::TraceOptions options;
  options.nx = 8;
  options.ny = 6;
  options.pes = 4;
  options.steps = 30;
  options.radiation.period = 7;
  options.drift.fraction = 0.5;
  options.churn.created_per_step = 0.7;
  options.churn.deleted_per_step = 0.4;
  const Trace trace = vela::lb::generate_trace(options);
  vela::lb::write_trace_binary(trace, path("a.trace"));
  vela::lb::write_trace_json(vela::lb::read_trace(path("a.trace")), path("b.json"));
  vela::lb::write_trace_binary(vela::lb::read_trace(path("b.json")), path("c.trace"));
  vela::lb::write_trace_json(vela::lb::read_trace(path("c.trace")), path("d.json"));
  EXPECT_EQ(slurp(path("a.trace")), slurp(path("c.trace")));
  EXPECT_EQ(slurp(path("b.json")), slurp(path("d.json")));
  expect_same_trace(vela::lb::read_trace(path("d.json")), trace);
}

TEST_F(TraceFiles, HandWrittenBinaryAndJsonFollowTheDocumentedLayouts) {
  put_file(path("tiny.trace"), tiny_binary());
  put_file(path("tiny.json"), tiny_json);
  const Trace binary = vela::lb::read_trace(path("tiny.trace"));
  const Trace json = vela::lb::read_trace(path("tiny.json"));
  expect_same_trace(binary, json);
  EXPECT_EQ(binary.initial.pes[0].cluster, 3);
  EXPECT_EQ(binary.initial.objects[1].coords[0], 1.0);
  EXPECT_FALSE(binary.initial.objects[1].migratable);
  ASSERT_EQ(binary.steps.size(), 2u);
  EXPECT_EQ(binary.steps[0].created[0].size, 32u);
  EXPECT_TRUE(binary.steps[1].replaces_edges);
  EXPECT_EQ(binary.steps[1].edges, (std::vector<vela::lb::TraceEdge>{{5, 0, 2, 16}}));
  // The writer produces exactly the documented bytes.
  vela::lb::write_trace_binary(json, path("again.trace"));
  EXPECT_EQ(slurp(path("again.trace")), tiny_binary());
}

TEST_F(TraceFiles, RejectsTruncatedBinaryAtEveryLength) {
  const std::string whole = tiny_binary();
  for (std::size_t n = 1; n < whole.size(); ++n) {
    const std::string message = rejection(whole.substr(0, n));
    EXPECT_MENTIONS(message, ": truncated: ");
  }
  EXPECT_MENTIONS(rejection(whole + "x"), "1 unexpected bytes after the last step");
}

TEST_F(TraceFiles, RejectsWrongMagicAndVersions) {
  Tiny t;
  t.magic = "\x89VELATX\n";
  EXPECT_MENTIONS(rejection(tiny_binary(t)), "wrong magic");
  EXPECT_MENTIONS(rejection("PK\x03\x04 not a trace"), "not a vela trace");
  t = Tiny{};
  t.version = 2;
  EXPECT_MENTIONS(rejection(tiny_binary(t)),
                  "version 2 is not supported (this build reads version 1)");
  EXPECT_MENTIONS(
      json_rejection("\"version\": 1,\n  \"initial\"", "\"version\": 3,\n  \"initial\""),
      "version 3 is not supported (this build reads version 1)");
  EXPECT_MENTIONS(json_rejection("\"vela-trace\"", "\"vela-instance\""),
                  "format: expected \"vela-trace\"");
}

TEST_F(TraceFiles, RejectsBadStepsInBinaryNamingStepAndElement) {
  Tiny t;
  t.load = std::numeric_limits<double>::quiet_NaN();
  EXPECT_MENTIONS(rejection(tiny_binary(t)),
                  "step 0: loads[1] (object id 5): nan must be a finite");
  t.load = -2.0;
  EXPECT_MENTIONS(rejection(tiny_binary(t)), "step 0: loads[1] (object id 5): -2 must be a finite");
  t = Tiny{};
  t.deleted = 7;
  EXPECT_MENTIONS(rejection(tiny_binary(t)), "step 0: deleted[0]: object id 7 does not exist");
  t = Tiny{};
  t.created = 1;  // deleted in the same step
  EXPECT_MENTIONS(rejection(tiny_binary(t)), "step 0: created[0]: object id 1 was used before");
  t = Tiny{};
  t.edge_from = 1;
  EXPECT_MENTIONS(rejection(tiny_binary(t)), "step 1: edges[0]: from object id 1 is not alive");
  t = Tiny{};
  t.short_loads = true;
  EXPECT_MENTIONS(rejection(tiny_binary(t)), "step 1: has 1 loads for 2 alive objects");
  t = Tiny{};
  t.migratable = 2;
  EXPECT_MENTIONS(rejection(tiny_binary(t)), "step 0: created migratable is 2, expected 0 or 1");
}

TEST_F(TraceFiles, RejectsBadJsonNamingTheElement) {
  EXPECT_MENTIONS(json_rejection("\"steps\"", "\"extra\": 1, \"steps\""),
                  "\"extra\": unknown field");
  EXPECT_MENTIONS(json_rejection("{\"deleted\"", "{\"delted\""), "steps[0].delted: unknown field");
  EXPECT_MENTIONS(json_rejection("\"loads\": [1.5, 2.5]", "\"loads\": \"x\""),
                  "steps[0].loads: expected an array of numbers, got the string \"x\"");
  EXPECT_MENTIONS(json_rejection("\"id\": [5]", "\"id\": [5.5]"),
                  "steps[0].created.id[0]: expected a 64-bit integer, got 5.5");
  EXPECT_MENTIONS(json_rejection("\"migratable\": [true],", "\"migratable\": [1],"),
                  "steps[0].created.migratable[0]: expected true or false, got 1");
  EXPECT_MENTIONS(json_rejection("\"loads\": [3, 4]", "\"loads\": [3, null]"),
                  "steps[1].loads[1]: expected a number, got null");
  EXPECT_MENTIONS(json_rejection("\"x\": [0.5]", "\"x\": [0.5], \"y\": [1]"),
                  "steps[0].created.y: present, but the trace has dims 1");
  EXPECT_MENTIONS(json_rejection("\"loads\": [1.5, 2.5]", "\"loads\": [1.5]"),
                  "step 0: has 1 loads for 2 alive objects");
  EXPECT_MENTIONS(json_rejection("\"loads\": [3, 4]", "\"deleted\": [1], \"loads\": [3, 4]"),
                  "step 1: deleted[0]: object id 1 is not alive: it was deleted at step 0");
  EXPECT_MENTIONS(json_rejection("\"id\": [5]", "\"id\": [0]"),
                  "step 0: created[0]: object id 0 was used before and is alive");
  EXPECT_MENTIONS(json_rejection("\"from\": [5]", "\"from\": [1]"),
                  "step 1: edges[0]: from object id 1 is not alive");
  EXPECT_MENTIONS(json_rejection("\"loads\": [3, 4]", "\"loads\": [3, -4]"),
                  "step 1: loads[1] (object id 5): -4 must be a finite number >= 0");
  EXPECT_MENTIONS(json_rejection("\"load\": [1, 2]", "\"load\": [1, -2]"),
                  ": initial: objects.load[1]");
  EXPECT_MENTIONS(json_rejection("\"loads\": [3, 4]", "\"loads\": [3, 4], \"loads\": [3, 4]"),
                  "field \"loads\" appears twice in one object");
  EXPECT_MENTIONS(json_rejection("\"steps\": [", "\"steps\": [}"),
                  "bad.json: not JSON: at line 9, column 13: syntax error");
  EXPECT_MENTIONS(json_rejection("  \"steps\": [", "  \"stepz\": ["), "\"stepz\": unknown field");
  EXPECT_MENTIONS(json_rejection(", \"loads\": [3, 4]", ""), "missing field \"steps[1].loads\"");
}

TEST_F(TraceFiles, RejectsMissingFilesAndEmptyOnes) {
  try {
    vela::lb::read_trace(path("missing.trace"));
    FAIL() << "read a missing file";
  } catch (const TraceError& e) {
    EXPECT_MENTIONS(std::string(e.what()), "missing.trace: cannot open for reading");
  }
  EXPECT_MENTIONS(rejection(""), "the file is empty");
}

TEST_F(TraceFiles, WritersRefuseAnInvalidTraceAndKeepTheOldFile) {
  vela::lb::write_trace_binary(small_trace(), path("t.trace"));
  const std::string before = slurp(path("t.trace"));
  Trace bad = small_trace();
  bad.steps[2].loads.pop_back();
  EXPECT_THROW(vela::lb::write_trace_binary(bad, path("t.trace")), TraceError);
  EXPECT_THROW(vela::lb::write_trace_json(bad, path("t.trace")), TraceError);
  EXPECT_EQ(slurp(path("t.trace")), before);
  EXPECT_THROW(vela::lb::write_trace_json(small_trace(), path("no/such/dir/t.json")), TraceError);
}

// A step after which no object is alive has no loads: an empty vector, whose data() may be null.
// Issue 15, finding 1: the binary reader and writer passed that pointer to memcpy (UBSan).
TEST_F(TraceFiles, StepsWithNoAliveObjectRoundTripInBothFormats) {
  Trace trace = small_trace();
  vela::lb::TraceStep all_gone;
  all_gone.deleted = {12, 13, 20, 21, 22};
  trace.steps.push_back(all_gone);
  trace.steps.emplace_back();  // nothing alive, nothing happens
  vela::lb::TraceStep again;
  again.created = {trace.steps[1].created[0]};
  again.created[0].id = 30;
  again.loads = {0.5};
  trace.steps.push_back(again);
  vela::lb::write_trace_binary(trace, path("t.trace"));
  vela::lb::write_trace_json(trace, path("t.json"));
  for (const char* name : {"t.trace", "t.json"}) {
    const Trace back = vela::lb::read_trace(path(name));
    expect_same_trace(back, trace);
    EXPECT_TRUE(back.steps[5].loads.empty()) << name;
    EXPECT_TRUE(back.steps[6].loads.empty()) << name;
  }
  // Empty from the start: an initial instance without objects.
  Trace empty;
  empty.initial.pes = {{1.0, 0.0, 0}};
  empty.steps.resize(3);
  vela::lb::write_trace_binary(empty, path("e.trace"));
  expect_same_trace(vela::lb::read_trace(path("e.trace")), empty);
}

// Issue 15, findings 4 and 5: every number in range, yet the sums the metrics take overflow.
TEST_F(TraceFiles, RejectsTotalsOutOfRangeNamingTheFileAndTheElement) {
  Tiny t;
  t.first_load = 1e308;
  t.load = 1e308;  // each finite; their sum is not
  EXPECT_MENTIONS(rejection(tiny_binary(t)), "step 0: loads[1]: the total time is not finite");
  t = Tiny{};
  t.speed = 1e-320;  // subnormal: a load of 1 takes 1e320 seconds
  EXPECT_MENTIONS(rejection(tiny_binary(t)),
                  "initial instance: PE 0: speed 1e-320 is not a normal positive number");
  t = Tiny{};
  t.created_size = std::numeric_limits<std::uint64_t>::max() - 100;  // + 64 + 64
  EXPECT_MENTIONS(rejection(tiny_binary(t)),
                  "step 0: created[0]: the sizes of the trace's objects (initial and created) add "
                  "up to more than 2^64 - 1 bytes");
  EXPECT_EQ(rejection(tiny_binary(Tiny{})), "") << "the unspoiled file reads";

  const std::string big = std::to_string(std::uint64_t{1} << 63);
  EXPECT_MENTIONS(json_rejection("\"edges\": {\"from\": [5], \"to\": [0], \"messages\": [2], "
                                 "\"bytes\": [16]}",
                                 "\"edges\": {\"from\": [5, 0], \"to\": [0, 5], \"messages\": "
                                 "[2, 2], \"bytes\": [" +
                                     big + ", " + big + "]}"),
                  "bad.json: step 1: edges[1]: the edges' bytes add up to more than 2^64 - 1");
  EXPECT_MENTIONS(json_rejection("\"speed\": [2]", "\"speed\": [1e-320]"),
                  "bad.json: initial: PE 0: speed 1e-320 is not a normal positive number");
  EXPECT_MENTIONS(json_rejection("\"load\": [1, 2]", "\"load\": [1.7e308, 1.7e308]"),
                  "bad.json: initial: objects.load[1]: the total time is not finite");

  // The writers refuse what the readers reject, so that no file is written that cannot be read.
  Trace trace = small_trace();
  trace.steps[0].loads = {1e308, 1e308, 1e308, 1e308};
  EXPECT_THROW(vela::lb::write_trace_binary(trace, path("w.trace")), TraceError);
  EXPECT_THROW(vela::lb::write_trace_json(trace, path("w.json")), TraceError);
  EXPECT_FALSE(std::filesystem::exists(path("w.trace")));
  EXPECT_FALSE(std::filesystem::exists(path("w.json")));
}

// Issue 15, finding 6: nlohmann's own exception ("[json.exception.out_of_range.406] ...") named
// neither the file nor the place.
TEST_F(TraceFiles, NumbersTooLargeForADoubleAreReportedWithTheFileAndPosition) {
  const std::string message = json_rejection("\"loads\": [3, 4]", "\"loads\": [3, 1e999]");
  EXPECT_MENTIONS(message,
                  "bad.json: line 12, column 86: the number 1e999 is too large for a "
                  "double");
  EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;
  EXPECT_MENTIONS(json_rejection("\"x\": [0.5]", "\"x\": [-2e400]"),
                  "bad.json: line 11, column 12: the number -2e400 is too large");
  // The same digits inside a string do not mislead the position.
  std::string text = tiny_json;
  text.insert(text.find("\"initial\""), "\"note\": \"1e999\", ");
  text.replace(text.find("\"loads\": [3, 4]"), 16, "\"loads\": [3, 1e999]");
  EXPECT_MENTIONS(rejection(text, "bad.json"), "line 12, column 86: the number 1e999");
}

TEST_F(TraceFiles, AJsonTraceMayStartWithAByteOrderMark) {
  put_file(path("bom.json"), "\xEF\xBB\xBF" + std::string(tiny_json));
  put_file(path("tiny.trace"), tiny_binary());
  expect_same_trace(vela::lb::read_trace(path("bom.json")),
                    vela::lb::read_trace(path("tiny.trace")));
}

// Issue 15, finding 10: counts are checked against the bytes left before anything is allocated,
// and a file that is not a regular one is read in pieces, up to a limit.
TEST_F(TraceFiles, HugeCountsAndEndlessInputsEndAtOnceWithAClearError) {
  Bytes b;
  b.text = "\x89VELATR\n";
  b.u32(1).i32(0).u64(1).f64(1.0).f64(0.0).i32(0);
  b.u64(std::uint64_t{1} << 31);  // objects: 62 GB for a file of 52 bytes
  EXPECT_MENTIONS(rejection(b.text),
                  "truncated: initial instance: object count 2147483648 needs 62277025792 bytes");
  if (std::filesystem::exists("/dev/zero")) {
    const auto start = std::chrono::steady_clock::now();
    try {
      vela::lb::read_trace("/dev/zero");
      ADD_FAILURE() << "read /dev/zero";
    } catch (const TraceError& e) {
      EXPECT_MENTIONS(std::string(e.what()), "/dev/zero: not a vela trace");
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  }
}

// A pipe has no size: it is read in pieces (the same code that stops /dev/zero reads it whole).
TEST_F(TraceFiles, ReadsATraceFromAPipe) {
  vela::lb::write_trace_binary(small_trace(), path("t.trace"));
  const std::string bytes = slurp(path("t.trace"));
  ASSERT_EQ(::mkfifo(path("pipe").c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(path("pipe"), std::ios::binary) << bytes; });
  const Trace back = vela::lb::read_trace(path("pipe"));
  writer.join();
  expect_same_trace(back, small_trace());
}

TEST_F(TraceFiles, AThousandObjectStormTraceReadsBackExactlyInBothFormats) {
  vela::lb::TraceOptions options;  // 32 x 32 objects, 64 PEs, 2,400 steps, moving storm
  options.radiation.period = 100;
  const Trace trace = vela::lb::generate_trace(options);
  vela::lb::write_trace_binary(trace, path("storm.trace"));
  vela::lb::write_trace_json(trace, path("storm.json"));
  // Read speed is a row of bench/trace_bench.cpp, not a timed test.
  const Trace binary = vela::lb::read_trace(path("storm.trace"));
  const Trace json = vela::lb::read_trace(path("storm.json"));
  ASSERT_EQ(binary.steps.size(), 2400u);
  EXPECT_TRUE(
      vela::testing::same_bits(binary.steps[2399].loads[1023], trace.steps[2399].loads[1023]));
  EXPECT_TRUE(vela::testing::same_bits(json.steps[1234].loads[17], trace.steps[1234].loads[17]));
}

}  // namespace
