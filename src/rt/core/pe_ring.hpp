// Entry messages from one PE to another of the same process: a single-producer single-consumer
// ring of 128-byte slots (docs/architecture.md, "PE rings").
//
// A slot holds a message's image (its header and inline arguments, copied) or, for arguments
// that may not move as their bytes (vela::rt::relocatable), the message's address; or, for an
// entry message whose arguments take a few dozen bytes (an element's int, a small rank
// message), its compact form in the first line alone: a short header and the arguments' bytes
// (or, when those do not fit, their packed form), which the receiver makes into a message with
// those arguments inline (packed ones as for a small arrival from another process). The sender
// writes the slot, then its sequence number; the receiver polls the next slot's number, copies the
// image into a block of its own pool and later tells the sender how far it has taken. A message
// between two PEs then moves the slot's two lines (one, compact) from the sender's core to the
// receiver's and nothing else: no shared list head taken with a compare-and-swap, no block read
// from the sender's cache and handed back to its pool afterwards.
//
// Invariants:
// - One sending thread (the PE that made the ring) and one receiving thread (its target).
// - Slot k of lap L holds sequence number L * capacity + k + 1 in each of its two lines once
//   written (in the first only, with by_address or compact set, when it holds an address or a
//   compact message); the receiver
//   takes slots in order, so the messages of one pair of PEs arrive in the order they were sent.
// - The sender writes slot `tail` only when tail < taken + capacity, `taken` being what the
//   receiver published after copying the slots out: it never overwrites one not yet taken.
// Costs: put and take O(1), a 112-byte copy each (compact: packing and unpacking at most
// compact_bytes); `taken` published once per batch taken, read
// by the sender only when the ring looks full. 16 KiB per ordered pair of PEs that exchanged a
// message (8 KiB from 17 PEs on, 4 KiB from 33: ring_slots()).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "core/message.hpp"

namespace vela::rt::detail {

class PeRing {
 public:
  // `slots`: a power of two, at least 8 (ring_slots()).
  explicit PeRing(std::uint64_t slots)
      : mask_(slots - 1), slots_(std::make_unique<Slot[]>(slots)), room_until_(slots) {}

  std::uint64_t capacity() const { return mask_ + 1; }

  // A message's header in a compact slot (the rest of the first line: its arguments); packed,
  // read and written with memcpy only.
  struct [[gnu::packed]] Compact {
    std::uint32_t element;
    std::int32_t sender;
    std::uint16_t collection;
    std::uint16_t handler;
    std::int16_t origin;
    std::int16_t priority;
    std::uint8_t size;   // bytes of arguments
    std::uint8_t flags;  // broadcast, raw
  };
  // A compact header for these fields (size and flags left to the caller); false when one of
  // them does not fit its narrower field (a forwarded message, an element index above 2^32,
  // a PE above 32,767).
  static bool compact_fields(Compact& h, std::uint64_t element, std::int64_t sender,
                             std::uint32_t collection, std::uint32_t handler, std::int64_t origin,
                             std::int64_t priority) {
    if (element > UINT32_MAX || sender < INT32_MIN || sender > INT32_MAX ||
        collection > UINT16_MAX || handler > UINT16_MAX || origin < INT16_MIN ||
        origin > INT16_MAX || priority < INT16_MIN || priority > INT16_MAX) {
      return false;
    }
    h.element = static_cast<std::uint32_t>(element);
    h.sender = static_cast<std::int32_t>(sender);
    h.collection = static_cast<std::uint16_t>(collection);
    h.handler = static_cast<std::uint16_t>(handler);
    h.origin = static_cast<std::int16_t>(origin);
    h.priority = static_cast<std::int16_t>(priority);
    return true;
  }
  static constexpr std::uint8_t compact_broadcast = 1;
  // The arguments as their bytes (relocatable, ArgsOps of the handler), else packed.
  static constexpr std::uint8_t compact_raw = 2;
  // Bytes of arguments a compact slot holds at most.
  static constexpr std::size_t compact_bytes = 56 - sizeof(Compact);

