// pup: every supported type round-trips, sizing agrees with packing, the format is what the
// header documents, and a truncated or corrupt buffer throws PupError instead of misbehaving.
#include "vela/pup/pup.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

// User types live outside namespace vela, as an application's would.
namespace app {
namespace {

enum class Color : std::uint8_t { red, green, blue };
enum Plain { plain_low = 1, plain_high = 1000 };

// Member pup.
struct Particle {
  std::string name;
  std::vector<double> position;
  std::optional<int> charge;

  void pup(vela::pup::Archive& ar) { ar | name | position | charge; }
  friend bool operator==(const Particle&, const Particle&) = default;
};

// Free pup, found by ADL; nests Particle inside containers.
struct Cell {
  std::int64_t id = 0;
  std::vector<Particle> particles;
  std::map<std::string, std::vector<int>> neighbours;
  std::unique_ptr<Particle> probe;
  std::array<Color, 3> palette{};
  std::deque<std::pair<int, std::string>> log;
  bool active = false;
};

void pup(vela::pup::Archive& ar, Cell& cell) {
  ar | cell.id | cell.particles | cell.neighbours | cell.probe | cell.palette | cell.log |
      cell.active;
}

bool operator==(const Cell& a, const Cell& b) {
  const bool same_probe = a.probe && b.probe ? *a.probe == *b.probe : !a.probe && !b.probe;
  return a.id == b.id && a.particles == b.particles && a.neighbours == b.neighbours && same_probe &&
         a.palette == b.palette && a.log == b.log && a.active == b.active;
}

// Trivially copyable but with a pup that puts only one field: containers must call the pup.
struct Tagged {
  std::int32_t tag = 0;
  std::int32_t scratch = 0;  // not part of the packed state
  void pup(vela::pup::Archive& ar) { ar | tag; }
};

// Opted into raw-byte copying; needs no pup.
struct Pod {
  std::int32_t a = 0;
  float b = 0;
  friend bool operator==(const Pod&, const Pod&) = default;
};

// Sizes one field more than it packs: breaks the contract.
struct Inconsistent {
  std::int32_t x = 0;
  void pup(vela::pup::Archive& ar) {
    ar | x;
    if (ar.sizing()) ar | x;
  }
};

// Packs one field more than it sizes.
struct Overflowing {
  std::int32_t x = 0;
  void pup(vela::pup::Archive& ar) {
    ar | x;
    if (ar.packing()) ar | x;
  }
};

struct ModeProbe {
  std::int32_t x = 0;
  std::vector<vela::pup::Mode>* seen = nullptr;
  void pup(vela::pup::Archive& ar) {
    seen->push_back(ar.mode());
    EXPECT_EQ(ar.sizing(), ar.mode() == vela::pup::Mode::sizing);
    EXPECT_EQ(ar.packing(), ar.mode() == vela::pup::Mode::packing);
    EXPECT_EQ(ar.unpacking(), ar.mode() == vela::pup::Mode::unpacking);
    ar | x;
  }
};

Particle particle(std::string name, double x, std::optional<int> charge) {
  return Particle{std::move(name), {x, x + 1, x + 2}, charge};
}

Cell sample_cell() {
  Cell cell;
  cell.id = -42;
  cell.particles = {particle("p0", 0.5, 1), particle("", -2, std::nullopt), particle("p2", 9, -3)};
  cell.neighbours = {{"east", {1, 2, 3}}, {"west", {}}, {"", {7}}};
  cell.probe = std::make_unique<Particle>(particle("probe", 4, 0));
  cell.palette = {Color::blue, Color::red, Color::green};
  cell.log = {{1, "start"}, {2, ""}};
  cell.active = true;
  return cell;
}

}  // namespace
}  // namespace app

template <>
struct vela::pup::bitwise<app::Pod> : std::true_type {};

