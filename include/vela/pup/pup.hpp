// Serialization ("pack/unpack"): one `void pup(vela::pup::Archive&)` per type serves sizing,
// packing and unpacking, so the three can never disagree on the format.
//
// Format: values as raw bytes in host byte order and host type sizes, containers as a 64-bit
// element count followed by their elements; no tags, no versioning. Both sides must therefore
// run the same build on the same architecture (use fixed-width integers for portable sizes).
//
// Writing a pup:
//   struct Particle {
//     std::string name; std::vector<double> pos;
//     void pup(vela::pup::Archive& ar) { ar | name | pos; }
//   };
// or a free `void pup(vela::pup::Archive&, Particle&)` next to the type (found by ADL).
// Inside a pup, always write `ar | field`, never `pup(ar, field)`: the namespace `vela::pup`
// hides the free functions from unqualified calls in code under `vela`.
//
// Contract: when sizing or packing, a pup must not modify the object (pack() and packed_size()
// rely on it to accept const objects), and it must put the same fields in every mode.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace vela::pup {

// Raised for a buffer that does not hold what is being unpacked (truncated, corrupt, or of
// another type), and for packing past the end of a fixed buffer.
class PupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Mode : std::uint8_t { sizing, packing, unpacking };

// Types put through the archive as their raw bytes, and in bulk (one memcpy) inside vectors,
// arrays and strings. Specialize to true for your own trivially copyable types whose bytes are
// all data (no pointers); their pup, if any, is then bypassed. Specialize an enum to false to
// give it a validating pup of its own.
template <class T>
struct bitwise
    : std::bool_constant<(std::is_arithmetic_v<T> && !std::is_same_v<std::remove_cv_t<T>, bool>) ||
                         std::is_enum_v<T>> {};
template <class T, std::size_t N>
struct bitwise<T[N]> : bitwise<T> {};
template <class T, std::size_t N>
struct bitwise<std::array<T, N>>
    : std::bool_constant<bitwise<T>::value && sizeof(std::array<T, N>) == N * sizeof(T)> {};

template <class T>
concept Bitwise = bitwise<T>::value && std::is_trivially_copyable_v<T>;

class Archive;

static_assert(sizeof(std::size_t) == sizeof(std::uint64_t), "vela::pup stores 64-bit counts");

template <class T>
concept HasMemberPup = requires(T& value, Archive& ar) {
  value.pup(ar);
};

// What a pup function sees. One non-virtual class whose mode is a flag, so `ar | x` inlines to
// a count or a bounds check plus memcpy; Sizer, Packer and Unpacker only construct it.
class Archive {
 public:
  Archive(const Archive&) = delete;
  Archive& operator=(const Archive&) = delete;

  Mode mode() const noexcept { return mode_; }
  bool sizing() const noexcept { return mode_ == Mode::sizing; }
  bool packing() const noexcept { return mode_ == Mode::packing; }
  bool unpacking() const noexcept { return mode_ == Mode::unpacking; }

  // Bytes counted, written or read so far.
  std::size_t offset() const noexcept { return offset_; }
  // Unread bytes when unpacking, room left when packing into a fixed buffer, 0 otherwise.
  std::size_t remaining() const noexcept { return sizing() ? 0 : capacity_ - offset_; }

  // Counts `n` bytes, copies them out of `data`, or copies them into `data`. Always inlined:
  // for a field of constant size the copy is one load and one store.
  [[gnu::always_inline]] void bytes(void* data, std::size_t n) {
    if (mode_ == Mode::sizing) {
      offset_ += n;
      return;
    }
    // Empty containers may hand over null pointers, which memcpy forbids: the slow path.
    if (n - 1 >= capacity_ - offset_) [[unlikely]] {
      bytes_slow(data, n);
      return;
    }
    if (mode_ == Mode::packing) {
      std::memcpy(out_ + offset_, data, n);
    } else {
      std::memcpy(data, in_ + offset_, n);
    }
    offset_ += n;
  }

  // Unpacking: the next `n` bytes where they lie in the buffer (read past them).
  const std::byte* take(std::size_t n) {
    if (n > capacity_ - offset_) [[unlikely]]
      fail_room(n);
    const std::byte* at = in_ + offset_;
    offset_ += n;
    return at;
  }

  // Puts `value` through the archive: raw bytes for Bitwise types, else its member pup, else a
  // free pup(Archive&, T&) found by ADL (the std types below, or the user's own).
  template <class T>
  Archive& operator|(T& value);