  // Sender's thread. Whether a compact message went in (false: full): `header`, then its
  // header.size bytes of arguments from `args` (packed, or their bytes when compact_raw).
  // `args` must have compact_bytes readable: the line is copied whole, a fixed-size copy the
  // compiler inlines (a copy of header.size bytes is a call to memcpy at each end).
  bool put_compact(const Compact& header, const std::byte* args) {
    Slot* claimed = claim();
    if (claimed == nullptr) return false;
    Slot& slot = *claimed;
    std::memcpy(slot.first, &header, sizeof header);
    std::memcpy(slot.first + sizeof header, args, compact_bytes);
    slot.seq_first.store(tail_ | compact, std::memory_order_seq_cst);
    return true;
  }

  // Sender's thread. Whether `m` went in (false: full). `by_value`: its image was copied and the
  // caller forgets the block without destroying its arguments; else the ring holds its address.
  bool put(Message* m, bool by_value) {
    Slot* claimed = claim();
    if (claimed == nullptr) return false;
    Slot& slot = *claimed;
    if (by_value) {
      const auto* bytes = reinterpret_cast<const std::byte*>(m);
      std::memcpy(slot.first, bytes + image_offset, sizeof slot.first);
      std::memcpy(slot.second, bytes + image_offset + sizeof slot.first, sizeof slot.second);
      slot.seq_first.store(tail_, std::memory_order_release);
      // Sequentially consistent, as the sender's look at whether the receiver sleeps after it
      // and the receiver's look here after saying so (core/pe_ring.cpp).
      slot.seq_second.store(tail_, std::memory_order_seq_cst);
    } else {
      std::memcpy(slot.first, &m, sizeof m);
      slot.seq_first.store(tail_ | by_address, std::memory_order_seq_cst);
    }
    return true;
  }

  // Receiver's thread: whether a message waits.
  bool ready() const { return complete(slots_[head_ & mask_]); }

  // Receiver's thread: the next message, in a block of `pool` when it came as its image or
  // compact; null when none waits.
  Message* take(MessagePool& pool) {
    const Slot& slot = slots_[head_ & mask_];
    if (!complete(slot)) return nullptr;
    Message* m = nullptr;
    const std::uint64_t first = slot.seq_first.load(std::memory_order_relaxed);
    if ((first & compact) != 0) {
      m = pool.take();
      from_compact(*m, slot.first);
    } else if ((first & by_address) != 0) {
      std::memcpy(&m, slot.first, sizeof m);
    } else {
      m = pool.take();
      auto* bytes = reinterpret_cast<std::byte*>(m);
      std::memcpy(bytes + image_offset, slot.first, sizeof slot.first);
      std::memcpy(bytes + image_offset + sizeof slot.first, slot.second, sizeof slot.second);
    }
    m->next = nullptr;
    ++head_;
    return m;
  }

  // Receiver's thread: lets the sender reuse the slots taken so far.
  void publish() { taken_.store(head_, std::memory_order_release); }

  // Receiver's thread: the first line of the next message when it waits in compact form (its
  // Compact header, then compact_bytes of arguments); null when none waits or it came whole or
  // by address. skip() then takes it without a block: its line must be copied out first (the
  // sender may write the slot again once publish() says so).
  const std::byte* next_compact() const {
    const Slot& slot = slots_[head_ & mask_];
    if (slot.seq_first.load(std::memory_order_seq_cst) != ((head_ + 1) | compact)) return nullptr;
    return slot.first;
  }
  void skip() { ++head_; }

 private:
  static constexpr std::uint64_t by_address = std::uint64_t{1} << 63;
  static constexpr std::uint64_t compact = std::uint64_t{1} << 62;

  // A message made from a compact slot's line: its arguments inline, as their bytes or packed.
  static void from_compact(Message& m, const std::byte* line) {
    Compact h;
    std::memcpy(&h, line, sizeof h);
    set_address(m, h);
    m.hops = 0;
    m.kind = Kind::entry;
    m.args_on_heap = false;
    m.wan = false;
    m.broadcast = (h.flags & compact_broadcast) != 0;
    if ((h.flags & compact_raw) != 0) {
      m.ops = handler_ops(h.handler);
      std::memcpy(m.storage, line + sizeof h, compact_bytes);  // whole: see put_compact
      return;
    }
    auto* args = ::new (m.storage) InlineBytes;
    args->size = h.size;
    std::memcpy(args->data, line + sizeof h, compact_bytes);
    m.ops = &inline_args;
  }
  // The image leaves out `next` and `pool` (the receiver's block keeps its own).
  static constexpr std::size_t image_offset = 2 * sizeof(Message*);
  static constexpr std::size_t image_bytes = sizeof(Message) - image_offset;

