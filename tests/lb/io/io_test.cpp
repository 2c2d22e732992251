// Specification of the instance file format (docs/instance-format.md): what is written reads back
// bit for bit, and every malformed file is rejected with a message naming the element.
#include "vela/lb/io/io.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace vela::lb {
namespace {

// ---------------------------------------------------------------------------------------------
// Round trip

// A double from the whole range: ordinary, tiny, huge, subnormal, and values with no short
// decimal form, so that any loss of precision in writing shows up.
double random_double(std::mt19937_64& rng) {
  static const std::vector<double> special = {
      0.0, -0.0, 0.1, 1.0 / 3.0, DBL_MIN, DBL_MAX, DBL_TRUE_MIN, 1e300, 123456789012345680000.0};
  switch (rng() % 4) {
    case 0:
      return special[rng() % special.size()];
    case 1:
      return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    case 2:
      return std::ldexp(std::uniform_real_distribution<double>(1.0, 2.0)(rng),
                        static_cast<int>(rng() % 2000) - 1000);
    default:
      return static_cast<double>(rng() % 100000);
  }
}

// random_double() within [min, max], so that the totals stay in range (docs/instance-format.md,
// "Totals"): up to 16 speeds and backgrounds and 300 loads of at most 1e300 add up to a finite
// number, and loads over speeds of at least 1e-3 too.
double random_double_in(std::mt19937_64& rng, double min, double max) {
  for (;;) {
    const double value = random_double(rng);
    if (value >= min && value <= max) return value;
  }
}

// 64-bit counts whose sum over up to 900 elements fits in 64 bits: the first one at least 2^63
// (so that the top bit round-trips), the others below 2^54.
std::uint64_t random_count(std::mt19937_64& rng, bool first) {
  if (first) return (std::uint64_t{1} << 63) | (rng() >> 2);
  return rng() >> (10 + rng() % 54);
}

Instance random_instance(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Instance in;
  in.dims = static_cast<int>(seed % 4);
  in.pes.resize(1 + rng() % 16);
  for (Pe& pe : in.pes) {
    pe.speed = random_double_in(rng, 1e-3, 1e300);
    pe.background = random_double_in(rng, 0.0, 1e300);
    pe.cluster = static_cast<std::int32_t>(rng() % 4);
  }
  const std::size_t n = seed % 5 == 0 ? 0 : rng() % 300;
  // Ids: in order from 0, a shuffled compact range, or spread over all of int64.
  std::vector<ObjectId> ids(n);
  const std::uint64_t scheme = rng() % 3;
  for (std::size_t i = 0; i < n; ++i) {
    ids[i] = scheme == 0   ? static_cast<ObjectId>(i)
             : scheme == 1 ? static_cast<ObjectId>(i) - 17
                           : static_cast<ObjectId>(rng());
  }
  if (scheme == 1) std::shuffle(ids.begin(), ids.end(), rng);
  if (scheme == 2 && n >= 2) {
    ids[0] = std::numeric_limits<ObjectId>::min();
    ids[1] = std::numeric_limits<ObjectId>::max();
  }
  for (std::size_t i = 0; i < n; ++i) {
    Object o;
    o.id = ids[i];
    o.load = random_double_in(rng, 0.0, 1e300);
    o.size = random_count(rng, i == 0);
    o.pe = static_cast<PeId>(rng() % in.pes.size());
    o.migratable = rng() % 4 != 0;
    for (int d = 0; d < in.dims; ++d) {
      o.coords[static_cast<std::size_t>(d)] = rng() % 2 ? random_double(rng) : -random_double(rng);
    }
    in.objects.push_back(o);
  }
  const std::size_t m = n == 0 ? 0 : rng() % (3 * n);
  for (std::size_t e = 0; e < m; ++e) {
    in.edges.push_back({.from = static_cast<std::uint32_t>(rng() % n),
                        .to = static_cast<std::uint32_t>(rng() % n),
                        .messages = random_count(rng, e == 0),
                        .bytes = random_count(rng, e == 0)});
  }
  return in;
}

// Bitwise equality, so that -0.0 and 0.0 or two nearby doubles count as different.
bool same(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

void expect_same(const Instance& a, const Instance& b) {
  ASSERT_EQ(a.dims, b.dims);
  ASSERT_EQ(a.pes.size(), b.pes.size());
  ASSERT_EQ(a.objects.size(), b.objects.size());
  ASSERT_EQ(a.edges.size(), b.edges.size());
  for (std::size_t p = 0; p < a.pes.size(); ++p) {
    EXPECT_TRUE(same(a.pes[p].speed, b.pes[p].speed)) << "PE " << p;
    EXPECT_TRUE(same(a.pes[p].background, b.pes[p].background)) << "PE " << p;
    EXPECT_EQ(a.pes[p].cluster, b.pes[p].cluster) << "PE " << p;
  }
  for (std::size_t i = 0; i < a.objects.size(); ++i) {
    const Object& x = a.objects[i];
    const Object& y = b.objects[i];
    EXPECT_EQ(x.id, y.id) << "object " << i;
    EXPECT_TRUE(same(x.load, y.load)) << "object " << i << ": " << x.load << " vs " << y.load;
    EXPECT_EQ(x.size, y.size) << "object " << i;
    EXPECT_EQ(x.pe, y.pe) << "object " << i;
    EXPECT_EQ(x.migratable, y.migratable) << "object " << i;
    for (std::size_t d = 0; d < 3; ++d) {
      EXPECT_TRUE(same(x.coords[d], y.coords[d])) << "object " << i << " coordinate " << d;
    }
  }
  for (std::size_t e = 0; e < a.edges.size(); ++e) {
    EXPECT_EQ(a.edges[e].from, b.edges[e].from) << "edge " << e;
    EXPECT_EQ(a.edges[e].to, b.edges[e].to) << "edge " << e;
    EXPECT_EQ(a.edges[e].messages, b.edges[e].messages) << "edge " << e;
    EXPECT_EQ(a.edges[e].bytes, b.edges[e].bytes) << "edge " << e;
  }
}

std::string written(const Instance& instance) {
  std::ostringstream out;
  write_instance(instance, out);
  return out.str();
}

TEST(InstanceIo, RandomInstancesRoundTripBitForBit) {
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Instance original = random_instance(seed);
    expect_same(original, parse_instance(written(original), "random.json"));
  }
}

TEST(InstanceIo, RandomInstancesCoverWhatTheRoundTripClaims) {
  // Guards the generator above: the round trip must have seen each kind of value.
  std::set<int> dims;
  bool non_migratable = false, negative_zero = false, subnormal = false, sparse_ids = false;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    const Instance in = random_instance(seed);
    dims.insert(in.dims);
    for (const Object& o : in.objects) {
      non_migratable = non_migratable || !o.migratable;
      negative_zero = negative_zero || (o.coords[0] == 0.0 && std::signbit(o.coords[0]));
      subnormal = subnormal || std::fpclassify(o.load) == FP_SUBNORMAL;
      sparse_ids = sparse_ids || o.id == std::numeric_limits<ObjectId>::min();
    }
  }
  EXPECT_EQ(dims, (std::set<int>{0, 1, 2, 3}));
  EXPECT_TRUE(non_migratable);
  EXPECT_TRUE(negative_zero);
  EXPECT_TRUE(subnormal);
  EXPECT_TRUE(sparse_ids);
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("vela_io_test_" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

using InstanceFile = TempDir;

TEST_F(InstanceFile, WriteThenReadGivesTheSameInstance) {
  const Instance original = random_instance(7);
  write_instance(original, path("a.json"));
  expect_same(original, read_instance(path("a.json")));
}

TEST_F(InstanceFile, RewritingReplacesTheFileAndLeavesNothingElse) {
  write_instance(random_instance(3), path("a.json"));
  const Instance second = random_instance(4);
  write_instance(second, path("a.json"));
  expect_same(second, read_instance(path("a.json")));
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(names, std::vector<std::string>{"a.json"});
}

TEST_F(InstanceFile, ReadingAMissingFileNamesItAndTheReason) {
  try {
    read_instance(path("missing.json"));
    FAIL() << "no error";
  } catch (const InstanceError& e) {
    EXPECT_EQ(std::string(e.what()),
              path("missing.json") + ": cannot open for reading: No such file or directory");
  }
}

TEST_F(InstanceFile, ReadingADirectoryIsAnError) {
  try {
    read_instance(dir_.string());
    FAIL() << "no error";
  } catch (const InstanceError& e) {
    EXPECT_EQ(std::string(e.what()), dir_.string() + ": cannot read: Is a directory");
  }
}

// Issue 15, finding 10: a device never ends; its first bytes show it is no instance.
TEST_F(InstanceFile, ReadingDevZeroEndsAtOnceWithAClearError) {
  if (!std::filesystem::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  const auto start = std::chrono::steady_clock::now();
  try {
    read_instance("/dev/zero");
    FAIL() << "no error";
  } catch (const InstanceError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/dev/zero: not JSON: the instance should start with '{', but byte 0 is 0x00 "
              "(binary data?)");
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(InstanceFile, AFileMayStartWithAByteOrderMark) {
  const Instance original = random_instance(7);
  std::ofstream(path("bom.json"), std::ios::binary) << "\xEF\xBB\xBF" << written(original);
  expect_same(original, read_instance(path("bom.json")));
}

TEST_F(InstanceFile, WritingIntoAMissingDirectoryNamesTheFile) {
  const std::string target = path("no/such/dir/a.json");
  try {
    write_instance(random_instance(1), target);
    FAIL() << "no error";
  } catch (const InstanceError& e) {
    EXPECT_EQ(std::string(e.what()),
              target + ": cannot open for writing: No such file or directory");
  }
}

TEST(InstanceIo, WritingToAFullDeviceReportsTheReason) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  try {
    write_instance(random_instance(1), std::string("/dev/full"));
    FAIL() << "no error";
  } catch (const InstanceError& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/full: cannot write: No space left on device");
  }
}

TEST(InstanceIo, WritingToAFailedStreamIsAnError) {
  std::ofstream closed;  // never opened: every write fails
  EXPECT_THROW(write_instance(random_instance(1), closed), InstanceError);
}

TEST(InstanceIo, AnInvalidInstanceIsNotWritten) {
  Instance in = random_instance(1);
  ASSERT_FALSE(in.objects.empty());
  in.objects[0].load = std::numeric_limits<double>::quiet_NaN();
  std::ostringstream out;
  try {
    write_instance(in, out);
    FAIL() << "no error";
  } catch (const InstanceError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write an invalid instance: object 0"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(out.str().empty());
}

TEST(InstanceIo, NegativeZeroIsWrittenAsAFloat) {
  // "-0" is an integer to most JSON readers, which then lose the sign.
  Instance in;
  in.dims = 1;
  in.pes.resize(1);
  in.objects.push_back({.id = 1, .load = -0.0, .size = 0, .coords = {-0.0, 0, 0}});
  const std::string text = written(in);
  EXPECT_NE(text.find("\"load\": [-0.0]"), std::string::npos) << text;
  EXPECT_NE(text.find("\"x\": [-0.0]"), std::string::npos) << text;
}

TEST(InstanceIo, OnlyTheCoordinatesOfDimsAreWritten) {
  Instance in = random_instance(2);  // dims 2
  ASSERT_EQ(in.dims, 2);
  const std::string text = written(in);
  EXPECT_NE(text.find("\"y\": ["), std::string::npos);
  EXPECT_EQ(text.find("\"z\""), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Reading hand-written files

using Fields = std::map<std::string, std::string>;

std::string json_object(const Fields& fields) {
  std::string text = "{";
  for (const auto& [name, value] : fields) {
    if (text.size() > 1) text += ", ";
    text += "\"" + name + "\": " + value;
  }
  return text + "}";
}

// A small valid file whose parts a test can change or leave out.
struct Doc {
  Fields top = {{"format", "\"vela-instance\""}, {"version", "1"}, {"dims", "2"}};
  Fields pes = {{"speed", "[1, 2.5]"}, {"background", "[0, 0.25]"}, {"cluster", "[0, 1]"}};
  Fields objects = {{"id", "[10, 11, 12]"},
                    {"load", "[1.5, 2, 0]"},
                    {"size", "[8, 16, 0]"},
                    {"pe", "[0, 1, 1]"},
                    {"migratable", "[true, false, true]"},
                    {"x", "[0, 1, -2.5]"},
                    {"y", "[0.5, 0, 3]"}};
  Fields edges = {{"from", "[10, 11, 12]"},
                  {"to", "[11, 12, 10]"},
                  {"messages", "[1, 2, 3]"},
                  {"bytes", "[100, 200, 300]"}};
  std::set<std::string> omit;

  std::string text() const {
    Fields all = top;
    all.emplace("pes", json_object(pes));
    all.emplace("objects", json_object(objects));
    all.emplace("edges", json_object(edges));
    for (const std::string& name : omit) all.erase(name);
    return json_object(all);
  }
};

TEST(InstanceParse, ReadsEveryFieldOfAHandWrittenFile) {
  const Instance in = parse_instance(Doc().text(), "small.json");
  EXPECT_EQ(in.dims, 2);
  ASSERT_EQ(in.pes.size(), 2u);
  EXPECT_EQ(in.pes[1].speed, 2.5);
  EXPECT_EQ(in.pes[1].background, 0.25);
  EXPECT_EQ(in.pes[1].cluster, 1);
  ASSERT_EQ(in.objects.size(), 3u);
  EXPECT_EQ(in.objects[1].id, 11);
  EXPECT_EQ(in.objects[0].load, 1.5);
  EXPECT_EQ(in.objects[1].size, 16u);
  EXPECT_EQ(in.objects[2].pe, 1);
  EXPECT_FALSE(in.objects[1].migratable);
  EXPECT_EQ(in.objects[2].coords[0], -2.5);
  EXPECT_EQ(in.objects[2].coords[1], 3.0);
  EXPECT_EQ(in.objects[2].coords[2], 0.0);
  ASSERT_EQ(in.edges.size(), 3u);
  // Edge ends are ids in the file and positions in memory: id 12 is objects[2].
  EXPECT_EQ(in.edges[2].from, 2u);
  EXPECT_EQ(in.edges[2].to, 0u);
  EXPECT_EQ(in.edges[1].messages, 2u);
  EXPECT_EQ(in.edges[1].bytes, 200u);
}

TEST(InstanceParse, AcceptsAnyFieldOrderAndWhitespace) {
  const std::string text =
      "\n{ \"edges\" : {\"bytes\":[],\"messages\":[],\"to\":[],\"from\":[]},\r\n"
      "\t\"objects\": {\"pe\": [0], \"id\": [5], \"migratable\": [false], \"load\": [ 1e-3 ],"
      " \"size\": [0]},\n \"pes\": {\"cluster\": [3], \"background\": [0], \"speed\": [1]},"
      " \"dims\": 0, \"version\": 1, \"format\": \"vela-instance\" }\n";
  const Instance in = parse_instance(text, "shuffled.json");
  ASSERT_EQ(in.objects.size(), 1u);
  EXPECT_EQ(in.objects[0].id, 5);
  EXPECT_EQ(in.objects[0].load, 1e-3);
  EXPECT_FALSE(in.objects[0].migratable);
  EXPECT_EQ(in.pes[0].cluster, 3);
}

// The message must start with the source name and contain `expected`.
::testing::AssertionResult rejected(const std::string& text, const std::string& expected,
                                    const std::string& source = "x.json") {
  try {
    parse_instance(text, source);
  } catch (const InstanceError& e) {
    const std::string message = e.what();
    if (message.rfind(source + ": ", 0) != 0) {
      return ::testing::AssertionFailure() << "message does not start with the source: " << message;
    }
    if (message.find(expected) == std::string::npos) {
      return ::testing::AssertionFailure() << "message lacks \"" << expected << "\": " << message;
    }
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "accepted; expected an error with \"" << expected << "\"";
}

TEST(InstanceParse, RejectsANegativeLoad) {
  Doc doc;
  doc.objects["load"] = "[1.5, -1.5, 0]";
  EXPECT_TRUE(rejected(
      doc.text(), "storm.json: objects.load[1]: -1.5 is negative; expected a finite number >= 0",
      "storm.json"));
}

TEST(InstanceParse, RejectsALoadTooLargeForADouble) {
  Doc doc;
  doc.objects["load"] = "[1.5, 2, 1e400]";
  EXPECT_TRUE(rejected(doc.text(), "objects.load[2]: 1e400 is not finite"));
}

TEST(InstanceParse, ReadsAnUnderflowingLoadAsZero) {
  Doc doc;
  doc.objects["load"] = "[1e-400, 2, 0]";
  EXPECT_EQ(parse_instance(doc.text(), "x.json").objects[0].load, 0.0);
}

TEST(InstanceParse, TellsOverflowFromUnderflowWhateverTheSpelling) {
  // Beyond double's range the magnitude comes from the digits and the exponent together.
  const std::string zeros(400, '0');
  Doc doc;
  doc.objects["load"] = "[0." + zeros + "1e10, 2, 0]";  // 1e-391: reads as 0
  EXPECT_EQ(parse_instance(doc.text(), "x.json").objects[0].load, 0.0);
  doc.objects["load"] = "[1" + zeros + ", 2, 0]";  // 1e400
  EXPECT_TRUE(rejected(doc.text(), "objects.load[0]: 1" + zeros + " is not finite"));
  doc.objects["load"] = "[0.001e310, 2, 0]";  // 1e307: in range
  EXPECT_EQ(parse_instance(doc.text(), "x.json").objects[0].load, 1e307);
}

TEST(InstanceParse, RejectsNaNAsNotJson) {
  Doc doc;
  doc.objects["load"] = "[1.5, NaN, 0]";
  EXPECT_TRUE(rejected(doc.text(), "x.json: not JSON: at byte offset"));
}

TEST(InstanceParse, RejectsTruncatedText) {
  const std::string text = Doc().text();
  EXPECT_TRUE(rejected(text.substr(0, text.size() - 3),
                       "x.json: not JSON: at byte offset " + std::to_string(text.size() - 3)));
}

TEST(InstanceParse, RejectsEmptyText) {
  EXPECT_TRUE(rejected("", "not JSON: at byte offset 0"));
}

TEST(InstanceParse, RejectsTextAfterTheDocument) {
  EXPECT_TRUE(rejected(Doc().text() + " {}", "not JSON"));
}

TEST(InstanceParse, RejectsATrailingCommaInAnArray) {
  Doc doc;
  doc.objects["size"] = "[8, 16, 0,]";
  EXPECT_TRUE(rejected(doc.text(), "not JSON"));
}

TEST(InstanceParse, RejectsADocumentThatIsNotAnObject) {
  EXPECT_TRUE(rejected("[1, 2]", "x.json: the document is an array; expected an object"));
}

TEST(InstanceParse, RejectsAMissingColumn) {
  Doc doc;
  doc.objects.erase("pe");
  EXPECT_TRUE(rejected(doc.text(), "x.json: missing field \"objects.pe\""));
}

TEST(InstanceParse, RejectsAMissingGroup) {
  Doc doc;
  doc.omit.insert("pes");
  EXPECT_TRUE(rejected(doc.text(), "x.json: missing field \"pes\""));
}

TEST(InstanceParse, RejectsAMissingVersion) {
  Doc doc;
  doc.top.erase("version");
  EXPECT_TRUE(rejected(doc.text(), "x.json: missing field \"version\""));
}

TEST(InstanceParse, RejectsAMissingCoordinateOfDims) {
  Doc doc;
  doc.objects.erase("y");
  EXPECT_TRUE(rejected(doc.text(), "missing field \"objects.y\""));
}

TEST(InstanceParse, RejectsACoordinateBeyondDims) {
  Doc doc;
  doc.objects["z"] = "[0, 0, 0]";
  EXPECT_TRUE(rejected(doc.text(), "field \"objects.z\" is present but dims is 2"));
}

TEST(InstanceParse, RejectsAnUnsupportedVersion) {
  Doc doc;
  doc.top["version"] = "7";
  EXPECT_TRUE(rejected(doc.text(),
                       "x.json: version 7 is not supported (this build reads versions 1 and 2)"));
  doc.top["version"] = "0";
  EXPECT_TRUE(rejected(doc.text(), "x.json: version 0 is not supported"));
}

TEST(InstanceParse, ReportsTheVersionBeforeProblemsThatComeEarlierInTheFile) {
  // A later version may add fields; a reader meeting one first must still blame the version.
  const std::string text =
      "{\"hyperedges\": {\"pins\": [1]}, \"format\": \"vela-instance\", \"version\": 3}";
  EXPECT_TRUE(
      rejected(text, "x.json: version 3 is not supported (this build reads versions 1 and 2)"));
}

TEST(InstanceParse, RejectsAnotherFormat) {
  Doc doc;
  doc.top["format"] = "\"vela-dump\"";
  EXPECT_TRUE(rejected(
      doc.text(), "format: found the string \"vela-dump\"; expected the string \"vela-instance\""));
}

TEST(InstanceParse, RejectsDimsOutOfRange) {
  Doc doc;
  doc.top["dims"] = "4";
  EXPECT_TRUE(rejected(doc.text(), "dims: 4 is not 0, 1, 2 or 3"));
}

TEST(InstanceParse, RejectsAnUnknownField) {
  Doc doc;
  doc.objects["colour"] = "[1, 2, 3]";
  EXPECT_TRUE(rejected(doc.text(), "x.json: unknown field \"objects.colour\""));
  Doc top;
  top.top["colour"] = "{}";
  EXPECT_TRUE(rejected(top.text(), "x.json: unknown field \"colour\""));
}

TEST(InstanceParse, RejectsADuplicateField) {
  Doc doc;
  doc.objects["load"] = "[1, 2, 3], \"load\": [1, 2, 3]";
  EXPECT_TRUE(rejected(doc.text(), "x.json: duplicate field \"objects.load\""));
}

TEST(InstanceParse, RejectsAStringWhereANumberIsExpected) {
  Doc doc;
  doc.objects["load"] = "[1, \"2\", 3]";
  EXPECT_TRUE(rejected(doc.text(),
                       "objects.load[1]: found the string \"2\"; expected a finite number >= 0"));
}

TEST(InstanceParse, RejectsNullAndNestedArraysAsElements) {
  Doc doc;
  doc.objects["x"] = "[0, null, 1]";
  EXPECT_TRUE(rejected(doc.text(), "objects.x[1]: found null; expected a finite number"));
  doc.objects["x"] = "[0, 1, [2]]";
  EXPECT_TRUE(rejected(doc.text(), "objects.x[2]: found an array; expected a finite number"));
}

TEST(InstanceParse, RejectsAFractionWhereAnIntegerIsExpected) {
  Doc doc;
  doc.objects["pe"] = "[0, 1.5, 1]";
  EXPECT_TRUE(rejected(doc.text(), "objects.pe[1]: 1.5 is not an integer"));
}

TEST(InstanceParse, RejectsAnIntegralFloatWhereAnIntegerIsExpected) {
  Doc doc;
  doc.objects["size"] = "[8, 16.0, 0]";
  EXPECT_TRUE(rejected(doc.text(), "objects.size[1]: 16.0 is not an integer"));
}

TEST(InstanceParse, RejectsANegativeSize) {
  Doc doc;
  doc.objects["size"] = "[8, -16, 0]";
  EXPECT_TRUE(rejected(doc.text(), "objects.size[1]: -16 is negative; expected an integer >= 0"));
}

TEST(InstanceParse, RejectsAnIdBeyond64Bits) {
  Doc doc;
  doc.objects["id"] = "[10, 99999999999999999999, 12]";
  EXPECT_TRUE(rejected(doc.text(), "objects.id[1]: 99999999999999999999 is out of range"));
}

TEST(InstanceParse, RejectsAPeThatDoesNotExist) {
  Doc doc;
  doc.objects["pe"] = "[0, 70, 1]";
  EXPECT_TRUE(rejected(doc.text(), "x.json: objects.pe[1]: PE 70 does not exist (2 PEs)"));
}

TEST(InstanceParse, RejectsANegativePe) {
  Doc doc;
  doc.objects["pe"] = "[0, -1, 1]";
  EXPECT_TRUE(rejected(doc.text(), "objects.pe[1]: -1 is negative"));
}

TEST(InstanceParse, RejectsADuplicateObjectId) {
  Doc doc;
  doc.objects["id"] = "[10, 11, 10]";
  EXPECT_TRUE(rejected(doc.text(), "x.json: objects.id[2]: duplicate object id 10"));
}

TEST(InstanceParse, RejectsAnEdgeToAnUnknownObject) {
  Doc doc;
  doc.edges["to"] = "[11, 99, 10]";
  EXPECT_TRUE(rejected(doc.text(), "x.json: edges.to[1]: unknown object id 99"));
  doc = Doc();
  doc.edges["from"] = "[10, 11, -12]";
  EXPECT_TRUE(rejected(doc.text(), "x.json: edges.from[2]: unknown object id -12"));
}

TEST(InstanceParse, RejectsColumnsOfDifferentLengths) {
  Doc doc;
  doc.objects["load"] = "[1, 2]";
  EXPECT_TRUE(rejected(doc.text(), "objects.load has 2 elements but objects.id has 3"));
  doc = Doc();
  doc.edges["bytes"] = "[1, 2, 3, 4]";
  EXPECT_TRUE(rejected(doc.text(), "edges.bytes has 4 elements but edges.from has 3"));
}

TEST(InstanceParse, RejectsANonBooleanMigratableFlag) {
  Doc doc;
  doc.objects["migratable"] = "[true, 1, false]";
  EXPECT_TRUE(
      rejected(doc.text(), "objects.migratable[1]: found the number 1; expected true or false"));
}

TEST(InstanceParse, RejectsASpeedThatIsNotPositive) {
  Doc doc;
  doc.pes["speed"] = "[1, 0]";
  EXPECT_TRUE(
      rejected(doc.text(), "pes.speed[1]: 0 is not positive; expected a finite number > 0"));
}

// Issue 15, findings 4 and 5: each number in range, but the sums the metrics take are not; λ
// came out as -nan and the communication cut wrapped.
TEST(InstanceParse, RejectsTotalsOutOfRangeNamingTheElement) {
  Doc doc;
  doc.pes["speed"] = "[1, 1e-320]";  // subnormal: a load of 1 would take 1e320 s
  EXPECT_TRUE(rejected(doc.text(),
                       "x.json: PE 1: speed 1e-320 is not a normal positive number (at least "
                       "2.2250738585072014e-308)"));
  doc = Doc();
  doc.objects["load"] = "[1e308, 1e308, 0]";
  EXPECT_TRUE(rejected(doc.text(), "x.json: objects.load[1]: the total time is not finite"));
  doc = Doc();
  doc.pes["speed"] = "[1e-300, 1]";  // normal, but 2 / 1e-300 overflows
  doc.objects["load"] = "[1e10, 1e10, 0]";
  EXPECT_TRUE(rejected(doc.text(), "objects.load[0]: the total time is not finite"));
  doc = Doc();
  doc.pes["background"] = "[1.7e308, 1.7e308]";
  EXPECT_TRUE(rejected(doc.text(), "x.json: the total time is not finite"));
  doc = Doc();
  doc.pes["speed"] = "[1.7e308, 1.7e308]";
  EXPECT_TRUE(rejected(doc.text(), "x.json: the PEs' speeds add up to more than the largest"));
  doc = Doc();
  doc.edges["bytes"] = "[9223372036854775808, 9223372036854775808, 1]";  // 2^63 twice
  EXPECT_TRUE(rejected(doc.text(),
                       "x.json: edges.bytes[1]: the edges' bytes add up to more than 2^64 - 1"));
  doc = Doc();
  doc.edges["messages"] = "[18446744073709551615, 1, 0]";
  EXPECT_TRUE(rejected(doc.text(), "edges.messages[1]: the edges' messages add up"));
  doc = Doc();
  doc.objects["size"] = "[18446744073709551615, 1, 0]";
  EXPECT_TRUE(rejected(doc.text(), "objects.size[1]: the objects' sizes add up"));
  // At the limits but within them: read.
  doc = Doc();
  doc.edges["bytes"] = "[18446744073709551614, 1, 0]";
  doc.objects["load"] = "[8e307, 8e307, 0]";
  doc.pes["speed"] = "[2.2250738585072014e-308, 1e308]";
  doc.objects["pe"] = "[1, 1, 1]";
  EXPECT_THROW(parse_instance(doc.text(), "x.json"), InstanceError)
      << "the slowest PE bounds the total, wherever the objects are";
  doc.pes["speed"] = "[1, 1e308]";
  EXPECT_EQ(parse_instance(doc.text(), "x.json").edges[0].bytes, 18446744073709551614u);
}

TEST(InstanceIo, TheWriterRefusesTotalsTheReaderRejects) {
  Instance in = random_instance(1);
  ASSERT_GE(in.objects.size(), 2u);
  for (Pe& pe : in.pes) pe = {1.0, 0.0, 0};
  for (Object& o : in.objects) o.load = 0.0;
  in.objects[0].load = 1e308;
  in.objects[1].load = 1e308;
  std::ostringstream out;
  try {
    write_instance(in, out);
    FAIL() << "no error";
  } catch (const InstanceError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "cannot write an instance whose totals are out of range: objects.load[1]"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(out.str().empty());
}

TEST(InstanceParse, RejectsANegativeBackgroundOrCluster) {
  Doc doc;
  doc.pes["background"] = "[0, -0.5]";
  EXPECT_TRUE(rejected(doc.text(), "pes.background[1]: -0.5 is negative"));
  doc = Doc();
  doc.pes["cluster"] = "[-1, 0]";
  EXPECT_TRUE(rejected(doc.text(), "pes.cluster[0]: -1 is negative"));
}

TEST(InstanceParse, RejectsAnInstanceWithoutPes) {
  Doc doc;
  doc.pes = {{"speed", "[]"}, {"background", "[]"}, {"cluster", "[]"}};
  doc.objects = {{"id", "[]"},         {"load", "[]"}, {"size", "[]"}, {"pe", "[]"},
                 {"migratable", "[]"}, {"x", "[]"},    {"y", "[]"}};
  doc.edges = {{"from", "[]"}, {"to", "[]"}, {"messages", "[]"}, {"bytes", "[]"}};
  EXPECT_TRUE(rejected(doc.text(), "x.json: pes: no PEs"));
}

TEST(InstanceParse, RejectsAColumnThatIsNotAnArray) {
  Doc doc;
  doc.objects["load"] = "5";
  EXPECT_TRUE(rejected(doc.text(), "objects.load: found the number 5; expected an array"));
}

TEST(InstanceParse, RejectsAGroupThatIsNotAnObject) {
  Doc doc;
  doc.top["edges"] = "[]";
  EXPECT_TRUE(rejected(doc.text(), "edges: found an array; expected an object of columns"));
}

}  // namespace
}  // namespace vela::lb