  // Puts a container length through as a 64-bit count and returns it (the stored one when
  // unpacking). With `min_bytes_each` > 0, a stored count whose elements could not fit in the
  // unread bytes throws before anything is allocated.
  std::size_t length(std::size_t n, std::size_t min_bytes_each = 0) {
    std::uint64_t stored = n;
    bytes(&stored, sizeof stored);
    if (mode_ == Mode::unpacking && min_bytes_each != 0 &&
        stored > (capacity_ - offset_) / min_bytes_each) [[unlikely]]
      fail_length(stored, min_bytes_each);
    return static_cast<std::size_t>(stored);
  }

  // Throws PupError "<mode>: <what> at offset <at> of <buffer size>", for pups that validate
  // what they unpack.
  [[noreturn]] void fail(std::string_view what, std::size_t at) const;

 protected:
  Archive(Mode mode, std::byte* out, const std::byte* in, std::size_t capacity,
          std::vector<std::byte>* sink) noexcept
      : mode_(mode), capacity_(capacity), out_(out), in_(in), sink_(sink) {
    if (sink_ != nullptr) sink_start_ = sink_->size();
  }
  ~Archive() = default;

 private:
  // bytes() for nothing, or for more than the buffer has left (a packer's vector grows, a
  // fixed buffer or an unpacker's throws).
  void bytes_slow(void* data, std::size_t n);
  // Throws: a fixed buffer or the bytes being unpacked have fewer than `n` bytes left.
  [[noreturn]] void fail_room(std::size_t n) const;
  // Packing into a sink vector: appends `n` bytes of `data`.
  void append(const void* data, std::size_t n);
  [[noreturn]] void fail_length(std::uint64_t count, std::size_t bytes_each) const;

  Mode mode_;
  std::size_t offset_ = 0;
  std::size_t capacity_;  // bytes of the buffer from its start; sink mode: bytes appended
  std::byte* out_;
  const std::byte* in_;
  std::vector<std::byte>* sink_;  // packing by appending to a vector, else null
  std::size_t sink_start_ = 0;    // where this packer's bytes begin in *sink_
};

// Counts the bytes an object packs into.
class Sizer : public Archive {
 public:
  Sizer() noexcept : Archive(Mode::sizing, nullptr, nullptr, 0, nullptr) {}
  std::size_t size() const noexcept { return offset(); }
};

class Packer : public Archive {
 public:
  // Appends to `out`, which always holds exactly the bytes written so far; leave `out` alone
  // while the Packer lives.
  explicit Packer(std::vector<std::byte>& out) noexcept
      : Archive(Mode::packing, out.data() + out.size(), nullptr, 0, &out) {}
  // Writes into `buffer`; packing past its end throws PupError.
  explicit Packer(std::span<std::byte> buffer) noexcept
      : Archive(Mode::packing, buffer.data(), nullptr, buffer.size(), nullptr) {}
  // Bytes written.
  std::size_t size() const noexcept { return offset(); }
};

// Reads from a buffer; reading past its end throws PupError, never reads out of bounds.
class Unpacker : public Archive {
 public:
  explicit Unpacker(std::span<const std::byte> bytes) noexcept
      : Archive(Mode::unpacking, nullptr, bytes.data(), bytes.size(), nullptr) {}
  // Throws PupError if bytes remain unread: the buffer held more than what was unpacked.
  void expect_end() const;
};

// ---- pup for the standard types ------------------------------------------------------------

// One byte, 0 or 1; any other byte is rejected rather than read into a bool.
inline void pup(Archive& ar, bool& value) {
  std::uint8_t byte = !ar.unpacking() && value ? 1 : 0;  // unpacking may target an unset bool
  ar.bytes(&byte, 1);
  if (ar.unpacking()) {
    if (byte > 1) ar.fail("byte " + std::to_string(byte) + " is not a bool", ar.offset() - 1);
    value = byte != 0;
  }
}

namespace detail {

// How many elements to reserve for a stored count: never more memory than the unread bytes, so
// a corrupt count cannot allocate more than the buffer itself holds.
template <class T>
std::size_t bounded_reserve(const Archive& ar, std::size_t count) {
  return std::min(count, ar.remaining() / sizeof(T));
}

// Element-wise sequence: on unpacking, `seq` is cleared and grown one element at a time.
template <class Seq>
void pup_elements(Archive& ar, Seq& seq) {
  using T = typename Seq::value_type;
  const std::size_t n = ar.length(seq.size());
  if (!ar.unpacking()) {
    for (T& element : seq) ar | element;
    return;
  }
  seq.clear();
  if constexpr (requires { seq.reserve(n); }) seq.reserve(bounded_reserve<T>(ar, n));
  for (std::size_t i = 0; i < n; ++i) ar | seq.emplace_back();
}

// Keys and values; map keys are const, but sizing and packing never write through them.
template <class Map>
void pup_map(Archive& ar, Map& map) {
  using K = typename Map::key_type;
  using V = typename Map::mapped_type;
  const std::size_t n = ar.length(map.size());
  if (!ar.unpacking()) {
    for (auto& entry : map) ar | const_cast<K&>(entry.first) | entry.second;
    return;
  }
  map.clear();
  if constexpr (requires { map.reserve(n); }) map.reserve(bounded_reserve<K>(ar, n));
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t at = ar.offset();
    K key{};
    V value{};
    ar | key | value;
    const std::size_t before = map.size();
    map.emplace_hint(map.end(), std::move(key), std::move(value));  // O(1) for sorted input
    if (map.size() == before) ar.fail("duplicate map key", at);
  }
}