  // Two lines, each with its own copy of the sequence number: the receiver reads both numbers
  // in one look, so that both lines come from the sender's core at once.
  struct alignas(128) Slot {
    std::atomic<std::uint64_t> seq_first{0};
    std::byte first[image_bytes / 2];
    std::byte second[image_bytes / 2];
    std::atomic<std::uint64_t> seq_second{0};
  };
  static_assert(sizeof(Slot) == sizeof(Message));
  static_assert(offsetof(Slot, second) == 64);
  static_assert(sizeof(Slot::first) == 56 && compact_bytes <= InlineBytes::capacity);
  static_assert(sizeof(Compact) == 18 && compact_bytes == 38);

  static constexpr std::uint64_t own_ahead_by = 4;

  // Sender's thread: the next slot to write (tail_ counts it), or null when the ring is full.
  // A slot a few messages on is asked for ahead of its write: in a stream the receiver read its
  // lines a lap ago, and taking them back at the write stalls the sequentially consistent store
  // for a line's trip between the cores (BM_Flood: 14-17 M messages/s without, 17-19 with).
  Slot* claim() {
    if (tail_ == room_until_) {
      room_until_ = taken_.load(std::memory_order_acquire) + capacity();
      if (tail_ == room_until_) return nullptr;
    }
    Slot* slot = &slots_[tail_ & mask_];
    own_ahead(slots_[(tail_ + own_ahead_by) & mask_]);
    ++tail_;
    return slot;
  }

  // Both lines of `slot` asked for writing (PREFETCHW, a no-op on CPUs without it).
  static void own_ahead(Slot& slot) {
#if defined(__x86_64__)
    asm volatile("prefetchw %0" ::"m"(*reinterpret_cast<const char*>(&slot)));
    asm volatile("prefetchw %0" ::"m"(*(reinterpret_cast<const char*>(&slot) + 64)));
#else
    __builtin_prefetch(&slot, 1);
    __builtin_prefetch(reinterpret_cast<const char*>(&slot) + 64, 1);
#endif
  }

  // Slot k of lap L is complete once both numbers are L * capacity + k + 1 (or the first one
  // is that with by_address or compact set: those need the first line only).
  // The second line is read only when the first does not complete the slot alone: a compact
  // stream then never takes the line the sender owns ahead back to the receiver's core (a
  // receiver waiting on an empty slot still asks for both lines at once).
  bool complete(const Slot& slot) const {
    const std::uint64_t first = slot.seq_first.load(std::memory_order_seq_cst);
    if (first == ((head_ + 1) | compact) || first == ((head_ + 1) | by_address)) return true;
    return first == head_ + 1 && slot.seq_second.load(std::memory_order_seq_cst) == head_ + 1;
  }

  // Read by both ends, written by neither after the start: a line of its own, never taken
  // away from either core (beside tail_, every message would move it).
  alignas(64) std::uint64_t mask_;
  std::unique_ptr<Slot[]> slots_;
  // The sender's line.
  alignas(64) std::uint64_t tail_ = 0;  // messages put
  std::uint64_t room_until_;            // put needs no look at taken_ below this
  // The receiver's line.
  alignas(64) std::uint64_t head_ = 0;   // messages taken
  std::atomic<std::uint64_t> taken_{0};  // head_ as last published
};

// Slots of each ring among `pes` PEs of a process: 128 up to 16 PEs, then fewer, so that rings
// between every pair of 128 PEs take 64 MiB, not 254 (a program whose PEs talk to a few
// neighbours makes only those rings).
inline std::uint64_t ring_slots(std::size_t pes) {
  if (pes <= 16) return 128;
  if (pes <= 32) return 64;
  return 32;
}

}  // namespace vela::rt::detail
