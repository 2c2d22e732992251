// Specification of version 2 of the instance format (docs/instance-format.md): the optional
// "hyperedges" group, which version the writer picks, and every malformed hyperedge rejected
// with a message naming the file, the element and the problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "vela/lb/io/io.hpp"

namespace vela::lb {
namespace {

// Objects with shuffled ids, edges, and hyperedges of 2 to 6 distinct pins in any order.
Instance instance_with_hyperedges(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Instance in;
  in.dims = 1;
  in.pes.resize(1 + rng() % 4);
  const std::size_t n = 2 + rng() % 40;
  std::vector<ObjectId> ids(n);
  std::iota(ids.begin(), ids.end(), -5);
  std::shuffle(ids.begin(), ids.end(), rng);
  for (std::size_t i = 0; i < n; ++i) {
    in.objects.push_back({.id = ids[i],
                          .load = static_cast<double>(rng() % 100) / 7.0,
                          .size = rng() % 1000,
                          .coords = {static_cast<double>(i), 0, 0},
                          .pe = static_cast<PeId>(rng() % in.pes.size())});
  }
  in.edges.push_back({0, 1, 1, 64});
  const std::size_t m = 1 + rng() % 30;
  for (std::size_t h = 0; h < m; ++h) {
    std::vector<std::uint32_t> all(n);
    std::iota(all.begin(), all.end(), 0U);
    std::shuffle(all.begin(), all.end(), rng);
    all.resize(std::min<std::size_t>(n, 2 + rng() % 5));
    // Below 2^57: at most 30 hyperedges spanning at most 4 PEs keep the largest hypergraph cut
    // within 64 bits, as a reader requires (docs/instance-format.md, "Totals").
    in.hyperedges.push_back({all, rng() >> (7 + rng() % 57)});
  }
  return in;
}

std::string written(const Instance& instance) {
  std::ostringstream out;
  write_instance(instance, out);
  return out.str();
}

TEST(HyperedgeIo, RandomHyperedgesRoundTrip) {
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Instance original = instance_with_hyperedges(seed);
    const Instance read = parse_instance(written(original), "h.json");
    EXPECT_EQ(read.hyperedges, original.hyperedges);  // pins as positions, in file order
    ASSERT_EQ(read.objects.size(), original.objects.size());
    EXPECT_EQ(read.objects.back().id, original.objects.back().id);
    EXPECT_EQ(read.edges.size(), 1u);
  }
}

TEST(HyperedgeIo, TheWriterPicksVersion1WithoutHyperedgesAnd2WithThem) {
  Instance in = instance_with_hyperedges(3);
  const std::string v2 = written(in);
  EXPECT_EQ(format_version_for(in), 2);
  EXPECT_NE(v2.find("\"version\": 2,"), std::string::npos) << v2;
  EXPECT_NE(v2.find("\"hyperedges\": {"), std::string::npos) << v2;
  in.hyperedges.clear();
  const std::string v1 = written(in);
  EXPECT_EQ(format_version_for(in), 1);
  EXPECT_NE(v1.find("\"version\": 1,"), std::string::npos) << v1;
  EXPECT_EQ(v1.find("hyperedges"), std::string::npos) << v1;
  // Apart from the version, version 2 only appends the hyperedge group to what version 1 writes.
  std::string expected = v1.substr(0, v1.size() - std::string("  }\n}\n").size());
  expected.replace(expected.find("\"version\": 1"), 12, "\"version\": 2");
  EXPECT_EQ(v2.substr(0, v2.find("  },\n  \"hyperedges\"")), expected);
}

TEST(HyperedgeIo, PinsAreWrittenAsObjectIds) {
  Instance in;
  in.pes.resize(1);
  in.objects = {{.id = 40}, {.id = 7}, {.id = -3}};
  in.hyperedges = {{{2, 0, 1}, 96}};
  const std::string text = written(in);
  EXPECT_NE(text.find("\"pins\": [[-3,40,7]],\n    \"bytes\": [96]\n"), std::string::npos) << text;
}

// A small version-2 file; `hyperedges` is the group's text, left out when empty.
std::string document(const std::string& hyperedges, const std::string& version = "2") {
  std::string text =
      "{\"format\": \"vela-instance\", \"version\": " + version +
      ", \"dims\": 0,\n"
      " \"pes\": {\"speed\": [1, 1], \"background\": [0, 0], \"cluster\": [0, 0]},\n"
      " \"objects\": {\"id\": [10, 11, 12, 13], \"load\": [1, 2, 3, 4], \"size\": [0, 0, 0, 0],"
      " \"pe\": [0, 0, 1, 1], \"migratable\": [true, true, true, false]},\n"
      " \"edges\": {\"from\": [], \"to\": [], \"messages\": [], \"bytes\": []}";
  if (!hyperedges.empty()) text += ",\n \"hyperedges\": " + hyperedges;
  return text + "}";
}

std::string group(const std::string& pins, const std::string& bytes) {
  return "{\"pins\": " + pins + ", \"bytes\": " + bytes + "}";
}

TEST(HyperedgeParse, ReadsHyperedgesAndMapsIdsToPositions) {
  const Instance in =
      parse_instance(document(group("[[13, 10], [11, 12, 10]]", "[64, 0]")), "h.json");
  ASSERT_EQ(in.hyperedges.size(), 2u);
  EXPECT_EQ(in.hyperedges[0].pins, (std::vector<std::uint32_t>{3, 0}));
  EXPECT_EQ(in.hyperedges[0].bytes, 64u);
  EXPECT_EQ(in.hyperedges[1].pins, (std::vector<std::uint32_t>{1, 2, 0}));
  EXPECT_EQ(in.hyperedges[1].bytes, 0u);
}

TEST(HyperedgeParse, HyperedgesAreOptionalInVersion2AndMayBeEmpty) {
  EXPECT_TRUE(parse_instance(document(""), "h.json").hyperedges.empty());
  EXPECT_TRUE(parse_instance(document(group("[]", "[]")), "h.json").hyperedges.empty());
  // Whitespace anywhere, columns in any order.
  const Instance in =
      parse_instance(document("{ \"bytes\" : [ 5 ] ,\n\"pins\":[ [ 12 ,13 ] ] }"), "h.json");
  ASSERT_EQ(in.hyperedges.size(), 1u);
  EXPECT_EQ(in.hyperedges[0].pins, (std::vector<std::uint32_t>{2, 3}));
}

TEST(HyperedgeParse, Version1FilesAreStillRead) {
  const Instance in = parse_instance(document("", "1"), "old.json");
  EXPECT_EQ(in.objects.size(), 4u);
  EXPECT_TRUE(in.hyperedges.empty());
}

// The message must start with the source name and contain `expected`.
::testing::AssertionResult rejected(const std::string& text, const std::string& expected) {
  try {
    parse_instance(text, "h.json");
  } catch (const InstanceError& e) {
    const std::string message = e.what();
    if (message.rfind("h.json: ", 0) != 0) {
      return ::testing::AssertionFailure() << "message does not start with the source: " << message;
    }
    if (message.find(expected) == std::string::npos) {
      return ::testing::AssertionFailure() << "message lacks \"" << expected << "\": " << message;
    }
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "accepted; expected an error with \"" << expected << "\"";
}

TEST(HyperedgeParse, RejectsHyperedgesInAVersion1File) {
  const std::string needs = "h.json: field \"hyperedges\" needs version 2 (this file is version 1)";
  EXPECT_TRUE(rejected(document(group("[[10, 11]]", "[1]"), "1"), needs));
  // The same when "version" comes after the group.
  const std::string late =
      "{\"hyperedges\": {\"pins\": [[10, 11]], \"bytes\": [1]}, " + document("", "1").substr(1);
  EXPECT_TRUE(rejected(late, needs));
}

TEST(HyperedgeParse, RejectsAHyperedgeWithFewerThanTwoPins) {
  EXPECT_TRUE(rejected(document(group("[[10, 11], [12]]", "[1, 2]")),
                       "h.json: hyperedges.pins[1]: 1 pin; a hyperedge needs at least 2"));
  EXPECT_TRUE(rejected(document(group("[[]]", "[1]")),
                       "h.json: hyperedges.pins[0]: 0 pins; a hyperedge needs at least 2"));
}

TEST(HyperedgeParse, RejectsPinsThatAreNotAnArrayOfIds) {
  EXPECT_TRUE(rejected(document(group("[[10, 11], 12]", "[1, 2]")),
                       "hyperedges.pins[1]: found the number 12; expected an array of at least 2 "
                       "object ids"));
  EXPECT_TRUE(rejected(document(group("[[10, 1.5]]", "[1]")),
                       "hyperedges.pins[0][1]: 1.5 is not an integer; expected an integer object "
                       "id"));
  EXPECT_TRUE(rejected(document(group("[[10, 11], [\"12\", 13]]", "[1, 2]")),
                       "hyperedges.pins[1][0]: found the string \"12\"; expected an integer "
                       "object id"));
  EXPECT_TRUE(rejected(document(group("5", "[1]")),
                       "hyperedges.pins: found the number 5; expected an array"));
}

TEST(HyperedgeParse, RejectsAPinThatIsNotAnObject) {
  EXPECT_TRUE(rejected(document(group("[[10, 11], [12, 99]]", "[1, 2]")),
                       "h.json: hyperedges.pins[1][1]: unknown object id 99"));
}

TEST(HyperedgeParse, RejectsAnObjectTwiceInOneHyperedge) {
  EXPECT_TRUE(rejected(document(group("[[10, 11, 10]]", "[1]")),
                       "h.json: hyperedges.pins[0][2]: object id 10 appears twice in the "
                       "hyperedge"));
  // The same object in two hyperedges is fine.
  EXPECT_NO_THROW(parse_instance(document(group("[[10, 11], [11, 10]]", "[1, 2]")), "h.json"));
}

// Issue 15, finding 5: the hypergraph cut, Σ bytes × (PEs spanned − 1), must fit in 64 bits
// under any placement; the document has 2 PEs, so a hyperedge spans at most 2.
TEST(HyperedgeParse, RejectsBytesWhoseLargestCutExceeds64Bits) {
  const std::string half = std::to_string(std::uint64_t{1} << 63);
  EXPECT_TRUE(rejected(document(group("[[10, 11, 12], [12, 13]]", "[" + half + ", " + half + "]")),
                       "h.json: hyperedges.bytes[1]: the hyperedges' bytes times (PEs spanned - "
                       "1) add up to more than 2^64 - 1"));
  // Three pins on 2 PEs span at most 2: 2^64 - 1 bytes once is the largest cut that fits.
  EXPECT_NO_THROW(
      parse_instance(document(group("[[10, 11, 12]]", "[18446744073709551615]")), "h.json"));
}

TEST(HyperedgeParse, RejectsBadBytes) {
  EXPECT_TRUE(rejected(document(group("[[10, 11], [12, 13]]", "[1, -5]")),
                       "h.json: hyperedges.bytes[1]: -5 is negative; expected an integer >= 0"));
  EXPECT_TRUE(rejected(document(group("[[10, 11]]", "[2.5]")),
                       "hyperedges.bytes[0]: 2.5 is not an integer"));
}

TEST(HyperedgeParse, RejectsColumnsOfDifferentLengths) {
  EXPECT_TRUE(rejected(document(group("[[10, 11], [12, 13]]", "[1]")),
                       "h.json: hyperedges.bytes has 1 elements but hyperedges.pins has 2"));
}

TEST(HyperedgeParse, RejectsAMissingUnknownOrRepeatedField) {
  EXPECT_TRUE(
      rejected(document("{\"pins\": [[10, 11]]}"), "h.json: missing field \"hyperedges.bytes\""));
  EXPECT_TRUE(rejected(document("{\"bytes\": [1]}"), "h.json: missing field \"hyperedges.pins\""));
  EXPECT_TRUE(rejected(document("{\"pins\": [[10, 11]], \"bytes\": [1], \"weight\": [1]}"),
                       "h.json: unknown field \"hyperedges.weight\""));
  EXPECT_TRUE(rejected(document("{\"pins\": [], \"pins\": [], \"bytes\": []}"),
                       "h.json: duplicate field \"hyperedges.pins\""));
  const std::string twice = document(group("[]", "[]"));
  EXPECT_TRUE(rejected(twice.substr(0, twice.size() - 1) + ", \"hyperedges\": {}}",
                       "h.json: duplicate field \"hyperedges\""));
}

TEST(HyperedgeParse, RejectsAGroupThatIsNotAnObject) {
  EXPECT_TRUE(rejected(document("[[10, 11]]"),
                       "h.json: hyperedges: found an array; expected an object of columns"));
}

TEST(HyperedgeParse, RejectsBrokenJsonInsideThePins) {
  EXPECT_TRUE(rejected(document(group("[[10 11]]", "[1]")), "h.json: not JSON: at byte offset"));
  EXPECT_TRUE(rejected(document(group("[[10 11]]", "[1]")),
                       "expected ',' or ']' after hyperedges.pins[0][0], found '1'"));
  // An unclosed list runs into the next field.
  EXPECT_TRUE(rejected(document(group("[[10, 11]", "[1]")),
                       "h.json: hyperedges.pins[1]: found the string \"bytes\""));
}

TEST(HyperedgeParse, RejectsAnUnsupportedVersionEvenWithHyperedgesFirst) {
  const std::string text = "{\"hyperedges\": {\"pins\": [[1]]}, " + document("", "3").substr(1);
  EXPECT_TRUE(rejected(text,
                       "h.json: version 3 is not supported (this build reads versions 1 "
                       "and 2)"));
}

TEST(HyperedgeIo, AnInstanceWithABrokenHyperedgeIsNotWritten) {
  Instance in = instance_with_hyperedges(1);
  in.hyperedges[0].pins = {0};
  std::ostringstream out;
  try {
    write_instance(in, out);
    FAIL() << "no error";
  } catch (const InstanceError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write an invalid instance: hyperedge 0: 1 pin;"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace vela::lb