template <class Set>
void pup_set(Archive& ar, Set& set) {
  using K = typename Set::key_type;
  const std::size_t n = ar.length(set.size());
  if (!ar.unpacking()) {
    for (const K& key : set) ar | const_cast<K&>(key);
    return;
  }
  set.clear();
  if constexpr (requires { set.reserve(n); }) set.reserve(bounded_reserve<K>(ar, n));
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t at = ar.offset();
    K key{};
    ar | key;
    const std::size_t before = set.size();
    set.emplace_hint(set.end(), std::move(key));
    if (set.size() == before) ar.fail("duplicate set element", at);
  }
}

// Fixed-size run of elements: one memcpy when Bitwise, else one by one.
template <class T>
void pup_run(Archive& ar, T* first, std::size_t n) {
  if constexpr (Bitwise<T>) {
    ar.bytes(first, n * sizeof(T));
  } else {
    for (std::size_t i = 0; i < n; ++i) ar | first[i];
  }
}

// Bits, eight to a byte; unpacking reads a byte at a time, so a corrupt count runs out of
// buffer instead of allocating.
template <class A>
void pup_bits(Archive& ar, std::vector<bool, A>& bits) {
  const std::size_t n = ar.length(bits.size());
  if (ar.unpacking()) {
    bits.clear();
    bits.reserve(std::min(n, ar.remaining() * 8));
  }
  for (std::size_t first = 0; first < n; first += 8) {
    const std::size_t count = std::min<std::size_t>(8, n - first);
    std::uint8_t byte = 0;
    if (!ar.unpacking()) {
      for (std::size_t i = 0; i < count; ++i) byte |= std::uint8_t(bits[first + i] ? 1u << i : 0u);
    }
    ar.bytes(&byte, 1);
    if (ar.unpacking()) {
      for (std::size_t i = 0; i < count; ++i) bits.push_back(((byte >> i) & 1u) != 0);
    }
  }
}

}  // namespace detail

template <class C, class Traits, class A>
void pup(Archive& ar, std::basic_string<C, Traits, A>& text) {
  static_assert(Bitwise<C>, "vela::pup: strings of non-bitwise characters are not supported");
  const std::size_t n = ar.length(text.size(), sizeof(C));
  if (ar.unpacking()) text.resize(n);
  ar.bytes(text.data(), n * sizeof(C));
}

template <class T, class A>
void pup(Archive& ar, std::vector<T, A>& values) {
  if constexpr (std::is_same_v<T, bool>) {
    detail::pup_bits(ar, values);
  } else if constexpr (Bitwise<T>) {
    const std::size_t n = ar.length(values.size(), sizeof(T));
    if constexpr (sizeof(T) == 1) {
      if (ar.unpacking()) {  // copied once, not zero-filled first
        const auto* first = reinterpret_cast<const T*>(ar.take(n));
        values.assign(first, first + n);
        return;
      }
    } else {
      if (ar.unpacking()) values.resize(n);
    }
    ar.bytes(values.data(), n * sizeof(T));
  } else {
    detail::pup_elements(ar, values);
  }
}

template <class T, class A>
void pup(Archive& ar, std::deque<T, A>& values) {
  detail::pup_elements(ar, values);
}

template <class T, std::size_t N>
void pup(Archive& ar, std::array<T, N>& values) {
  detail::pup_run(ar, values.data(), N);
}

template <class T, std::size_t N>
void pup(Archive& ar, T (&values)[N]) {
  detail::pup_run(ar, values, N);
}

template <class A, class B>
void pup(Archive& ar, std::pair<A, B>& pair) {
  ar | pair.first | pair.second;
}

template <class... Ts>
void pup(Archive& ar, std::tuple<Ts...>& tuple) {
  std::apply([&ar](Ts&... elements) { ((ar | elements), ...); }, tuple);
}

