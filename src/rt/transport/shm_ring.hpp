// A single-producer single-consumer ring of variable-length records in memory shared by two
// processes of one machine (an MPI shared-memory window): the fast path of the MPI transport
// between processes on one node. The producer is whoever makes the sending process's MPI
// progress, the consumer whoever makes the receiving one's (one thread at a time on each side,
// src/rt/transport/mpi_transport.cpp), so the ring needs no lock.
//
// A record is an 8-byte header word (payload bytes << 8 | 0x80 | type) and its payload, padded
// to 8 bytes, followed by a zero word until the next record is written there; a record never
// wraps: where the rest of the ring is too short, a pad record fills it and the record starts
// again at the beginning. The producer publishes a record by storing its header (release)
// after its payload and the zero word after it; the consumer frees records by advancing
// `head` (release), which the producer reads only when the ring looks full.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace vela::rt::detail {

class ShmRing {
 public:
  // data: a packed message; bulk: a packed message's size, its bytes following by MPI; typed:
  // an entry message's arguments but their large vectors, whose bytes follow by MPI.
  enum Type : std::uint8_t { pad = 0, data = 1, bulk = 2, typed = 3 };

  // The control block and the data, as laid out in the shared window (`bytes` a power of two).
  struct alignas(64) Control {
    alignas(64) std::atomic<std::uint64_t> head{0};  // written by the consumer
  };
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

  static constexpr std::size_t footprint(std::size_t bytes) { return sizeof(Control) + bytes; }

  // Over `memory` (footprint(bytes) bytes, 64-aligned, zeroed by its owner before use).
  ShmRing(void* memory, std::size_t bytes)
      : control_(static_cast<Control*>(memory)),
        data_(static_cast<std::byte*>(memory) + sizeof(Control)),
        mask_(bytes - 1) {}

  // The largest payload a record can hold (it fits an empty ring wherever the ring starts).
  std::size_t max_payload() const { return (mask_ + 1) / 2 - 2 * word; }

  // Producer: room for a record of `payload` bytes if it fits now (null when the ring is too
  // full), to be filled and then published by commit(); a reservation not committed is
  // forgotten by the next one. Lets the caller pack straight into the ring.
  std::byte* reserve(std::size_t payload) {
    const std::size_t need = word + round_up(payload);
    const std::size_t capacity = mask_ + 1;
    const std::size_t to_end = capacity - (tail_ & mask_);
    // The record and the empty word after it (where the consumer will stop) lie before the
    // end, or the record starts at the beginning behind a pad record to the end.
    const std::size_t skip = need + word > to_end ? to_end : 0;
    const std::size_t room = skip + need + word;
    // The consumer's `head` is read only when the last one read leaves too little room: its
    // cache line then stays with the consumer while the ring has room.
    if (static_cast<std::size_t>(tail_ - head_seen_) + room > capacity) {
      head_seen_ = control_->head.load(std::memory_order_acquire);
      if (static_cast<std::size_t>(tail_ - head_seen_) + room > capacity) return nullptr;
    }
    skip_ = skip;
    reserved_ = payload;
    return data_ + ((tail_ + skip) & mask_) + word;
  }

  // Producer: publishes the record reserve() made room for: first the empty word after it,
  // then its header word (release), then the pad before it if it wrapped.
  void commit(Type type) {
    const std::uint64_t at = tail_ + skip_;
    const std::size_t need = word + round_up(reserved_);
    store_word((at & mask_) + need, 0, std::memory_order_relaxed);
    store_word(at & mask_, header(reserved_, type), std::memory_order_release);
    if (skip_ != 0) store_word(tail_ & mask_, header(skip_ - word, pad), std::memory_order_release);
    tail_ = at + need;
  }

  // Producer: writes a record of `type` whose payload is `first` then `second`, if it fits
  // now; false when the ring is too full (the caller keeps the record and tries again).
  bool try_write(Type type, std::span<const std::byte> first, std::span<const std::byte> second) {
    std::byte* at = reserve(first.size() + second.size());
    if (at == nullptr) return false;
    if (!first.empty()) std::memcpy(at, first.data(), first.size());
    if (!second.empty()) std::memcpy(at + first.size(), second.data(), second.size());
    commit(type);
    return true;
  }

  // Consumer: the next record (pads skipped), its payload valid until pop(); false if none.
  // It looks at one word, the header where the next record will be: the producer makes it zero
  // before it publishes the record before it, so a consumer waiting for a record watches the
  // one cache line the producer will write (no separate tail to read first).
  bool peek(Type& type, std::span<const std::byte>& payload) {
    for (;;) {
      const std::size_t o = head_ & mask_;
      const std::uint64_t w = load_word(o);
      if (w == 0) return false;
      const std::size_t length = static_cast<std::size_t>(w >> 8);
      if (static_cast<Type>(w & 0x7f) == pad) {
        head_ += word + length;
        control_->head.store(head_, std::memory_order_release);
        continue;
      }
      type = static_cast<Type>(w & 0x7f);
      payload = {data_ + o + word, length};
      pending_ = word + round_up(length);
      return true;
    }
  }

  // Consumer: frees the record peek() gave.
  void pop() {
    head_ += pending_;
    pending_ = 0;
    control_->head.store(head_, std::memory_order_release);
  }

  // Consumer: whether no record is waiting.
  bool empty() const { return load_word(head_ & mask_) == 0; }

 private:
  static constexpr std::size_t word = 8;
  static constexpr std::size_t round_up(std::size_t n) { return (n + word - 1) & ~(word - 1); }
  // A header is never zero (bit 7 marks it), so zero means "nothing here yet".
  static constexpr std::uint64_t header(std::size_t length, Type type) {
    return static_cast<std::uint64_t>(length) << 8 | 0x80 | type;
  }
  std::uint64_t load_word(std::size_t offset) const {
    return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(data_ + offset))
        .load(std::memory_order_acquire);
  }
  void store_word(std::size_t offset, std::uint64_t w, std::memory_order order) {
    std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(data_ + offset))
        .store(w, order);
  }

  Control* control_;
  std::byte* data_;
  std::size_t mask_;
  // Producer side.
  std::uint64_t tail_ = 0;       // where the next record goes
  std::uint64_t head_seen_ = 0;  // the consumer's `head` when last read
  std::size_t skip_ = 0;         // the reservation: bytes padded before it, its payload bytes
  std::size_t reserved_ = 0;
  // Consumer side.
  std::uint64_t head_ = 0;  // the next record (published to the producer in `head`)
  std::size_t pending_ = 0;
};

}  // namespace vela::rt::detail
