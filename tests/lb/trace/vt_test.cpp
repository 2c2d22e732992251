// DARMA vt LB data files (vela/lb/trace/vt.hpp): a hand-written pair of rank files imports to known
// values, export then import gives back the loads, placements and edges, and bad files are
// rejected naming the file, the phase and the element.
#include "vela/lb/trace/vt.hpp"

#include <brotli/encode.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>

#include "lb/trace/trace_support.hpp"
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

  static std::string slurp(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  static void put_file(const std::string& file, const std::string& contents) {
    std::ofstream(file, std::ios::binary) << contents;
  }

  // `text` compressed as vt compresses its LB data, with brotli's encoder.
  static std::string brotli(const std::string& text) {
    std::string out(BrotliEncoderMaxCompressedSize(text.size()), '\0');
    std::size_t size = out.size();
    const bool ok =
        BrotliEncoderCompress(BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT,
                              text.size(), reinterpret_cast<const std::uint8_t*>(text.data()),
                              &size, reinterpret_cast<std::uint8_t*>(out.data()));
    EXPECT_TRUE(ok);
    out.resize(size);
    return out;
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

// The names in a directory, sorted: what an export leaves there, hidden files included.
std::vector<std::string> names_in(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// 2 PEs: one object on PE 0, `heavy` on PE 1, over `steps` steps; PE 1's file is the large one.
Trace lopsided_trace(int heavy, int steps) {
  Trace t;
  t.initial.pes = {{1.0, 0.0, 0}, {1.0, 0.0, 0}};
  for (int i = 0; i <= heavy; ++i) {
    vela::lb::Object o;
    o.id = i;
    o.load = 1.0 + i;
    o.pe = i == 0 ? 0 : 1;
    t.initial.objects.push_back(o);
  }
  for (int s = 0; s < steps; ++s) {
    vela::lb::TraceStep step;
    for (int i = 0; i <= heavy; ++i) step.loads.push_back(0.1 * (s + i + 1));
    t.steps.push_back(step);
  }
  return t;
}

// Issue 15, finding 7: an export into a directory of a larger older one left its extra rank
// files, which an import of the directory then read with the new ones.
TEST_F(VtFiles, AnExportReplacesAnOlderLargerOneWhollyAndLeavesNoTemporaryFile) {
  vela::lb::TraceOptions o;
  o.nx = 4;
  o.ny = 4;
  o.pes = 4;
  o.steps = 3;
  EXPECT_EQ(vela::lb::export_vt(vela::lb::generate_trace(o), path("vt")).size(), 4u);
  const Trace small = vela::testing::small_trace();
  vela::lb::export_vt(small, path("vt"));
  EXPECT_EQ(names_in(path("vt")), (std::vector<std::string>{"data.0.json", "data.1.json"}));
  vela::testing::expect_same_trace(
      vela::lb::import_vt({path("vt/data.0.json"), path("vt/data.1.json")}),
      vela::lb::import_vt({path("vt/data.1.json"), path("vt/data.0.json")}));
  EXPECT_EQ(vela::lb::import_vt({path("vt/data.0.json"), path("vt/data.1.json")}).steps.size(),
            small.steps.size());
}

// Restores the file size limit and SIGXFSZ's handler that a test changed.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG
    rlimit limit = old_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit old_{};
  void (*old_handler_)(int) = nullptr;
};

// Issue 15, finding 7: an export that failed partway left some new files beside old ones, which
// an import then read as a smaller (or mixed) trace. Now the set is complete or absent.
TEST_F(VtFiles, AnExportThatFailsPartwayLeavesTheDirectoryAsItWas) {
  const Trace old = vela::testing::small_trace();
  vela::lb::export_vt(old, path("vt"));
  const std::string old0 = slurp(path("vt/data.0.json"));
  const std::string old1 = slurp(path("vt/data.1.json"));
  const Trace lopsided = lopsided_trace(200, 40);
  {
    // PE 0's file fits in 64 KiB and is written whole; PE 1's does not.
    const FileSizeLimit limit(64 * 1024);
    try {
      vela::lb::export_vt(lopsided, path("vt"));
      ADD_FAILURE() << "the export went through";
    } catch (const TraceError& e) {
      // With the reason (issue 36, finding 10).
      EXPECT_MENTIONS(std::string(e.what()), "data.1.json: cannot write: File too large");
    }
  }
  EXPECT_EQ(names_in(path("vt")), (std::vector<std::string>{"data.0.json", "data.1.json"}));
  EXPECT_EQ(slurp(path("vt/data.0.json")), old0);
  EXPECT_EQ(slurp(path("vt/data.1.json")), old1);
  // A rank file that cannot be replaced is found before anything is written.
  std::filesystem::create_directories(path("vt2/data.1.json"));
  vela::lb::export_vt(old, path("vt3"));
  std::filesystem::copy_file(path("vt3/data.0.json"), path("vt2/data.0.json"));
  EXPECT_THROW(vela::lb::export_vt(lopsided, path("vt2")), TraceError);
  EXPECT_EQ(names_in(path("vt2")), (std::vector<std::string>{"data.0.json", "data.1.json"}));
  EXPECT_EQ(slurp(path("vt2/data.0.json")), old0);
  // A new directory that the failed export made is gone again.
  {
    const FileSizeLimit limit(64 * 1024);
    EXPECT_THROW(vela::lb::export_vt(lopsided, path("fresh")), TraceError);
  }
  EXPECT_FALSE(std::filesystem::exists(path("fresh")));
  // Without the limit the same export goes through, and PE 1's file was the large one.
  vela::lb::export_vt(lopsided, path("vt"));
  EXPECT_LT(std::filesystem::file_size(path("vt/data.0.json")), 64u * 1024);
  EXPECT_GT(std::filesystem::file_size(path("vt/data.1.json")), 64u * 1024);
}

// Issue 15, finding 7: export-vt onto an input named data.0.json overwrote it.
TEST_F(VtFiles, AnExportNeverReplacesOrRemovesAnInput) {
  const Trace trace = vela::testing::small_trace();  // 2 PEs
  std::filesystem::create_directories(path("vt"));
  vela::lb::write_trace_json(trace, path("vt/data.0.json"));
  const std::string input = slurp(path("vt/data.0.json"));
  for (const std::string& spelling : {path("vt/data.0.json"), path("vt/../vt/./data.0.json")}) {
    try {
      vela::lb::export_vt(trace, path("vt"), {spelling});
      ADD_FAILURE() << "exported over the input";
    } catch (const TraceError& e) {
      EXPECT_MENTIONS(std::string(e.what()),
                      "data.0.json: is the input " + spelling + ", which the export would replace");
    }
  }
  EXPECT_EQ(slurp(path("vt/data.0.json")), input);
  EXPECT_EQ(names_in(path("vt")), (std::vector<std::string>{"data.0.json"}));
  // A rank file beyond the trace's PEs would be removed as stale: not if it is the input.
  std::filesystem::rename(path("vt/data.0.json"), path("vt/data.5.json"));
  try {
    vela::lb::export_vt(trace, path("vt"), {path("vt/data.5.json")});
    ADD_FAILURE() << "removed the input";
  } catch (const TraceError& e) {
    EXPECT_MENTIONS(std::string(e.what()), "remove as a rank file of an older export");
  }
  EXPECT_EQ(slurp(path("vt/data.5.json")), input);
}

TEST_F(VtFiles, AnImportTellsFilesOfAnotherExportAndMissingRanks) {
  const Trace a = vela::testing::small_trace();
  Trace b = a;
  b.steps[0].loads[0] = 0.5;
  vela::lb::export_vt(a, path("a"));
  vela::lb::export_vt(b, path("b"));
  EXPECT_MENTIONS(rejection({path("a/data.0.json"), path("b/data.1.json")}),
                  "b/data.1.json: is from another export than");
  // One export of 3 ranks, its middle file missing; then its last one.
  vela::lb::TraceOptions o;
  o.nx = 3;
  o.ny = 3;
  o.pes = 3;
  o.steps = 2;
  vela::lb::export_vt(vela::lb::generate_trace(o), path("c"));
  EXPECT_MENTIONS(rejection({path("c/data.0.json"), path("c/data.2.json")}),
                  "the vt files given are 2 of the 3 rank files of one export");
  EXPECT_MENTIONS(rejection({path("c/data.0.json"), path("c/data.1.json")}),
                  "the vt files given are 2 of the 3 rank files of one export");
  // A plain vt file beside an export's.
  EXPECT_MENTIONS(rejection({path("a/data.0.json"), (fixtures / "vt" / "data.1.json").string()}),
                  "data.1.json: is not from the same export as");
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

// Issue 15, finding 11: vt writes its LB data brotli-compressed by default (data.<rank>.json.br).
TEST_F(VtFiles, ReadsBrotliCompressedFilesAsTheirPlainJson) {
  const std::vector<std::string> plain = fixture_files();
  const std::string zero = path("data.0.json.br");
  const std::string one = path("data.1.json.br");
  put_file(zero, brotli(slurp(plain[1])));
  put_file(one, brotli(slurp(plain[0])));
  ASSERT_NE(slurp(zero), slurp(plain[1])) << "compressed";
  const Trace expected = vela::lb::import_vt(plain);
  vela::testing::expect_same_trace(vela::lb::import_vt({one, zero}), expected);
  // Brotli has no magic number: a compressed file is known by not starting as JSON, whatever
  // its name, and a set may mix both.
  put_file(path("renamed.json"), slurp(zero));
  vela::testing::expect_same_trace(vela::lb::import_vt({path("renamed.json"), plain[0]}), expected);
}

TEST_F(VtFiles, RejectsWhatIsNeitherJsonNorBrotliNamingTheFile) {
  put_file(path("data.1.json"), std::string("\x8b\x7f\x00 binary", 10));
  EXPECT_MENTIONS(rejection({path("data.1.json")}),
                  "data.1.json: not a vt LB data file: neither JSON (it starts with byte 0x8b, not "
                  "'{') nor brotli-compressed JSON (brotli's decoder fails with ");
  const std::string whole = brotli(slurp(fixture_files()[1]));
  put_file(path("data.0.json.br"), whole.substr(0, whole.size() / 2));
  EXPECT_MENTIONS(rejection({path("data.0.json.br")}),
                  "data.0.json.br: truncated: the brotli-compressed data ends early");
  put_file(path("data.2.json.br"), brotli("PK\x03\x04 a zip file, say"));
  EXPECT_MENTIONS(rejection({path("data.2.json.br")}),
                  "data.2.json.br: brotli-compressed, but what it holds is not JSON (it starts "
                  "with byte 0x50)");
  put_file(path("data.3.json.br"), brotli("{\"phases\": [1e999]}"));
  EXPECT_MENTIONS(rejection({path("data.3.json.br")}),
                  "data.3.json.br: decompressed: line 1, column 13: the number 1e999 is too large");
  if (std::filesystem::exists("/dev/zero")) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_MENTIONS(rejection({"/dev/zero"}), "/dev/zero: not a vt LB data file: neither JSON");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  }
}

// Issue 15, finding 11: a byte order mark was taken for compressed data.
TEST_F(VtFiles, SkipsAByteOrderMark) {
  const std::vector<std::string> plain = fixture_files();
  put_file(path("data.0.json"), "\xEF\xBB\xBF" + slurp(plain[1]));
  vela::testing::expect_same_trace(vela::lb::import_vt({path("data.0.json"), plain[0]}),
                                   vela::lb::import_vt(plain));
}

// Issue 15, finding 6: nlohmann's "[json.exception.out_of_range.406] number overflow parsing
// '1e999'" named neither the file nor the place.
TEST_F(VtFiles, JsonErrorsNameTheFileAndThePosition) {
  const std::string rank1 = (fixtures / "vt" / "data.1.json").string();
  std::string file = spoiled("data.0.json", {{"\"time\": 0.625", "\"time\": 1e999"}});
  const std::string message = rejection({file, rank1});
  EXPECT_MENTIONS(message,
                  "data.0.json: line 56, column 49: the number 1e999 is too large for a "
                  "double");
  EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;
  file = spoiled("data.0.json", {{"\"rank\": 0,", "\"rank\": 0,,"}});
  EXPECT_MENTIONS(rejection({file, rank1}), "data.0.json: not JSON: at line 4, column 15: syntax");
}

// Issue 15, findings 4 and 5: each value in range, their sums not.
TEST_F(VtFiles, RejectsTotalsOutOfRangeNamingTheFile) {
  const std::string rank1 = (fixtures / "vt" / "data.1.json").string();
  std::string file = spoiled(
      "data.0.json", {{"\"rank\": 0,", "\"rank\": 0, \"attributes\": {\"vela_speed\": 1e-320},"}});
  EXPECT_MENTIONS(rejection({file, rank1}),
                  "data.0.json: metadata.attributes.vela_speed: speed 1e-320 is not a normal "
                  "positive number");
  file = spoiled("data.0.json",
                 {{"\"time\": 0.5", "\"time\": 1e308"}, {"\"time\": 0.75", "\"time\": 1e308"}});
  EXPECT_MENTIONS(rejection({file, rank1}),
                  "data.0.json: phase 0: object id 524291: the total time is not finite");
  // Two communications of 1.5 * 2^63 bytes each: each fits in 64 bits, their sum does not.
  file = spoiled("data.0.json", {{"\"messages\": 2, \"bytes\": 1024.0",
                                  "\"messages\": 2, \"bytes\": 1.3835058055282164e19"}});
  const std::string file1 =
      spoiled("data.1.json", {{"\"bytes\": 256.0", "\"bytes\": 1.3835058055282164e19"}});
  EXPECT_MENTIONS(rejection({file, file1}),
                  "data.1.json: phase 0: communication from object id 786435 to 262147: the "
                  "phase's communications add up to more than 2^64 - 1 bytes");
}

// Issue 15, finding 7: a set with a rank missing read silently as a smaller trace.
TEST_F(VtFiles, RejectsASetWithAMissingRank) {
  const std::string rank1 = (fixtures / "vt" / "data.1.json").string();
  const std::string file = spoiled("data.0.json", {{"\"rank\": 0", "\"rank\": 2"}});
  EXPECT_MENTIONS(rejection({file, rank1}),
                  "no vt file for rank 0: the files given hold ranks 1, 2; vt writes one file per "
                  "rank, 0 to N - 1 (is one missing?)");
  // Rank 0 alone: its tasks ran on rank 0, but it received from object 786435 of home rank 1.
  EXPECT_MENTIONS(rejection({fixture_files()[1]}),
                  "data.0.json: phases[0] (phase 0).communications[0].to.home is rank 1, but no "
                  "vt file for rank 1 was given (the files given hold rank 0; vt writes one file "
                  "per rank)");
}

// A large identical_to_previous range used to be expanded into copies before any check.
TEST_F(VtFiles, RejectsMoreIdenticalPhasesThanAFileMayHold) {
  const std::string rank1 = (fixtures / "vt" / "data.1.json").string();
  const std::string file =
      spoiled("data.0.json",
              {{"\"list\": [3], \"range\": []", "\"list\": [], \"range\": [[3, 99999999999]]"}});
  EXPECT_MENTIONS(rejection({file, rank1}),
                  "metadata.phases.identical_to_previous.range[0]: [3,99999999999] makes more "
                  "than 4194304 identical phases");
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