namespace vela::pup {
namespace {

using app::Cell;
using app::Color;
using app::Particle;
using app::particle;
using app::sample_cell;
using Bytes = std::vector<std::byte>;

// Packs `value` with pack(), with an appending Packer and with a Sizer, expects all three to
// agree, and returns what unpacking the bytes gives.
template <class T>
T round_trip(const T& value) {
  const Bytes bytes = pack(value);
  EXPECT_EQ(packed_size(value), bytes.size());

  Bytes appended{std::byte{0xAB}};
  Packer packer(appended);
  packer | const_cast<T&>(value);
  EXPECT_EQ(packer.size(), bytes.size());
  EXPECT_EQ(Bytes(appended.begin() + 1, appended.end()), bytes);

  T result{};
  unpack(bytes, result);
  return result;
}

template <class T>
Bytes raw(const T& value) {
  Bytes bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

// The message unpacking `bytes` into a T throws, or "" when it succeeds.
template <class T>
std::string unpack_error(const Bytes& bytes) {
  T value{};
  try {
    unpack(bytes, value);
  } catch (const PupError& e) {
    return e.what();
  }
  return "";
}

TEST(RoundTrip, Arithmetic) {
  EXPECT_EQ(round_trip(std::int8_t{-5}), -5);
  EXPECT_EQ(round_trip(std::uint16_t{65535}), 65535);
  EXPECT_EQ(round_trip(std::int32_t{-123456}), -123456);
  EXPECT_EQ(round_trip(std::numeric_limits<std::int64_t>::min()),
            std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(round_trip(std::numeric_limits<std::uint64_t>::max()),
            std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(round_trip('z'), 'z');
  EXPECT_EQ(round_trip(2.5f), 2.5f);
  EXPECT_EQ(round_trip(-1e300), -1e300);
  EXPECT_EQ(round_trip(true), true);
  EXPECT_EQ(round_trip(false), false);
}

TEST(RoundTrip, FloatingPointSpecialsKeepTheirBits) {
  for (double x :
       {std::numeric_limits<double>::quiet_NaN(), -0.0, std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::denorm_min()}) {
    EXPECT_EQ(raw(round_trip(x)), raw(x));
  }
}

TEST(RoundTrip, Enums) {
  EXPECT_EQ(round_trip(Color::blue), Color::blue);
  EXPECT_EQ(round_trip(app::plain_high), app::plain_high);
  EXPECT_EQ(round_trip(std::byte{0xF0}), std::byte{0xF0});
}

TEST(RoundTrip, Strings) {
  EXPECT_EQ(round_trip(std::string()), "");
  EXPECT_EQ(round_trip(std::string("hello")), "hello");
  const std::string with_nuls("a\0b\0", 4);
  EXPECT_EQ(round_trip(with_nuls), with_nuls);
  EXPECT_EQ(round_trip(std::string(10000, 'x')), std::string(10000, 'x'));
  EXPECT_EQ(round_trip(std::u16string(u"wide")), u"wide");
}

TEST(RoundTrip, Vectors) {
  EXPECT_EQ(round_trip(std::vector<int>{}), std::vector<int>{});
  EXPECT_EQ(round_trip(std::vector<int>{3, -1, 4}), (std::vector<int>{3, -1, 4}));
  EXPECT_EQ(round_trip(std::vector<Color>{Color::green, Color::red}),
            (std::vector<Color>{Color::green, Color::red}));
  const std::vector<std::string> words{"a", "", "longer word"};
  EXPECT_EQ(round_trip(words), words);
  const std::vector<std::vector<int>> nested{{}, {1}, {2, 3}};
  EXPECT_EQ(round_trip(nested), nested);
  const std::vector<std::array<double, 3>> coords{{1, 2, 3}, {4, 5, 6}};
  EXPECT_EQ(round_trip(coords), coords);
  const std::vector<app::Pod> pods{{1, 1.5f}, {-2, 0.25f}};
  EXPECT_EQ(round_trip(pods), pods);
}

TEST(RoundTrip, VectorOfBoolAtEveryLengthAroundAByte) {
  for (std::size_t n : {0, 1, 7, 8, 9, 16, 100}) {
    std::vector<bool> bits(n);
    for (std::size_t i = 0; i < n; ++i) bits[i] = (i * 7 + n) % 3 == 0;
    EXPECT_EQ(round_trip(bits), bits) << n << " bits";
  }
}

TEST(RoundTrip, FixedSizeArrays) {
  const std::array<int, 4> ints{1, 2, 3, 4};
  EXPECT_EQ(round_trip(ints), ints);
  const std::array<std::string, 2> texts{"x", "yz"};
  EXPECT_EQ(round_trip(texts), texts);
  const std::array<std::array<double, 2>, 2> grid{{{1, 2}, {3, 4}}};
  EXPECT_EQ(round_trip(grid), grid);
  EXPECT_EQ(round_trip(std::array<std::string, 0>{}), (std::array<std::string, 0>{}));

  const int c_ints[3] = {7, 8, 9};
  int c_ints_out[3] = {};
  unpack(pack(c_ints), c_ints_out);
  EXPECT_EQ(std::memcmp(c_ints, c_ints_out, sizeof c_ints), 0);

  const std::string c_texts[2] = {"one", "two"};
  std::string c_texts_out[2];
  unpack(pack(c_texts), c_texts_out);
  EXPECT_EQ(c_texts_out[0], "one");
  EXPECT_EQ(c_texts_out[1], "two");
}

TEST(RoundTrip, PairsAndTuples) {
  const std::pair<std::string, std::vector<int>> pair{"k", {1, 2}};
  EXPECT_EQ(round_trip(pair), pair);
  const std::tuple<int, std::string, std::vector<double>, bool> tuple{5, "t", {0.5}, true};
  EXPECT_EQ(round_trip(tuple), tuple);
  EXPECT_EQ(round_trip(std::tuple<>{}), std::tuple<>{});
}

TEST(RoundTrip, AssociativeContainers) {
  const std::map<std::string, std::vector<int>> map_of_vectors{{"a", {1, 2}}, {"b", {}}};
  EXPECT_EQ(round_trip(map_of_vectors), map_of_vectors);
  EXPECT_EQ(round_trip(std::map<int, int>{}), (std::map<int, int>{}));
  const std::unordered_map<int, std::string> by_id{{1, "one"}, {2, "two"}, {30, ""}};
  EXPECT_EQ(round_trip(by_id), by_id);
  const std::set<std::pair<int, std::string>> pairs{{1, "b"}, {1, "a"}, {0, "z"}};
  EXPECT_EQ(round_trip(pairs), pairs);
  const std::unordered_set<std::string> names{"x", "y", ""};
  EXPECT_EQ(round_trip(names), names);
  const std::unordered_map<std::string, std::optional<std::vector<int>>> sparse{
      {"some", std::vector<int>{1}}, {"none", std::nullopt}};
  EXPECT_EQ(round_trip(sparse), sparse);
}

TEST(RoundTrip, OptionalAndUniquePtr) {
  EXPECT_EQ(round_trip(std::optional<std::string>{}), std::nullopt);
  EXPECT_EQ(round_trip(std::optional<std::string>{"v"}), "v");
  EXPECT_EQ(round_trip(std::unique_ptr<Particle>{}), nullptr);
  const auto owned = std::make_unique<Particle>(particle("owned", 1, 2));
  const std::unique_ptr<Particle> back = round_trip(owned);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(*back, *owned);
}

TEST(RoundTrip, Deque) {
  const std::deque<std::string> deque{"front", "", "back"};
  EXPECT_EQ(round_trip(deque), deque);
  EXPECT_EQ(round_trip(std::deque<int>{}), std::deque<int>{});
}

TEST(RoundTrip, NestedUserTypesWithMemberAndFreePup) {
  const Cell cell = sample_cell();
  EXPECT_EQ(round_trip(cell), cell);
  EXPECT_EQ(round_trip(Cell{}), Cell{});
  const std::vector<Cell> cells = [] {
    std::vector<Cell> v;
    v.push_back(sample_cell());
    v.push_back(Cell{});
    return v;
  }();
  const std::vector<Cell> back = round_trip(cells);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0], cells[0]);
  EXPECT_EQ(back[1], cells[1]);
  const std::map<int, std::vector<Particle>> groups{{1, {particle("a", 1, 1)}}, {2, {}}};
  EXPECT_EQ(round_trip(groups), groups);
}

TEST(Unpack, ReplacesWhatTheTargetHeld) {
  std::vector<std::string> words{"old", "old", "old"};
  unpack(pack(std::vector<std::string>{"new"}), words);
  EXPECT_EQ(words, std::vector<std::string>{"new"});

  std::vector<int> ints{1, 2, 3, 4};
  unpack(pack(std::vector<int>{9}), ints);
  EXPECT_EQ(ints, std::vector<int>{9});

  std::map<int, int> map{{5, 5}, {6, 6}};
  unpack(pack(std::map<int, int>{{1, 1}}), map);
  EXPECT_EQ(map, (std::map<int, int>{{1, 1}}));

  std::optional<int> engaged = 3;
  unpack(pack(std::optional<int>{}), engaged);
  EXPECT_EQ(engaged, std::nullopt);

  auto pointer = std::make_unique<Particle>();
  unpack(pack(std::unique_ptr<Particle>{}), pointer);
  EXPECT_EQ(pointer, nullptr);

  std::vector<bool> bits{true, true, true};
  unpack(pack(std::vector<bool>{false}), bits);
  EXPECT_EQ(bits, std::vector<bool>{false});
}

TEST(Format, ValuesAreRawBytesInHostOrder) {
  const std::uint32_t word = 0x01020304;
  EXPECT_EQ(pack(word), raw(word));
  EXPECT_EQ(pack(-0.75), raw(-0.75));
  EXPECT_EQ(pack(true), Bytes{std::byte{1}});
  EXPECT_EQ(pack(false), Bytes{std::byte{0}});
  EXPECT_EQ(pack(Color::blue), Bytes{std::byte{2}});
}

TEST(Format, ContainersAreA64BitCountThenTheirElements) {
  EXPECT_EQ(pack(std::string("abc")),
            concat({raw(std::uint64_t{3}), {std::byte{'a'}, std::byte{'b'}, std::byte{'c'}}}));
  EXPECT_EQ(pack(std::vector<std::int16_t>{1, 2}),
            concat({raw(std::uint64_t{2}), raw(std::int16_t{1}), raw(std::int16_t{2})}));
  EXPECT_EQ(pack(std::map<std::int8_t, bool>{{4, true}}),
            concat({raw(std::uint64_t{1}), {std::byte{4}, std::byte{1}}}));
  // Bits are packed eight to a byte, the first element in the lowest bit.
  EXPECT_EQ(pack(std::vector<bool>{true, false, true, true, false, false, false, false, true}),
            concat({raw(std::uint64_t{9}), {std::byte{0x0D}, std::byte{0x01}}}));
  EXPECT_EQ(packed_size(std::optional<std::int32_t>{}), 1u);
  EXPECT_EQ(packed_size(std::optional<std::int32_t>{1}), 5u);
  EXPECT_EQ(packed_size(std::tuple<std::int8_t, std::int64_t>{}), 9u);  // no padding
  EXPECT_EQ(packed_size(std::array<std::int16_t, 3>{}), 6u);            // no count
}

TEST(Format, MillionDoublesAreOneCountAndTheirBytes) {
  std::vector<double> values(1'000'000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.5 * static_cast<double>(i);
  const Bytes bytes = pack(values);
  ASSERT_EQ(bytes.size(), 8'000'000u + 8u);
  EXPECT_EQ(std::memcmp(bytes.data() + 8, values.data(), 8'000'000), 0);
  EXPECT_EQ(round_trip(values), values);
}

TEST(Format, TriviallyCopyableTypesWithAPupUseTheirPupInContainers) {
  const std::vector<app::Tagged> tagged{{1, 100}, {2, 200}, {3, 300}};
  EXPECT_EQ(packed_size(tagged), 8u + 3 * 4);
  const std::vector<app::Tagged> back = round_trip(tagged);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[2].tag, 3);
  EXPECT_EQ(back[2].scratch, 0);

  EXPECT_EQ(packed_size(app::Pod{}), sizeof(app::Pod));
  EXPECT_EQ(packed_size(std::vector<app::Pod>(3)), 8u + 3 * sizeof(app::Pod));
}

TEST(Archive, ReportsItsModeToPup) {
  std::vector<Mode> seen;
  app::ModeProbe probe{7, &seen};
  const Bytes bytes = pack(probe);
  app::ModeProbe back{0, &seen};
  unpack(bytes, back);
  EXPECT_EQ(back.x, 7);
  EXPECT_EQ(seen, (std::vector<Mode>{Mode::sizing, Mode::packing, Mode::unpacking}));
}

TEST(Archive, AppendingPackerKeepsTheVectorExact) {
  Bytes out{std::byte{1}, std::byte{2}};
  Packer packer(out);
  std::int32_t value = 5;
  packer | value;
  EXPECT_EQ(out.size(), 2u + 4);
  std::string text = "abc";
  packer | text;
  EXPECT_EQ(out.size(), 2u + 4 + 11);
  EXPECT_EQ(packer.size(), 15u);
  EXPECT_EQ(out[0], std::byte{1});
  EXPECT_EQ(Bytes(out.begin() + 2, out.end()), concat({pack(value), pack(text)}));
}

TEST(Archive, FixedBufferPackerThrowsWhenFull) {
  std::array<std::byte, 6> buffer{};
  Packer packer{std::span<std::byte>(buffer)};
  std::int32_t fits = 1;
  packer | fits;
  std::int32_t does_not_fit = 2;
  try {
    packer | does_not_fit;
    FAIL() << "packing past the end did not throw";
  } catch (const PupError& e) {
    EXPECT_STREQ(e.what(), "pack: needs 4 more bytes at offset 4 of 6");
  }
}

TEST(Archive, UnpackerTellsWhatRemains) {
  Bytes bytes;
  pack_values(bytes, std::int32_t{1}, std::string("rest"));
  Unpacker unpacker(bytes);
  std::int32_t first = 0;
  unpacker | first;
  EXPECT_EQ(first, 1);
  EXPECT_EQ(unpacker.offset(), 4u);
  EXPECT_EQ(unpacker.remaining(), 12u);
  EXPECT_THROW(unpacker.expect_end(), PupError);
  std::string second;
  unpacker | second;
  EXPECT_EQ(second, "rest");
  EXPECT_EQ(unpacker.remaining(), 0u);
  EXPECT_NO_THROW(unpacker.expect_end());
}

TEST(PackValues, AppendsArgumentsThatUnpackValuesReadsBack) {
  Bytes message{std::byte{0xEE}};  // a header already in the buffer
  const std::vector<double> weights{0.25, 0.75};
  pack_values(message, std::int32_t{7}, std::string("name"), weights,
              std::tuple<bool, Color>{true, Color::green});
  EXPECT_EQ(message.size(), 1u + 4 + 12 + 24 + 2);
  EXPECT_EQ(message[0], std::byte{0xEE});

  Unpacker unpacker(std::span<const std::byte>(message).subspan(1));
  std::int32_t id = 0;
  std::string name;
  std::vector<double> weights_back;
  std::tuple<bool, Color> flags{};
  unpack_values(unpacker, id, name, weights_back, flags);
  EXPECT_EQ(id, 7);
  EXPECT_EQ(name, "name");
  EXPECT_EQ(weights_back, weights);
  EXPECT_EQ(flags, (std::tuple<bool, Color>{true, Color::green}));
  EXPECT_EQ(unpacker.remaining(), 0u);
}

TEST(PackValues, RejectsAPupThatSizesAndPacksDifferentlyAndLeavesTheBufferAlone) {
  Bytes out{std::byte{9}};
  EXPECT_THROW(pack_values(out, app::Inconsistent{}), PupError);
  EXPECT_EQ(out, Bytes{std::byte{9}});
  EXPECT_THROW(pack_values(out, app::Overflowing{}), PupError);
  EXPECT_EQ(out, Bytes{std::byte{9}});
  EXPECT_THROW(pack(app::Inconsistent{}), PupError);
}

TEST(Unpack, TrailingBytesAreAFormatMismatch) {
  EXPECT_EQ(unpack_error<std::int32_t>(pack(std::int64_t{1})),
            "unpack: 4 bytes left unread (the buffer holds more than the object: a format "
            "mismatch) at offset 4 of 8");
  EXPECT_NE(unpack_error<std::string>(pack(std::vector<std::string>{"a", "b"})), "");
}

TEST(Unpack, ShortBufferNamesWhatIsMissing) {
  EXPECT_EQ(unpack_error<std::int32_t>(Bytes(2)), "unpack: needs 4 more bytes at offset 0 of 2");
  EXPECT_EQ(unpack_error<std::vector<std::int32_t>>(Bytes(7)),
            "unpack: needs 8 more bytes at offset 0 of 7");
}

TEST(Unpack, EveryTruncationOfAComplexObjectThrows) {
  const Bytes bytes = pack(sample_cell());
  ASSERT_GT(bytes.size(), 100u);
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    // An exactly sized copy, so a read past its end would be caught by AddressSanitizer.
    const Bytes prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length));
    const std::string error = unpack_error<Cell>(prefix);
    EXPECT_EQ(error.rfind("unpack: ", 0), 0u) << "prefix of " << length << " bytes: " << error;
  }
}

