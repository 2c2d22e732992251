// The shared-memory ring of the MPI transport (transport/shm_ring.hpp), here between two
// threads of one process over ordinary memory: records come out whole, once, in order, across
// many wraps of the ring, and a full ring refuses a record instead of overwriting one.
#include "transport/shm_ring.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

using vela::rt::detail::ShmRing;

// The bytes of record k: its size from a fixed pseudo-random sequence, its content from k.
std::vector<std::byte> record(std::uint32_t k, std::size_t largest) {
  const std::size_t size = (static_cast<std::size_t>(k) * 2654435761u) % (largest + 1);
  std::vector<std::byte> bytes(size);
  for (std::size_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<std::byte>((k * 7 + i * 13) & 0xff);
  }
  return bytes;
}

struct Memory {
  explicit Memory(std::size_t ring_bytes)
      : words(ShmRing::footprint(ring_bytes) / 8 + 8), ring(aligned(), ring_bytes) {}
  void* aligned() {
    auto* at = reinterpret_cast<std::byte*>(words.data());
    at += (64 - reinterpret_cast<std::uintptr_t>(at) % 64) % 64;
    new (at) ShmRing::Control{};
    return at;
  }
  std::vector<std::uint64_t> words;
  ShmRing ring;
};

TEST(ShmRing, AFullRingRefusesARecordAndTakesItOnceThereIsRoom) {
  Memory m(4096);
  ShmRing& ring = m.ring;
  const std::vector<std::byte> big(1000, std::byte{7});
  int written = 0;
  while (ring.try_write(ShmRing::data, big, {})) ++written;
  // Records start on cache lines: 4 of 1008 bytes take 1024 each, the whole ring.
  EXPECT_EQ(written, 4);
  ShmRing::Type type{};
  std::span<const std::byte> payload;
  ASSERT_TRUE(ring.peek(type, payload));
  EXPECT_EQ(type, ShmRing::data);
  EXPECT_EQ(payload.size(), 1000u);
  ring.pop();
  // One of 1100 bytes (1152 with its header and line) does not fit the 1024 freed ...
  const std::vector<std::byte> bigger(1100, std::byte{8});
  EXPECT_FALSE(ring.try_write(ShmRing::bulk, bigger, {}));
  ASSERT_TRUE(ring.peek(type, payload));
  ring.pop();
  EXPECT_TRUE(ring.try_write(ShmRing::bulk, bigger, {}));  // ... and fits the 2048 freed
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(ring.peek(type, payload));
    EXPECT_EQ(type, ShmRing::data);
    ring.pop();
  }
  // The ring now holds the 1152 bytes at its beginning: two more of 1000 fill it up to 896
  // bytes before the end, so the next goes to the beginning behind a pad of those 896, once
  // the record there is read.
  EXPECT_TRUE(ring.try_write(ShmRing::data, big, {}));
  EXPECT_TRUE(ring.try_write(ShmRing::data, big, {}));
  EXPECT_FALSE(ring.try_write(ShmRing::typed, big, {}));
  ASSERT_TRUE(ring.peek(type, payload));
  EXPECT_EQ(type, ShmRing::bulk);
  EXPECT_EQ(std::vector<std::byte>(payload.begin(), payload.end()), bigger);
  ring.pop();
  EXPECT_TRUE(ring.try_write(ShmRing::typed, big, {}));
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(ring.peek(type, payload));
    EXPECT_EQ(type, ShmRing::data);
    ring.pop();
  }
  ASSERT_TRUE(ring.peek(type, payload));  // past the pad
  EXPECT_EQ(type, ShmRing::typed);
  EXPECT_EQ(std::vector<std::byte>(payload.begin(), payload.end()), big);
  ring.pop();
  EXPECT_TRUE(ring.empty());
  EXPECT_FALSE(ring.peek(type, payload));
}

TEST(ShmRing, AnEmptyRecordIsARecordAndTheLargestFitsWhereverTheRingStands) {
  Memory m(256);
  ShmRing& ring = m.ring;
  ShmRing::Type type{};
  std::span<const std::byte> payload;
  // At every start position, an empty record and then the largest one go through.
  for (int start = 0; start < 40; ++start) {
    ASSERT_TRUE(ring.try_write(ShmRing::data, {}, {})) << start;
    ASSERT_FALSE(ring.empty());
    ASSERT_TRUE(ring.peek(type, payload)) << start;
    EXPECT_EQ(payload.size(), 0u);
    ring.pop();
    const std::vector<std::byte> largest(ring.max_payload(), std::byte{9});
    ASSERT_TRUE(ring.try_write(ShmRing::typed, largest, {})) << start;
    ASSERT_TRUE(ring.peek(type, payload)) << start;
    EXPECT_EQ(type, ShmRing::typed);
    EXPECT_EQ(payload.size(), largest.size());
    ring.pop();
    EXPECT_TRUE(ring.empty());
  }
}

TEST(ShmRing, RecordsSplitInTwoPartsComeOutJoined) {
  Memory m(256);
  const std::vector<std::byte> a{std::byte{1}, std::byte{2}, std::byte{3}};
  const std::vector<std::byte> b{std::byte{4}, std::byte{5}};
  ASSERT_TRUE(m.ring.try_write(ShmRing::data, a, b));
  ShmRing::Type type{};
  std::span<const std::byte> payload;
  ASSERT_TRUE(m.ring.peek(type, payload));
  EXPECT_EQ(std::vector<std::byte>(payload.begin(), payload.end()),
            (std::vector<std::byte>{std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4},
                                    std::byte{5}}));
}

TEST(ShmRing, TwoThreadsPassEveryRecordWholeAndInOrderAcrossManyWraps) {
  constexpr std::size_t ring_bytes = 1 << 14;
  Memory m(ring_bytes);
  ShmRing& ring = m.ring;
  const std::size_t largest = ring.max_payload();
  constexpr std::uint32_t records = 20000;  // about 160 MB through a 16 KiB ring
  std::thread producer([&] {
    for (std::uint32_t k = 0; k < records;) {
      const std::vector<std::byte> bytes = record(k, largest);
      if (ring.try_write(ShmRing::data, bytes, {})) {
        ++k;
      } else {
        std::this_thread::yield();
      }
    }
  });
  std::uint32_t bad = 0;
  for (std::uint32_t k = 0; k < records;) {
    ShmRing::Type type{};
    std::span<const std::byte> payload;
    if (!ring.peek(type, payload)) {
      std::this_thread::yield();
      continue;
    }
    const std::vector<std::byte> expected = record(k, largest);
    if (type != ShmRing::data || payload.size() != expected.size() ||
        !std::equal(payload.begin(), payload.end(), expected.begin())) {
      ++bad;
    }
    ring.pop();
    ++k;
  }
  producer.join();
  EXPECT_EQ(bad, 0u);
  EXPECT_TRUE(ring.empty());
}

}  // namespace
