// The header of a runtime message on the wire, after its packed arguments (at the end, so that
// the receiver drops it by shrinking the buffer, without moving the arguments). It has two
// forms: 24 bytes when every field fits (the usual case: a small message and its header then
// fill one cache line of a shared-memory ring), 48 otherwise. The last byte of either says
// which it is.
#pragma once

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
  std::uint8_t wan = 0;  // crossed clusters: the receiver's delay device holds it
  std::uint8_t padding[5] = {};
  std::uint8_t form = 0;  // 0: this long form; 1: ShortHeader
};
static_assert(sizeof(WireHeader) == 48);

// The short form: `sender` and `origin` are stored plus one (-1 is 0).
struct ShortHeader {
  std::uint32_t element = 0;
  std::uint32_t sender = 0;
  std::uint16_t to = 0;
  std::uint16_t origin = 0;
  std::uint16_t collection = 0;
  std::uint16_t handler = 0;
  std::int16_t priority = 0;
  std::uint8_t hops = 0;
  std::uint8_t kind = 0;
  std::uint8_t wan = 0;
  std::uint8_t padding[2] = {};
  std::uint8_t form = 1;
};
static_assert(sizeof(ShortHeader) == 24);

inline bool fits_short(const WireHeader& h) {
  constexpr auto u16 = std::numeric_limits<std::uint16_t>::max();
  constexpr auto u32 = std::numeric_limits<std::uint32_t>::max();
  return h.to >= 0 && h.to <= u16 && h.origin >= -1 && h.origin < u16 && h.element <= u32 &&
         h.sender >= -1 && h.sender < std::int64_t{u32} && h.collection <= u16 &&
         h.handler <= u16 && h.priority >= std::numeric_limits<std::int16_t>::min() &&
         h.priority <= std::numeric_limits<std::int16_t>::max() && h.hops <= 0xff && h.wan <= 1;
}

// The bytes `h` takes at the end of a message.
inline std::size_t header_bytes(const WireHeader& h) {
  return fits_short(h) ? sizeof(ShortHeader) : sizeof(WireHeader);
}

// Writes `h` (header_bytes(h) bytes) at `at`.
inline void write_header(const WireHeader& h, std::byte* at) {
  if (!fits_short(h)) {
    WireHeader long_form = h;
    long_form.form = 0;
    std::memcpy(at, &long_form, sizeof long_form);
    return;
  }
  ShortHeader s;
  s.element = static_cast<std::uint32_t>(h.element);
  s.sender = static_cast<std::uint32_t>(h.sender + 1);
  s.to = static_cast<std::uint16_t>(h.to);
  s.origin = static_cast<std::uint16_t>(h.origin + 1);
  s.collection = static_cast<std::uint16_t>(h.collection);
  s.handler = static_cast<std::uint16_t>(h.handler);
  s.priority = static_cast<std::int16_t>(h.priority);
  s.hops = static_cast<std::uint8_t>(h.hops);
  s.kind = h.kind;
  s.wan = h.wan;
  std::memcpy(at, &s, sizeof s);
}

// The header at the end of `bytes` into `h`, and the bytes before it (the arguments) into
// `args`; false (nothing read) when the bytes end in no header of either form.
inline bool read_header(std::span<const std::byte> bytes, WireHeader& h, std::size_t& args) {
  if (bytes.empty()) return false;
  const auto form = static_cast<std::uint8_t>(bytes.back());
  if (form == 1) {
    ShortHeader s;
    if (bytes.size() < sizeof s) return false;
    args = bytes.size() - sizeof s;
    std::memcpy(&s, bytes.data() + args, sizeof s);
    h = WireHeader{};
    h.to = s.to;
    h.origin = static_cast<std::int32_t>(s.origin) - 1;
    h.element = s.element;
    h.sender = static_cast<std::int64_t>(s.sender) - 1;
    h.collection = s.collection;
    h.handler = s.handler;
    h.priority = s.priority;
    h.hops = s.hops;
    h.kind = s.kind;
    h.wan = s.wan;
    return true;
  }
  if (form != 0 || bytes.size() < sizeof h) return false;
  args = bytes.size() - sizeof h;
  std::memcpy(&h, bytes.data() + args, sizeof h);
  return true;
}

}  // namespace vela::rt::detail
