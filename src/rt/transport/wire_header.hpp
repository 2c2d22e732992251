// The header of a runtime message on the wire, after its packed arguments (at the end, so that
// the receiver drops it by shrinking the buffer, without moving the arguments). It has two
// forms: 24 bytes when every field fits (the usual case: a small message and its header then
// fill one cache line of a shared-memory ring), 48 otherwise. The last byte of either says
// which it is.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>

namespace vela::rt::detail {

struct WireHeader {
  std::int32_t to = 0;
  std::int32_t origin = -1;
  std::uint64_t element = 0;
  std::int64_t sender = -1;
  std::uint32_t collection = 0;
  std::uint32_t handler = 0;
  std::int32_t priority = 0;
  std::uint32_t hops = 0;
  std::uint8_t kind = 0;
  std::uint8_t wan = 0;        // crossed clusters: the receiver's delay device holds it
  std::uint8_t broadcast = 0;  // one of a dynamic collection's broadcast's messages
  std::uint8_t padding[4] = {};
  std::uint8_t form = 0;  // 0: this long form; 1: the short form
};
static_assert(sizeof(WireHeader) == 48);

// The short form: three little-endian words, built in registers and stored whole (a header
// assembled in memory field by field and copied would stall the copy's load until the stores
// before it, the message's arguments in a ring line another core holds, have left the store
// buffer). `sender` and `origin` are stored plus one (-1 is 0).
//   word 0: element (32 bits) | sender + 1 (32)
//   word 1: to (16) | origin + 1 (16) | collection (16) | handler (16)
//   word 2: priority (16) | hops (8) | kind (8) | wan (8) | broadcast (8) | 0 (8) | form = 1 (8)
inline constexpr std::size_t short_header_bytes = 24;
static_assert(std::endian::native == std::endian::little,
              "the short form's last byte is word 2's high byte on a little-endian machine");

inline bool fits_short(const WireHeader& h) {
  constexpr auto u16 = std::numeric_limits<std::uint16_t>::max();
  constexpr auto u32 = std::numeric_limits<std::uint32_t>::max();
  return h.to >= 0 && h.to <= u16 && h.origin >= -1 && h.origin < u16 && h.element <= u32 &&
         h.sender >= -1 && h.sender < std::int64_t{u32} && h.collection <= u16 &&
         h.handler <= u16 && h.priority >= std::numeric_limits<std::int16_t>::min() &&
         h.priority <= std::numeric_limits<std::int16_t>::max() && h.hops <= 0xff && h.wan <= 1 &&
         h.broadcast <= 1;
}

// The bytes `h` takes at the end of a message.
inline std::size_t header_bytes(const WireHeader& h) {
  return fits_short(h) ? short_header_bytes : sizeof(WireHeader);
}

// Writes `h` at `at`, in `bytes` = header_bytes(h) bytes (worked out once by the caller, who
// needed it to make room).
inline void write_header(const WireHeader& h, std::size_t bytes, std::byte* at) {
  if (bytes != short_header_bytes) {
    WireHeader long_form = h;
    long_form.form = 0;
    std::memcpy(at, &long_form, sizeof long_form);
    return;
  }
  const std::uint64_t words[3] = {
      h.element | static_cast<std::uint64_t>(h.sender + 1) << 32,
      static_cast<std::uint64_t>(h.to) | static_cast<std::uint64_t>(h.origin + 1) << 16 |
          static_cast<std::uint64_t>(h.collection) << 32 |
          static_cast<std::uint64_t>(h.handler) << 48,
      static_cast<std::uint64_t>(static_cast<std::uint16_t>(h.priority)) |
          static_cast<std::uint64_t>(h.hops) << 16 | static_cast<std::uint64_t>(h.kind) << 24 |
          static_cast<std::uint64_t>(h.wan) << 32 | static_cast<std::uint64_t>(h.broadcast) << 40 |
          std::uint64_t{1} << 56};
  for (int i = 0; i < 3; ++i) std::memcpy(at + 8 * i, &words[i], 8);
}

// The header at the end of `bytes` into `h`, and the bytes before it (the arguments) into
// `args`; false (nothing read) when the bytes end in no header of either form.
inline bool read_header(std::span<const std::byte> bytes, WireHeader& h, std::size_t& args) {
  if (bytes.empty()) return false;
  const auto form = static_cast<std::uint8_t>(bytes.back());
  if (form == 1) {
    if (bytes.size() < short_header_bytes) return false;
    args = bytes.size() - short_header_bytes;
    std::uint64_t w[3];
    for (int i = 0; i < 3; ++i) std::memcpy(&w[i], bytes.data() + args + 8 * i, 8);
    h = WireHeader{};
    h.element = w[0] & 0xffffffff;
    h.sender = static_cast<std::int64_t>(w[0] >> 32) - 1;
    h.to = static_cast<std::int32_t>(w[1] & 0xffff);
    h.origin = static_cast<std::int32_t>(w[1] >> 16 & 0xffff) - 1;
    h.collection = static_cast<std::uint32_t>(w[1] >> 32 & 0xffff);
    h.handler = static_cast<std::uint32_t>(w[1] >> 48);
    h.priority = static_cast<std::int16_t>(w[2] & 0xffff);
    h.hops = static_cast<std::uint32_t>(w[2] >> 16 & 0xff);
    h.kind = static_cast<std::uint8_t>(w[2] >> 24);
    h.wan = static_cast<std::uint8_t>(w[2] >> 32 & 0xff);
    h.broadcast = static_cast<std::uint8_t>(w[2] >> 40 & 0xff);
    return true;
  }
  if (form != 0 || bytes.size() < sizeof h) return false;
  args = bytes.size() - sizeof h;
  std::memcpy(&h, bytes.data() + args, sizeof h);
  return true;
}

}  // namespace vela::rt::detail
