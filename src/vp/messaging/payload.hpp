// The bytes of one rank message: inline when small (no allocation for the latency-bound common
// case), else one heap block. Moved, never copied, from the sender's message to the receiver.
//
// A large one may hold its bytes elsewhere until the receiver settles it: still in the sender's
// buffer (borrowed, with a SendLoan the sending rank waits on), or still on its way from another
// process (incoming). The receiver then copies them once, into the posted receive's buffer when
// one matches, else into the payload's own block.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <utility>

#include "vela/pup/pup.hpp"
#include "vela/rt/entry.hpp"

namespace vela::vp::detail {

struct World;

// A send whose bytes the runtime reads in the sender's buffer: done once no message holds them
// any more (copied, or received into their destination). The sending rank waits for it; the
// last of the rank and the payload to let go frees it.
//
// The copy may be shared with the sender's PE (docs/architecture.md, Ranks, "Large messages
// copied by both PEs"): the receiver publishes where the bytes go (`to`, after `from` and
// `size`), then it and a sender waiting on another PE of the process claim chunks of
// share_chunk_bytes (`next`) until none is left; each adds what it copied to `copied`, and the
// receiver lets go of the bytes once `copied` is the whole size.
struct SendLoan {
  World* world = nullptr;
  int rank = 0;                      // the sender, woken when it waits
  std::atomic<int> holders{2};       // the sending rank and the payload
  std::atomic<bool> done{false};     // the payload let go of the bytes
  std::atomic<bool> waiting{false};  // the rank is suspended until done
  bool may_help = false;             // the receiver is on another PE of this process (sender's)
  std::atomic<std::byte*> to{nullptr};
  const std::byte* from = nullptr;
  std::size_t size = 0;
  std::atomic<std::size_t> next{0};    // chunks claimed
  std::atomic<std::size_t> copied{0};  // bytes copied
};

// Chunks of a shared copy: large enough that claiming one (an atomic add) costs nothing beside
// copying it, small enough that the two PEs finish within a chunk of each other.
constexpr std::size_t share_chunk_bytes = 64 * 1024;

// The payload lets go of the loan's bytes: done, and the waiting rank woken.
void release(SendLoan* loan) noexcept;
// The receiver's copy of a loan's `size` bytes from `from` to `to`, shared with the sender's PE
// when it waits for it; returns once every byte is in.
void copy_lent(SendLoan& loan, std::byte* to, const std::byte* from, std::size_t size);

// A payload's heap block of `size` bytes, and its release from any thread (blocks.cpp: up to
// pooled_bytes from the PE's pool, so that PEs exchanging small messages do not contend for the
// C library's locks).
constexpr std::size_t pooled_bytes = 4096;
std::byte* payload_block(std::size_t size);
void free_payload_block(std::byte* block) noexcept;

class Payload {
 public:
  static constexpr std::size_t inline_bytes = 32;

  Payload() = default;
  Payload(const void* data, std::size_t size) { assign(data, size); }
  // `size` bytes read at `data` until settled or destroyed, which releases `loan` (null: the
  // caller settles it before `data` changes).
  // `held`: a receiver that has not posted its receive yet keeps the bytes where they lie
  // (held()) instead of copying them, and the sender waits on (a non-null) `loan` until the
  // receive comes; only for sends whose receives are sure to come (a collective's).
  static Payload borrowed(const void* data, std::size_t size, SendLoan* loan,
                          bool held = false) noexcept {
    Payload p;
    p.size_ = size;
    p.hold_ = Hold::borrowed;
    p.u_.lent.data = static_cast<const std::byte*>(data);
    p.u_.lent.loan = loan;
    p.u_.lent.held = held && loan != nullptr;
    return p;
  }
  Payload(Payload&& other) noexcept { take(other); }
  Payload& operator=(Payload&& other) noexcept {
    if (this != &other) {
      clear();
      take(other);
    }
    return *this;
  }
  Payload(const Payload&) = delete;
  Payload& operator=(const Payload&) = delete;
  ~Payload() { clear(); }

