// Entry methods: member functions of collection elements invoked by messages. Each method used
// as an entry gets a handler id at program start-up (static initialization, in the same order in
// every process of one binary), so a message names its entry method by a number.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "vela/pup/pup.hpp"
#include "vela/rt/buffer.hpp"

namespace vela::rt {

// Whether a value of T may move to another address as its bytes, the original then forgotten
// without its destructor: it holds no pointer into itself and nothing points into it. Every
// trivially copyable type, std::vector and tuples of such types; a type may say so by
// specializing this. The runtime then copies an entry message's arguments between two PEs of a
// process instead of handing over the message (docs/architecture.md, "PE rings").
template <class T>
inline constexpr bool relocatable = std::is_trivially_copyable_v<T>;
template <class T, class A>
inline constexpr bool relocatable<std::vector<T, A>> = true;
template <class... T>
inline constexpr bool relocatable<std::tuple<T...>> = (relocatable<T> && ...);

class ElementBase;
using HandlerId = std::uint32_t;
using CollectionId = std::uint32_t;

namespace detail {

using Handler = void (*)(ElementBase&, pup::Unpacker&);

struct ArgsOps;
// `ops`: how a message of this entry method holds its arguments (see ArgsOps).
HandlerId register_handler(Handler handler, std::string name, const ArgsOps* ops);
Handler handler(HandlerId id);
// Null for an id no entry method has.
const ArgsOps* handler_ops(HandlerId id);
const std::string& handler_name(HandlerId id);
// Entry methods registered (ids 0 .. count-1).
HandlerId handler_count();

template <class Method>
struct MethodTraits;

template <class C, class R, class... A>
struct MethodTraits<R (C::*)(A...)> {
  using Class = C;
  using Parameters = std::tuple<std::decay_t<A>...>;
};

// "Block::halo" from the compiler's spelling of the template argument.
std::string method_name_from(std::string_view pretty_function);

template <auto Method>
std::string method_name() {
  return method_name_from(__PRETTY_FUNCTION__);
}

template <auto Method, class Tuple, std::size_t... I>
void call_with(ElementBase& element, pup::Unpacker& in, Tuple& args, std::index_sequence<I...>) {
  static_cast<void>((in | ... | std::get<I>(args)));
  using Class = typename MethodTraits<decltype(Method)>::Class;
  (static_cast<Class&>(element).*Method)(std::move(std::get<I>(args))...);
}

// Calls `Method` with arguments unpacked from bytes (a message that crossed a process, or a
// reduction's result).
template <auto Method>
void invoke(ElementBase& element, pup::Unpacker& in) {
  using Parameters = typename MethodTraits<decltype(Method)>::Parameters;
  Parameters args;
  call_with<Method>(element, in, args, std::make_index_sequence<std::tuple_size_v<Parameters>>{});
}

template <auto Method>
struct EntryArgs;

template <auto Method>
inline const HandlerId handler_id = register_handler(&invoke<Method>, method_name<Method>(),
                                                     &EntryArgs<Method>::ops);

// Bytes an argument holds outside its packed form: the elements of a large vector, which go
// between processes of one machine where they lie (MPI copies them from the sender's vector
// into the receiver's) instead of being packed and unpacked.
class IncomingBytes;
struct ByteBlock {
  std::byte* data;
  std::size_t size;
  // Left null by scatter() for a DeferrableBytes argument (data null too): the transport hands
  // it its bytes still on their way (defer) when it is the message's only block, else makes room
  // for them (allocate returns where they go).
  void* value = nullptr;
  std::byte* (*allocate)(void* value, std::size_t size) = nullptr;
  void (*defer)(void* value, IncomingBytes&& bytes) = nullptr;
};
using ByteBlocks = std::vector<ByteBlock>;
// A std::vector of trivially copyable elements, a vela::rt::Buffer or another ExternalBytes
// argument with at least this many bytes is one.
inline constexpr std::size_t external_bytes_from = std::size_t{256} << 10;

// How the runtime treats the arguments of one entry method, held unpacked in a message (a
// std::tuple of the method's parameter types): a call moves them into the method, so a
// std::vector passed by value goes from the sender to the method without a copy.
struct ArgsOps {
  void (*invoke)(ElementBase& element, void* args);  // calls the method, moving the arguments
  void (*destroy)(void* args) noexcept;
  std::size_t (*packed_size)(void* args);                 // bytes once packed
  void (*pack)(void* args, std::vector<std::byte>& out);  // appends them packed
  // Packs them into `out`, which holds exactly packed_size(args) bytes (the shared-memory
  // ring between processes: packed where the receiver reads them).
  void (*pack_to)(void* args, std::span<std::byte> out);
  // Typed arguments only (null for the runtime's byte payloads). The rest of the arguments with
  // their large vectors left out (ByteBlock): gather() packs them into `out`, or with `out`
  // empty only counts them and appends those vectors' bytes to `blocks`; returns the bytes
  // packed. scatter() constructs the arguments at `args` from what gather() packed, the large
  // vectors sized but not filled, and appends where their bytes go to `blocks`.
  std::size_t (*gather)(void* args, std::span<std::byte> out, ByteBlocks& blocks) = nullptr;
  void (*scatter)(void* args, pup::Unpacker& in, ByteBlocks& blocks) = nullptr;
  std::size_t size = 0;  // of the arguments (scatter constructs them)
  std::size_t align = 0;
  bool relocatable = false;  // the arguments may move as their bytes (vela::rt::relocatable)
};

// A type whose bytes may travel outside its packed form (vela::rt::Buffer, a rank's message):
// external_bytes() gives them, external_resize(n) makes room for n bytes without initializing
// them (to be received into).
template <class T>
concept ExternalBytes = requires(T& value, std::size_t n) {
  { value.external_bytes() } -> std::same_as<std::span<std::byte>>;
  value.external_resize(n);
};

// An ExternalBytes type that can also take its bytes later, from wherever they are
// (external_defer): the runtime delivers the message before the bytes have arrived.
template <class T>
concept DeferrableBytes = ExternalBytes<T> && requires(T& value, IncomingBytes&& bytes) {
  value.external_defer(std::move(bytes));
};

// The bytes of a large argument still on their way from another process of this machine (by
// MPI): the receiver picks where they go, so they are copied once, into their final place. Until
// received, the sender's send is not complete; dropped ones are received into scratch.
class IncomingBytes {
 public:
  IncomingBytes() = default;
  // `pending`: the transport's record of the matched message (see src/rt/transport/bulk.cpp).
  IncomingBytes(void* pending, std::size_t size) noexcept : pending_(pending), size_(size) {}
  IncomingBytes(IncomingBytes&& other) noexcept
      : pending_(std::exchange(other.pending_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  IncomingBytes& operator=(IncomingBytes&& other) noexcept {
    if (this != &other) {
      drop();
      pending_ = std::exchange(other.pending_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  IncomingBytes(const IncomingBytes&) = delete;
  IncomingBytes& operator=(const IncomingBytes&) = delete;
  ~IncomingBytes() { drop(); }

  explicit operator bool() const noexcept { return pending_ != nullptr; }
  std::size_t size() const noexcept { return size_; }
  // Receives the bytes into `where` (size() bytes there), blocking until they are in; after it,
  // *this is empty.
  void receive_into(std::byte* where);
  // Receives them into scratch (the sender's send completes) and forgets them.
  void drop() noexcept;

 private:
  void* pending_ = nullptr;
  std::size_t size_ = 0;
};

template <class T>
inline constexpr bool is_bitwise_vector = false;
template <class T, class A>
inline constexpr bool is_bitwise_vector<std::vector<T, A>> =
    pup::Bitwise<T> && !std::is_same_v<T, bool>;

template <class T>
inline constexpr bool may_be_block = is_bitwise_vector<T> || ExternalBytes<T>;

template <class T>
std::span<std::byte> block_bytes(T& value) {
  if constexpr (is_bitwise_vector<T>) {
    return std::as_writable_bytes(std::span(value));
  } else {
    return value.external_bytes();
  }
}

// One argument for ArgsOps::gather: a flag byte, then a large argument's byte count (its bytes
// are a block) or the argument packed.
template <class T>
void gather_one(pup::Archive& ar, T& value, ByteBlocks& blocks) {
  bool external = false;
  if constexpr (may_be_block<T>) {
    const std::span<std::byte> bytes = block_bytes(value);
    external = bytes.size() >= external_bytes_from;
    ar | external;
    if (external) {
      ar.length(bytes.size());
      if (ar.sizing()) blocks.push_back({bytes.data(), bytes.size()});
      return;
    }
  } else {
    ar | external;
  }
  ar | value;
}

template <class T>
void scatter_one(pup::Unpacker& in, T& value, ByteBlocks& blocks) {
  bool external = false;
  in | external;
  if constexpr (may_be_block<T>) {
    if (external) {
      const std::size_t bytes = in.length(0);
      if (bytes > std::size_t{1} << 40) in.fail("a block of implausible size", in.offset());
      if constexpr (DeferrableBytes<T>) {
        blocks.push_back(
            {nullptr, bytes, &value,
             [](void* v, std::size_t n) {
               T& to = *static_cast<T*>(v);
               to.external_resize(n);
               return to.external_bytes().data();
             },
             [](void* v, IncomingBytes&& b) { static_cast<T*>(v)->external_defer(std::move(b)); }});
        return;
      } else if constexpr (is_bitwise_vector<T>) {
        using E = typename T::value_type;
        if (bytes % sizeof(E) != 0) in.fail("a block of part of a value", in.offset());
        value.resize(bytes / sizeof(E));  // a std::vector's values are zeroed first
      } else {
        value.external_resize(bytes);  // not initialized: MPI fills it
      }
      const std::span<std::byte> room = block_bytes(value);
      if (room.size() != bytes) in.fail("a block its argument cannot hold", in.offset());
      blocks.push_back({room.data(), room.size()});
      return;
    }
  }
  if (external) in.fail("a block where none can be", in.offset());
  in | value;
}

template <auto Method>
struct EntryArgs {
  using Traits = MethodTraits<decltype(Method)>;
  using Parameters = typename Traits::Parameters;

  static void invoke(ElementBase& element, void* args) {
    std::apply(
        [&element](auto&... a) {
          (static_cast<typename Traits::Class&>(element).*Method)(std::move(a)...);
        },
        *static_cast<Parameters*>(args));
  }
  static void destroy(void* args) noexcept { static_cast<Parameters*>(args)->~Parameters(); }
  static std::size_t packed_size(void* args) {
    return pup::packed_size(*static_cast<Parameters*>(args));
  }
  static void pack(void* args, std::vector<std::byte>& out) {
    pup::pack_values(out, *static_cast<Parameters*>(args));
  }
  // Packs with `put(archive)` into `out`, which must be filled exactly.
  template <class Put>
  static void pack_exactly(std::span<std::byte> out, Put&& put) {
    pup::Packer packer(out);
    put(packer);
    if (packer.size() != out.size()) pup::detail::fail_size_mismatch(out.size(), packer.size());
  }
  static void pack_to(void* args, std::span<std::byte> out) {
    pack_exactly(out, [args](pup::Archive& ar) { ar | *static_cast<Parameters*>(args); });
  }
  static std::size_t gather(void* args, std::span<std::byte> out, ByteBlocks& blocks) {
    auto put = [args, &blocks](pup::Archive& ar) {
      std::apply([&](auto&... a) { (gather_one(ar, a, blocks), ...); },
                 *static_cast<Parameters*>(args));
    };
    if (out.empty()) {
      pup::Sizer sizer;
      put(sizer);
      return sizer.size();
    }
    pack_exactly(out, put);
    return out.size();
  }
  static void scatter(void* args, pup::Unpacker& in, ByteBlocks& blocks) {
    auto* values = ::new (args) Parameters();
    try {
      std::apply([&](auto&... a) { (scatter_one(in, a, blocks), ...); }, *values);
    } catch (...) {
      values->~Parameters();
      throw;
    }
  }
  static constexpr ArgsOps ops{&invoke,
                               &destroy,
                               &packed_size,
                               &pack,
                               &pack_to,
                               &gather,
                               &scatter,
                               sizeof(Parameters),
                               alignof(Parameters),
                               relocatable<Parameters>};
};

// The runtime's message (opaque here). A message is taken from the sending PE's pool, its
// arguments are constructed in it (inline when small), and it is sent.
struct Message;
struct Outgoing {
  Message* message;
  void* args;  // where to construct the arguments
};
Outgoing new_entry_message(const ArgsOps& ops, std::size_t size, std::size_t align);
// Gives a message whose arguments could not be constructed back to its pool.
void discard_message(const Outgoing& out) noexcept;
// Sends it to element `linear` of `collection` (the message's arguments are constructed).
void send_entry_message(const Outgoing& out, CollectionId collection, std::uint64_t linear,
                        HandlerId handler, int priority);
// Arguments of at most this many bytes that may move as their bytes travel between two PEs of
// a process in one line of the pair's ring (a compact slot: core/pe_ring.hpp).
inline constexpr std::size_t compact_args_bytes = 38;
// Sends the arguments constructed at `args` (compact_args_bytes readable; `ops` relocatable, of
// at most that size) to element `linear` of `collection`: straight into the ring to the PE of
// this process where it lives, without a message block, or else moved, as their bytes, into a
// message sent as send_entry_message sends it (the element lives on this PE or in another
// process, the ring is full or has messages waiting for room, several clusters). `args` is
// left as moved-from bytes (destroyed when nothing was sent).
void send_small_entry(const ArgsOps& ops, std::byte* args, CollectionId collection,
                      std::uint64_t linear, HandlerId handler, int priority);

// Sends `Method(args...)`: the arguments, converted to the method's parameter types, are
// constructed in the message (moved when passed as rvalues). Arguments of a few dozen bytes
// that may move as their bytes are constructed on the stack and go straight into a PE ring's
// slot when the element lives on another PE of this process (send_small_entry).
template <auto Method, class... Args>
void send_entry(CollectionId collection, std::uint64_t linear, int priority, Args&&... args) {
  using Parameters = typename MethodTraits<decltype(Method)>::Parameters;
  static_assert(std::tuple_size_v<Parameters> == sizeof...(Args),
                "wrong number of arguments for this entry method");
  if constexpr (EntryArgs<Method>::ops.relocatable && sizeof(Parameters) <= compact_args_bytes &&
                alignof(Parameters) <= 8) {
    // Constructed here: into a PE ring's slot as their bytes, or else moved, as their bytes,
    // into a message. Every byte set: no stale stack bytes travel.
    alignas(8) std::byte bytes[compact_args_bytes] = {};
    ::new (bytes) Parameters(std::forward<Args>(args)...);
    send_small_entry(EntryArgs<Method>::ops, bytes, collection, linear, handler_id<Method>,
                     priority);
  } else {
    const Outgoing out =
        new_entry_message(EntryArgs<Method>::ops, sizeof(Parameters), alignof(Parameters));
    try {
      ::new (out.args) Parameters(std::forward<Args>(args)...);
    } catch (...) {
      discard_message(out);
      throw;
    }
    send_entry_message(out, collection, linear, handler_id<Method>, priority);
  }
}

// The same with arguments already converted (a broadcast copies them into each message).
template <auto Method>
void send_entry_tuple(CollectionId collection, std::uint64_t linear, int priority,
                      const typename MethodTraits<decltype(Method)>::Parameters& values) {
  using Parameters = typename MethodTraits<decltype(Method)>::Parameters;
  const Outgoing out =
      new_entry_message(EntryArgs<Method>::ops, sizeof(Parameters), alignof(Parameters));
  try {
    ::new (out.args) Parameters(values);
  } catch (...) {
    discard_message(out);
    throw;
  }
  send_entry_message(out, collection, linear, handler_id<Method>, priority);
}

// Same-PE hand-off, for layers (the ranks) that deliver to an element directly instead of
// through a message. On a PE only.
// When element `linear` of `collection` lives on the calling PE: counts `bytes` sent to it from
// the running element in the communication graph (as a message to it would be counted) and
// returns it. Else nullptr, and nothing is counted.
ElementBase* local_send(CollectionId collection, std::uint64_t linear, std::size_t bytes);
// Inside an entry method: what remains of it runs as element `to`'s entry `name` (measured as
// `to`'s load, traced under `to`); the part before is charged to the element that ran it.
void continue_as(ElementBase& to, const char* name);

}  // namespace detail
}  // namespace vela::rt
