// A single-producer single-consumer ring of variable-length records in memory shared by two
// processes of one machine (an MPI shared-memory window): the fast path of the MPI transport
// between processes on one node. The producer is whoever makes the sending process's MPI
// progress, the consumer whoever makes the receiving one's (one thread at a time on each side,
// src/rt/transport/impl.hpp), so the ring needs no lock.
//
// A record is an 8-byte header word (payload bytes << 8 | 0x80 | type) and its payload, and
// starts on a cache line (a small record fills one line, which crosses from the writer's core to
// the reader's whole); a record never wraps: where the rest of the ring is too short, a pad
// record fills it and the record starts again at the beginning.
//
// The consumer, waiting for the next record, watches the word where its header will be, which
// must read zero until the record is published. The consumer zeroes the header of each record
// it frees; the producer remembers which lines' first words its payloads overwrote ("stale")
// and, when a record ends where such a line begins, zeroes that word before it publishes the
// record (its header stored last, release). A stream of small records therefore touches one
// line each, and a large one costs one extra store, not one per line. The consumer frees
// records by advancing `head` (release), which the producer reads only when the ring looks full.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

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

  // Over `memory` (footprint(bytes) bytes, 64-aligned, zeroed by its owner before use; `bytes`
  // a power of two, at least two lines).
  ShmRing(void* memory, std::size_t bytes)
      : control_(static_cast<Control*>(memory)),
        data_(static_cast<std::byte*>(memory) + sizeof(Control)),
        mask_(bytes - 1),
        stale_((bytes / line + 63) / 64, 0) {}

  // The largest payload a record can hold (it fits an empty ring wherever the ring starts).
  std::size_t max_payload() const { return (mask_ + 1) / 2 - 2 * word; }

  // Producer: room for a record of `payload` bytes if it fits now (null when the ring is too
  // full), to be filled and then published by commit(); a reservation not committed is
  // forgotten by the next one. Lets the caller pack straight into the ring.
  std::byte* reserve(std::size_t payload) {
    const std::size_t need = round_up(word + payload);
    const std::size_t capacity = mask_ + 1;
    const std::size_t to_end = capacity - (tail_ & mask_);
    // The record lies before the end, or starts at the beginning behind a pad record to the
    // end.
    const std::size_t skip = need > to_end ? to_end : 0;
    const std::size_t room = skip + need;
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

  // Producer: publishes the record reserve() made room for: zeroes the first word of the line
  // after it if a payload left something there, stores its header (release), then the pad
  // before it if it wrapped (last: a consumer past the pad finds the record's header there).
  void commit(Type type) {
    const std::uint64_t at = tail_ + skip_;
    const std::size_t first = (at & mask_) / line;
    const std::size_t lines = round_up(word + reserved_) / line;
    // The line after the record is free, or the oldest record's (its header: not stale).
    const std::size_t next = (first + lines) & (mask_ / line);
    if (is_stale(next)) {
      store_word(next * line, 0, std::memory_order_relaxed);
      mark_stale(next, false);
    }
    mark_stale_lines(first + 1, first + lines);
    mark_stale(first, false);  // its header: zeroed by the consumer when it frees it
    store_word(at & mask_, header(reserved_, type), std::memory_order_release);
    if (skip_ != 0) {
      const std::size_t pad_line = (tail_ & mask_) / line;
      mark_stale(pad_line, false);
      store_word(tail_ & mask_, header(skip_ - word, pad), std::memory_order_release);
    }
    tail_ = at + lines * line;
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
      const std::size_t o = head_ & mask_;
      const std::uint64_t w = load_word(o);
      if (w == 0) return false;
      const std::size_t length = static_cast<std::size_t>(w >> 8);
      if (static_cast<Type>(w & 0x7f) == pad) {
        store_word(o, 0, std::memory_order_relaxed);
        head_ += word + length;
        control_->head.store(head_, std::memory_order_release);
        continue;
      }
      type = static_cast<Type>(w & 0x7f);
      payload = {data_ + o + word, length};
      pending_ = round_up(word + length);
      return true;
    }
  }

  // Consumer: frees the record peek() gave (its header zeroed).
  void pop() {
    store_word(head_ & mask_, 0, std::memory_order_relaxed);
    head_ += pending_;
    pending_ = 0;
    control_->head.store(head_, std::memory_order_release);
  }

  // Consumer: whether no record is waiting.
  bool empty() const { return load_word(head_ & mask_) == 0; }

 private:
  static constexpr std::size_t word = 8;
  static constexpr std::size_t line = 64;
  static constexpr std::size_t round_up(std::size_t n) { return (n + line - 1) & ~(line - 1); }
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

  bool is_stale(std::size_t l) const { return (stale_[l / 64] >> (l % 64) & 1) != 0; }
  void mark_stale(std::size_t l, bool stale) {
    const std::uint64_t bit = std::uint64_t{1} << (l % 64);
    stale_[l / 64] = stale ? stale_[l / 64] | bit : stale_[l / 64] & ~bit;
  }

  // Lines [from, to) (within the ring: records never wrap) marked stale, a word at a time.
  void mark_stale_lines(std::size_t from, std::size_t to) {
    while (from < to) {
      const std::size_t bit = from % 64;
      const std::size_t n = std::min<std::size_t>(64 - bit, to - from);
      const std::uint64_t bits = n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1) << bit;
      stale_[from / 64] |= bits;
      from += n;
    }
  }

  Control* control_;
  std::byte* data_;
  std::size_t mask_;
  std::vector<std::uint64_t> stale_;  // producer: lines whose first word a payload overwrote
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