  // The bytes (settled: not incoming).
  const std::byte* data() const {
    switch (hold_) {
      case Hold::heap:
        return u_.heap;
      case Hold::borrowed:
        return u_.lent.data;
      default:
        return u_.bytes;
    }
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Still read in the sender's buffer until its receive (borrowed with `held`).
  bool held() const { return hold_ == Hold::borrowed && u_.lent.held; }

  // Makes the payload own its bytes: copied when borrowed, received when incoming.
  void settle() {
    if (hold_ == Hold::incoming) {
      rt::detail::IncomingBytes bytes = std::move(u_.incoming);
      clear();
      make_room(bytes.size());
      bytes.receive_into(room());
    } else if (hold_ == Hold::borrowed) {
      const Lent lent = u_.lent;
      hold_ = Hold::none;
      make_room(size_);
      if (lent.loan != nullptr) {
        copy_lent(*lent.loan, room(), lent.data, size_);
        release(lent.loan);
      } else if (size_ != 0) {
        std::memcpy(room(), lent.data, size_);
      }
    }
  }

  // Puts the bytes at `to` (size() bytes there), received there straight when incoming; the
  // payload is empty after it.
  void copy_to(void* to) {
    if (hold_ == Hold::incoming) {
      u_.incoming.receive_into(static_cast<std::byte*>(to));
    } else if (hold_ == Hold::borrowed && u_.lent.loan != nullptr) {
      copy_lent(*u_.lent.loan, static_cast<std::byte*>(to), u_.lent.data, size_);
    } else if (size_ != 0) {
      std::memcpy(to, data(), size_);
    }
    clear();
  }

  // Hands the bytes to take(taker, bytes, size) where they lie (received first when incoming);
  // the payload is empty after it.
  void hand_to(void (*take)(void*, const std::byte*, std::size_t), void* taker) {
    if (hold_ == Hold::incoming) settle();
    take(taker, data(), size_);
    clear();
  }

  // For the runtime (vela::rt::detail::DeferrableBytes): a large message between processes of
  // one machine is sent from where its bytes lie and received where the receiver settles it.
  std::span<std::byte> external_bytes() {
    if (hold_ == Hold::incoming) settle();  // forwarded on before it was received here
    return {const_cast<std::byte*>(data()), size_};
  }
  void external_resize(std::size_t size) {
    clear();
    make_room(size);
  }
  void external_defer(rt::detail::IncomingBytes&& bytes) {
    clear();
    size_ = bytes.size();
    ::new (&u_.incoming) rt::detail::IncomingBytes(std::move(bytes));
    hold_ = Hold::incoming;
  }

  // Its length, then its bytes. Inlined: a rank message is sized, packed and unpacked on every
  // send between processes.
  [[gnu::always_inline]] void pup(pup::Archive& ar) {
    std::uint64_t n = size_;
    ar | n;
    if (ar.sizing()) {
      ar.bytes(nullptr, size_);  // counted only
      return;
    }
    if (ar.unpacking()) {
      if (n > ar.remaining()) [[unlikely]]
        ar.fail("rank message longer than its buffer", ar.offset());
      external_resize(static_cast<std::size_t>(n));
      ar.bytes(room(), size_);
      return;
    }
    if (hold_ == Hold::incoming) [[unlikely]]
      settle();
    ar.bytes(const_cast<std::byte*>(data()), size_);
  }

 private:
  // Where the bytes are: in the payload (none: inline, or nothing), in its heap block, in the
  // sender's buffer, or on their way.
  enum class Hold : std::uint8_t { none, heap, borrowed, incoming };
  struct Lent {
    const std::byte* data;
    SendLoan* loan;
    bool held;
  };

  std::byte* room() { return hold_ == Hold::heap ? u_.heap : u_.bytes; }
  // Room for `size` bytes of its own (the payload holds nothing else).
  void make_room(std::size_t size) {
    size_ = size;
    if (size > inline_bytes) {
      u_.heap = payload_block(size);
      hold_ = Hold::heap;
    }
  }
  void assign(const void* data, std::size_t size) {
    make_room(size);
    if (size > 0) std::memcpy(room(), data, size);
  }
  // Back to empty: a heap block freed, a loan released, incoming bytes dropped.
  void clear() noexcept {
    if (hold_ != Hold::none) [[unlikely]]
      let_go();
    size_ = 0;
  }
  // clear() for a payload that holds something.
  [[gnu::noinline]] void let_go() noexcept {
    switch (hold_) {
      case Hold::heap:
        free_payload_block(u_.heap);
        break;
      case Hold::borrowed:
        if (u_.lent.loan != nullptr) release(u_.lent.loan);
        break;
      case Hold::incoming:
        u_.incoming.~IncomingBytes();
        break;
      case Hold::none:
        break;
    }
    hold_ = Hold::none;
  }
  void take(Payload& other) noexcept {
    size_ = other.size_;
    hold_ = other.hold_;
    if (hold_ == Hold::incoming) {
      ::new (&u_.incoming) rt::detail::IncomingBytes(std::move(other.u_.incoming));
      other.u_.incoming.~IncomingBytes();
    } else {
      std::memcpy(static_cast<void*>(&u_), &other.u_, sizeof u_);
    }
    other.hold_ = Hold::none;
    other.size_ = 0;
  }

  std::size_t size_ = 0;
  Hold hold_ = Hold::none;
  union Storage {
    Storage() {}
    ~Storage() {}
    std::byte bytes[inline_bytes];
    std::byte* heap;
    Lent lent;
    rt::detail::IncomingBytes incoming;
  } u_;
};

static_assert(sizeof(Payload) <= 48, "a rank message's arguments fit a runtime message");

}  // namespace vela::vp::detail

// A payload holds its bytes inline, or the addresses of a heap block, a loan or an arrival's
// record, none of which points back at it: a rank message's arguments move between PEs as
// their bytes (vela::rt::relocatable).
template <>
inline constexpr bool vela::rt::relocatable<vela::vp::detail::Payload> = true;
