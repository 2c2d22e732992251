// A single-producer single-consumer ring of variable-length records in memory shared by two
// processes of one machine (an MPI shared-memory window): the fast path of the MPI transport
// between processes on one node. The producer is whoever makes the sending process's MPI
// progress, the consumer whoever makes the receiving one's (one thread at a time on each side,
// src/rt/transport/mpi_transport.cpp), so the ring needs no lock: the producer publishes a
// record by advancing `tail` (release), the consumer frees it by advancing `head` (release).
//
// A record is an 8-byte word (payload bytes << 8 | type) and its payload, padded to 8 bytes;
// a record never wraps: where the rest of the ring is too short, a pad record fills it and
// the record starts again at the beginning.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace vela::rt::detail {

class ShmRing {
 public:
  enum Type : std::uint8_t { pad = 0, data = 1, bulk = 2 };

  // The control block and the data, as laid out in the shared window (`bytes` a power of two).
  struct alignas(64) Control {
    alignas(64) std::atomic<std::uint64_t> tail{0};  // written by the producer
    alignas(64) std::atomic<std::uint64_t> head{0};  // written by the consumer
  };
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

  static constexpr std::size_t footprint(std::size_t bytes) { return sizeof(Control) + bytes; }

  // Over `memory` (footprint(bytes) bytes, 64-aligned, zeroed by its owner before use).
  ShmRing(void* memory, std::size_t bytes)
      : control_(static_cast<Control*>(memory)),
        data_(static_cast<std::byte*>(memory) + sizeof(Control)),
        mask_(bytes - 1) {}

  // The largest payload a record can hold.
  std::size_t max_payload() const { return (mask_ + 1) / 2 - word; }

  // Producer: room for a record of `payload` bytes if it fits now (null when the ring is too
  // full), to be filled and then published by commit(); a reservation not committed is
  // forgotten by the next one. Lets the caller pack straight into the ring.
  std::byte* reserve(std::size_t payload) {
    const std::size_t need = word + round_up(payload);
    const std::uint64_t tail = control_->tail.load(std::memory_order_relaxed);
    const std::size_t capacity = mask_ + 1;
    const std::size_t offset = tail & mask_;
    const std::size_t to_end = capacity - offset;
    // A record that would cross the end waits behind a pad record to the end.
    const std::size_t skip = need > to_end ? to_end : 0;
    // The consumer's `head` is read only when the last one read leaves too little room: its
    // cache line then stays with the consumer while the ring has room.
    if (static_cast<std::size_t>(tail - head_seen_) + skip + need > capacity) {
      head_seen_ = control_->head.load(std::memory_order_acquire);
      if (static_cast<std::size_t>(tail - head_seen_) + skip + need > capacity) return nullptr;
    }
    if (skip != 0) put_word(offset, static_cast<std::uint64_t>(to_end - word) << 8 | pad);
    reserved_at_ = tail + skip;
    reserved_ = payload;
    return data_ + (reserved_at_ & mask_) + word;
  }

  // Producer: publishes the record reserve() made room for.
  void commit(Type type) {
    put_word(reserved_at_ & mask_, static_cast<std::uint64_t>(reserved_) << 8 | type);
    control_->tail.store(reserved_at_ + word + round_up(reserved_), std::memory_order_release);
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
  bool peek(Type& type, std::span<const std::byte>& payload) {
    for (;;) {
      const std::uint64_t head = control_->head.load(std::memory_order_relaxed);
      // The producer's `tail` is read only when what the last read published is all taken.
      if (head == tail_seen_) {
        // The next record's first line, fetched while `tail` is: when both changed, the two
        // transfers from the producer's core overlap instead of following one another.
        __builtin_prefetch(data_ + (head & mask_));
        tail_seen_ = control_->tail.load(std::memory_order_acquire);
        if (head == tail_seen_) return false;
      }
      const std::size_t o = head & mask_;
      std::uint64_t w = 0;
      std::memcpy(&w, data_ + o, word);
      const std::size_t length = static_cast<std::size_t>(w >> 8);
      if (static_cast<Type>(w & 0xff) == pad) {
        control_->head.store(head + word + length, std::memory_order_release);
        continue;
      }
      type = static_cast<Type>(w & 0xff);
      payload = {data_ + o + word, length};
      pending_ = word + round_up(length);
      return true;
    }
  }

  // Consumer: frees the record peek() gave.
  void pop() {
    const std::uint64_t head = control_->head.load(std::memory_order_relaxed);
    control_->head.store(head + pending_, std::memory_order_release);
    pending_ = 0;
  }

  bool empty() const {
    return control_->head.load(std::memory_order_acquire) ==
           control_->tail.load(std::memory_order_acquire);
  }

 private:
  static constexpr std::size_t word = 8;
  static constexpr std::size_t round_up(std::size_t n) { return (n + word - 1) & ~(word - 1); }
  void put_word(std::size_t offset, std::uint64_t w) { std::memcpy(data_ + offset, &w, word); }

  Control* control_;
  std::byte* data_;
  std::size_t mask_;
  std::size_t pending_ = 0;
  std::uint64_t head_seen_ = 0;    // producer: `head` when last read
  std::uint64_t tail_seen_ = 0;    // consumer: `tail` when last read
  std::uint64_t reserved_at_ = 0;  // producer: the record reserve() made room for
  std::size_t reserved_ = 0;
};

}  // namespace vela::rt::detail