TEST(Unpack, CorruptBytesThrowPupErrorOrUnpackSomething) {
  const Bytes bytes = pack(sample_cell());
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    for (std::byte value : {std::byte{0x00}, std::byte{0x02}, std::byte{0x7F}, std::byte{0xFF}}) {
      Bytes corrupt = bytes;
      corrupt[at] = value;
      Cell cell;
      try {
        unpack(corrupt, cell);
      } catch (const PupError&) {
        // expected for most corruptions; anything else (bad_alloc, a crash) is a defect
      }
    }
  }
}

TEST(Unpack, AbsurdLengthsThrowBeforeAllocating) {
  const Bytes huge = raw(std::uint64_t{1} << 61);
  const Bytes eight(8);
  EXPECT_EQ(unpack_error<std::vector<double>>(concat({huge, eight})),
            "unpack: length 2305843009213693952 of 8-byte elements exceeds the 8 bytes left at "
            "offset 0 of 16");
  EXPECT_NE(unpack_error<std::string>(concat({huge, eight})), "");
  EXPECT_NE(unpack_error<std::vector<bool>>(concat({huge, eight})), "");
  // Element-wise containers run out of buffer instead of reserving the claimed count.
  EXPECT_NE(unpack_error<std::vector<std::string>>(concat({huge, eight})), "");
  EXPECT_NE(unpack_error<std::deque<Particle>>(concat({huge, eight})), "");
  EXPECT_NE((unpack_error<std::map<int, int>>(concat({huge, eight}))), "");
  EXPECT_NE((unpack_error<std::unordered_map<int, std::string>>(concat({huge, eight}))), "");
  EXPECT_NE(unpack_error<std::unordered_set<std::int64_t>>(concat({huge, eight})), "");
  const Bytes max = raw(std::numeric_limits<std::uint64_t>::max());
  EXPECT_NE(unpack_error<std::vector<char>>(concat({max, eight})), "");
  EXPECT_NE(unpack_error<std::vector<std::vector<int>>>(concat({max, eight})), "");
}

TEST(Unpack, RejectsBytesThatAreNotABool) {
  EXPECT_EQ(unpack_error<bool>(Bytes{std::byte{2}}),
            "unpack: byte 2 is not a bool at offset 0 of 1");
  EXPECT_NE(unpack_error<std::optional<int>>(concat({{std::byte{0xFF}}, raw(1)})), "");
}

TEST(Unpack, RejectsDuplicateKeys) {
  // A vector of pairs and a map share a format, so a vector can spell a map with a repeated key.
  EXPECT_EQ(
      (unpack_error<std::map<int, int>>(pack(std::vector<std::pair<int, int>>{{1, 2}, {1, 3}}))),
      "unpack: duplicate map key at offset 16 of 24");
  EXPECT_NE(unpack_error<std::set<int>>(pack(std::vector<int>{5, 5})), "");
  EXPECT_NE(unpack_error<std::unordered_set<int>>(pack(std::vector<int>{5, 5})), "");
}

}  // namespace
}  // namespace vela::pup
