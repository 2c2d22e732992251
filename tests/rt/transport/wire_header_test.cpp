// The header of a runtime message between processes (transport/wire_header.hpp): written in
// its short form exactly when every field fits it, and read back, after the arguments, equal
// to what was written in either form.
#include "transport/wire_header.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using vela::rt::detail::header_bytes;
using vela::rt::detail::read_header;
using vela::rt::detail::WireHeader;
using vela::rt::detail::write_header;

WireHeader typical() {
  WireHeader h;
  h.to = 3;
  h.origin = 1;
  h.element = 12345;
  h.sender = 77;
  h.collection = 2;
  h.handler = 41;
  h.priority = -5;
  h.hops = 2;
  h.kind = 1;
  h.wan = 1;
  return h;
}

std::string fields(const WireHeader& h) {
  return "to " + std::to_string(h.to) + " origin " + std::to_string(h.origin) + " element " +
         std::to_string(h.element) + " sender " + std::to_string(h.sender) + " collection " +
         std::to_string(h.collection) + " handler " + std::to_string(h.handler) + " priority " +
         std::to_string(h.priority) + " hops " + std::to_string(h.hops) + " kind " +
         std::to_string(h.kind) + " wan " + std::to_string(h.wan);
}

// Writes `h` after `args` bytes of arguments, reads it back; checks the size and the fields.
void round_trip(const WireHeader& h, std::size_t expected_bytes) {
  const std::size_t args = 13;
  std::vector<std::byte> bytes(args + header_bytes(h), std::byte{0x5a});
  EXPECT_EQ(header_bytes(h), expected_bytes) << fields(h);
  write_header(h, header_bytes(h), bytes.data() + args);
  WireHeader back;
  back.to = -99;
  std::size_t args_back = 0;
  ASSERT_TRUE(read_header(bytes, back, args_back)) << fields(h);
  EXPECT_EQ(args_back, args) << fields(h);
  EXPECT_EQ(fields(back), fields(h));
  for (std::size_t i = 0; i < args; ++i) EXPECT_EQ(bytes[i], std::byte{0x5a});
}

TEST(WireHeader, FieldsThatFitTakeTwentyFourBytesAndComeBackEqual) {
  round_trip(typical(), 24);
  round_trip(WireHeader{}, 24);  // origin and sender -1
  // The edges of the short form.
  WireHeader h = typical();
  h.to = 65535;
  h.origin = 65534;
  h.element = std::numeric_limits<std::uint32_t>::max();
  h.sender = std::numeric_limits<std::uint32_t>::max() - 1;
  h.collection = 65535;
  h.handler = 65535;
  h.priority = std::numeric_limits<std::int16_t>::max();
  h.hops = 255;
  round_trip(h, 24);
  h.priority = std::numeric_limits<std::int16_t>::min();
  round_trip(h, 24);
}

TEST(WireHeader, AnyFieldBeyondTheShortFormTakesTheLongFormAndComesBackEqual) {
  const auto beyond = [](auto change) {
    WireHeader h = typical();
    change(h);
    round_trip(h, 48);
  };
  beyond([](WireHeader& h) { h.to = 65536; });
  beyond([](WireHeader& h) { h.origin = 65535; });
  beyond([](WireHeader& h) { h.element = std::uint64_t{1} << 32; });
  beyond([](WireHeader& h) { h.sender = std::numeric_limits<std::uint32_t>::max(); });
  beyond([](WireHeader& h) { h.sender = std::int64_t{1} << 40; });
  beyond([](WireHeader& h) { h.collection = 65536; });
  beyond([](WireHeader& h) { h.handler = 65536; });
  beyond([](WireHeader& h) { h.priority = std::numeric_limits<std::int16_t>::max() + 1; });
  beyond([](WireHeader& h) { h.priority = std::numeric_limits<std::int16_t>::min() - 1; });
  beyond([](WireHeader& h) { h.priority = std::numeric_limits<std::int32_t>::min(); });
  beyond([](WireHeader& h) { h.hops = 256; });
}

TEST(WireHeader, BytesThatEndInNoHeaderAreRefused) {
  WireHeader h;
  std::size_t args = 0;
  EXPECT_FALSE(read_header({}, h, args));
  std::vector<std::byte> bytes(23, std::byte{0});
  bytes.back() = std::byte{1};  // the short form's mark, but too short for it
  EXPECT_FALSE(read_header(bytes, h, args));
  bytes.assign(47, std::byte{0});  // the long form's mark, too short for it
  EXPECT_FALSE(read_header(bytes, h, args));
  bytes.assign(64, std::byte{0});
  bytes.back() = std::byte{7};  // neither form
  EXPECT_FALSE(read_header(bytes, h, args));
}

}  // namespace