template <class K, class V, class C, class A>
void pup(Archive& ar, std::map<K, V, C, A>& map) {
  detail::pup_map(ar, map);
}

template <class K, class V, class H, class E, class A>
void pup(Archive& ar, std::unordered_map<K, V, H, E, A>& map) {
  detail::pup_map(ar, map);
}

template <class K, class C, class A>
void pup(Archive& ar, std::set<K, C, A>& set) {
  detail::pup_set(ar, set);
}

template <class K, class H, class E, class A>
void pup(Archive& ar, std::unordered_set<K, H, E, A>& set) {
  detail::pup_set(ar, set);
}

// A presence flag, then the value; unpacking a present value builds a fresh T.
template <class T>
void pup(Archive& ar, std::optional<T>& value) {
  bool present = value.has_value();
  ar | present;
  if (ar.unpacking()) {
    if (!present) {
      value.reset();
      return;
    }
    value.emplace();
  }
  if (present) ar | *value;
}

template <class T>
void pup(Archive& ar, std::unique_ptr<T>& pointer) {
  static_assert(!std::is_polymorphic_v<T> || std::is_final_v<T>,
                "vela::pup: a unique_ptr to a polymorphic type would lose its dynamic type");
  bool present = pointer != nullptr;
  ar | present;
  if (ar.unpacking()) {
    if (!present) {
      pointer.reset();
      return;
    }
    pointer = std::make_unique<T>();
  }
  if (present) ar | *pointer;
}

namespace detail {

template <class T>
concept HasFreePup = requires(Archive& ar, T& value) {
  pup(ar, value);
};

[[noreturn]] void fail_size_mismatch(std::size_t sized, std::size_t packed);

}  // namespace detail

template <class T>
Archive& Archive::operator|(T& value) {
  static_assert(!std::is_const_v<T>,
                "vela::pup: pup a non-const object; pack()/packed_size() accept const ones");
  if constexpr (bitwise<T>::value) {
    static_assert(std::is_trivially_copyable_v<T>,
                  "vela::pup: bitwise<T> is true for a type that is not trivially copyable");
    bytes(std::addressof(value), sizeof(T));
  } else if constexpr (HasMemberPup<T>) {
    value.pup(*this);
  } else {
    static_assert(detail::HasFreePup<T>,
                  "vela::pup: no pup for this type; give it a public member "
                  "`void pup(vela::pup::Archive&)` or a free `pup(vela::pup::Archive&, T&)` "
                  "in its namespace");
    pup(*this, value);
  }
  return *this;
}

// ---- convenience ---------------------------------------------------------------------------
// Packing takes const objects: safe to const_cast because sizing and packing never write.

template <class T>
std::size_t packed_size(const T& value) {
  Sizer sizer;
  sizer | const_cast<T&>(value);
  return sizer.size();
}

// Appends `values`, packed one after the other, to `out`: sizes first, makes room once, then
// packs into it (small ones into the grown buffer; large ones appended to reserved room, so
// their bytes are written once, not zero-filled first). On an exception `out` is left as it was.
template <class... Args>
void pack_values(std::vector<std::byte>& out, const Args&... values) {
  constexpr std::size_t append_from = 4096;
  Sizer sizer;
  ((sizer | const_cast<Args&>(values)), ...);
  const std::size_t start = out.size();
  if (sizer.size() >= append_from) {
    out.reserve(start + sizer.size());
  } else {
    out.resize(start + sizer.size());
  }
  try {
    auto pack_into = [&](Packer&& packer) {
      ((packer | const_cast<Args&>(values)), ...);
      return packer.size();
    };
    const std::size_t written = sizer.size() >= append_from
                                    ? pack_into(Packer(out))
                                    : pack_into(Packer(std::span<std::byte>(out).subspan(start)));
    if (written != sizer.size()) detail::fail_size_mismatch(sizer.size(), written);
  } catch (...) {
    out.resize(start);
    throw;
  }
}

template <class... Args>
void unpack_values(Unpacker& unpacker, Args&... values) {
  ((unpacker | values), ...);
}

// The packed bytes of `value`, in a buffer of exactly packed_size(value).
template <class T>
std::vector<std::byte> pack(const T& value) {
  std::vector<std::byte> out;
  pack_values(out, value);
  return out;
}

// Unpacks `value` from all of `bytes`; unread bytes left over throw (a format mismatch).
template <class T>
void unpack(std::span<const std::byte> bytes, T& value) {
  Unpacker unpacker(bytes);
  unpacker | value;
  unpacker.expect_end();
}

template <class T>
T unpack(std::span<const std::byte> bytes) {
  T value{};
  unpack(bytes, value);
  return value;
}

}  // namespace vela::pup
