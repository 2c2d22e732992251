// The PE ring (core/pe_ring.hpp) on its own: messages come out in the order they went in, each
// once, as their image (header and inline arguments), as the sender's block or, from a compact
// slot, as a message with its packed arguments inline; the ring refuses
// a message when every slot is untaken and takes again once the receiver published; and a
// sender and a receiver on two threads pass millions through rings of 8 to 128 slots, in order,
// over many laps; and the rings between every pair of up to 128 PEs fit 64 MiB.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "core/message.hpp"
#include "core/pe_ring.hpp"

namespace {

using vela::rt::detail::Kind;
using vela::rt::detail::Message;
using vela::rt::detail::MessagePool;
using vela::rt::detail::PeRing;

// A message whose header and inline bytes all say `n`.
void fill(Message& m, std::uint64_t n) {
  m.element = n;
  m.sender = static_cast<std::int64_t>(n) * 3;
  m.collection = static_cast<std::uint32_t>(n);
  m.handler = static_cast<std::uint32_t>(n + 1);
  m.priority = static_cast<int>(n % 7);
  m.hops = static_cast<std::uint32_t>(n % 5);
  m.broadcast = n % 2 == 1;
  for (std::size_t i = 0; i < Message::inline_bytes; ++i)
    m.storage[i] = static_cast<std::byte>((n + i) & 0xff);
}

void expect_filled(const Message& m, std::uint64_t n) {
  EXPECT_EQ(m.element, n);
  EXPECT_EQ(m.sender, static_cast<std::int64_t>(n) * 3);
  EXPECT_EQ(m.collection, static_cast<std::uint32_t>(n));
  EXPECT_EQ(m.handler, static_cast<std::uint32_t>(n + 1));
  EXPECT_EQ(m.priority, static_cast<int>(n % 7));
  EXPECT_EQ(m.hops, static_cast<std::uint32_t>(n % 5));
  EXPECT_EQ(m.broadcast, n % 2 == 1);
  for (std::size_t i = 0; i < Message::inline_bytes; ++i)
    ASSERT_EQ(m.storage[i], static_cast<std::byte>((n + i) & 0xff)) << "byte " << i;
}

TEST(PeRing, ImagesAndAddressesComeOutInOrderIntoTheReceiversBlocks) {
  auto ring = std::make_unique<PeRing>(128);
  MessagePool sender_pool, receiver_pool;
  std::vector<Message*> sent;
  for (std::uint64_t n = 0; n < 10; ++n) {
    Message* m = sender_pool.take();
    fill(*m, n);
    const bool image = n % 3 != 0;
    ASSERT_TRUE(ring->put(m, image));
    sent.push_back(image ? nullptr : m);  // an image's block is the sender's again
  }
  for (std::uint64_t n = 0; n < 10; ++n) {
    ASSERT_TRUE(ring->ready());
    Message* m = ring->take(receiver_pool);
    ASSERT_NE(m, nullptr);
    expect_filled(*m, n);
    EXPECT_EQ(m->next, nullptr);
    if (sent[n] != nullptr) {
      EXPECT_EQ(m, sent[n]) << "an address comes out as the sender's block";
      EXPECT_EQ(m->pool, &sender_pool);
    } else {
      EXPECT_EQ(m->pool, &receiver_pool) << "an image comes out in the receiver's block";
    }
  }
  EXPECT_FALSE(ring->ready());
  EXPECT_EQ(ring->take(receiver_pool), nullptr);
}

// A compact header and `size` packed bytes that all say `n`.
PeRing::Compact compact_for(std::uint64_t n, std::size_t size, std::byte* args) {
  PeRing::Compact h{};
  h.element = static_cast<std::uint32_t>(n);
  h.sender = n % 4 == 0 ? -1 : static_cast<std::int32_t>(n * 3);
  h.collection = static_cast<std::uint16_t>(n % 60000);
  h.handler = static_cast<std::uint16_t>(n % 60000 + 1);
  h.origin = static_cast<std::int16_t>(static_cast<int>(n % 5) - 2);
  h.priority = static_cast<std::int16_t>(-static_cast<int>(n % 7));
  h.size = static_cast<std::uint8_t>(size);
  h.flags = n % 2 == 1 ? PeRing::compact_broadcast : 0;
  for (std::size_t k = 0; k < size; ++k) args[k] = static_cast<std::byte>((n * 7 + k) & 0xff);
  return h;
}

void expect_compact(Message& m, std::uint64_t n, std::size_t size) {
  EXPECT_EQ(m.ops, &vela::rt::detail::inline_args);
  EXPECT_EQ(m.kind, Kind::entry);
  EXPECT_FALSE(m.args_on_heap);
  EXPECT_FALSE(m.wan);
  EXPECT_EQ(m.hops, 0u);
  EXPECT_EQ(m.element, n);
  EXPECT_EQ(m.sender, n % 4 == 0 ? -1 : static_cast<std::int64_t>(n * 3));
  EXPECT_EQ(m.collection, n % 60000);
  EXPECT_EQ(m.handler, n % 60000 + 1);
  EXPECT_EQ(m.origin, static_cast<int>(n % 5) - 2);
  EXPECT_EQ(m.priority, -static_cast<int>(n % 7));
  EXPECT_EQ(m.broadcast, n % 2 == 1);
  const auto bytes = m.payload();
  ASSERT_EQ(bytes.size(), size);
  for (std::size_t k = 0; k < size; ++k)
    ASSERT_EQ(bytes[k], static_cast<std::byte>((n * 7 + k) & 0xff)) << "byte " << k;
}

TEST(PeRing, CompactMessagesComeOutInOrderWithTheirArgumentsPackedInline) {
  auto ring = std::make_unique<PeRing>(8);
  MessagePool sender_pool, receiver_pool;
  // Three laps of an 8-slot ring: compact slots (every size up to the most), images and
  // addresses in turn, each slot reused by another form on the next lap.
  std::vector<Message> by_address(30);
  std::uint64_t taken = 0;
  for (std::uint64_t n = 0; n < 30; ++n) {
    if (n % 3 == 0) {
      std::byte args[PeRing::compact_bytes];
      const std::size_t size = (n * 5) % (PeRing::compact_bytes + 1);
      ASSERT_TRUE(ring->put_compact(compact_for(n, size, args), args)) << n;
    } else {
      Message* m = n % 3 == 1 ? sender_pool.take() : &by_address[n];
      fill(*m, n);
      ASSERT_TRUE(ring->put(m, n % 3 == 1)) << n;
      if (n % 3 == 1) sender_pool.give_back_local(m);
    }
    if (n % 8 == 7 || n == 29) {
      for (; taken <= n; ++taken) {
        Message* m = ring->take(receiver_pool);
        ASSERT_NE(m, nullptr) << taken;
        if (taken % 3 == 0) {
          expect_compact(*m, taken, (taken * 5) % (PeRing::compact_bytes + 1));
        } else {
          expect_filled(*m, taken);
        }
        if (m->pool == &receiver_pool) receiver_pool.give_back_local(m);
      }
      ring->publish();
    }
  }
  EXPECT_EQ(taken, 30u);
  EXPECT_FALSE(ring->ready());
}

TEST(PeRing, AFullRingRefusesUntilTheReceiverPublishes) {
  auto ring = std::make_unique<PeRing>(128);
  MessagePool pool;
  Message m;
  for (std::uint64_t n = 0; n < ring->capacity(); ++n) {
    fill(m, n);
    ASSERT_TRUE(ring->put(&m, true)) << n;
  }
  fill(m, ring->capacity());
  EXPECT_FALSE(ring->put(&m, true));
  // Taken but not published: still full for the sender.
  Message* first = ring->take(pool);
  ASSERT_NE(first, nullptr);
  expect_filled(*first, 0);
  EXPECT_FALSE(ring->put(&m, true));
  ring->publish();
  EXPECT_TRUE(ring->put(&m, true));
  EXPECT_FALSE(ring->put(&m, true));
  for (std::uint64_t n = 1; n <= ring->capacity(); ++n) {
    Message* got = ring->take(pool);
    ASSERT_NE(got, nullptr) << n;
    expect_filled(*got, n);
  }
  EXPECT_EQ(ring->take(pool), nullptr);
}

// Sender and receiver threads on a ring of `slots`: `total` messages, some as addresses or compact,
// the receiver publishing after every batch; every message once and in order.
void pass_millions(std::uint64_t slots) {
  auto ring = std::make_unique<PeRing>(slots);
  constexpr std::uint64_t total = 2'000'000;
  std::vector<Message> by_address(total / 16 + 1);  // each used once: the receiver reads it
  std::thread sender([&] {
    MessagePool pool;
    for (std::uint64_t n = 0; n < total; ++n) {
      if (n % 16 == 9) {
        std::byte args[PeRing::compact_bytes];
        const PeRing::Compact h = compact_for(n, n % (PeRing::compact_bytes + 1), args);
        while (!ring->put_compact(h, args)) std::this_thread::yield();
        continue;
      }
      const bool image = n % 16 != 5;
      Message* m = image ? pool.take() : &by_address[n / 16];
      fill(*m, n);
      while (!ring->put(m, image)) std::this_thread::yield();  // full: the receiver takes
      if (image) pool.give_back_local(m);
    }
  });
  MessagePool pool;
  std::uint64_t next = 0, mismatched = 0;
  while (next < total) {
    std::uint64_t batch = 0;
    while (Message* m = ring->take(pool)) {
      if (next % 16 == 9) {
        const auto bytes = m->payload();
        const std::size_t size = next % (PeRing::compact_bytes + 1);
        if (m->element != (next & 0xffffffffu) || bytes.size() != size ||
            (size > 0 && bytes[size - 1] != static_cast<std::byte>((next * 7 + size - 1) & 0xff)))
          ++mismatched;
      } else if (m->element != next || m->sender != static_cast<std::int64_t>(next) * 3 ||
                 m->storage[Message::inline_bytes - 1] !=
                     static_cast<std::byte>((next + Message::inline_bytes - 1) & 0xff)) {
        ++mismatched;
      }
      if (m->pool == &pool) pool.give_back_local(m);
      ++next;
      ++batch;
    }
    if (batch > 0) ring->publish();
  }
  sender.join();
  EXPECT_EQ(next, total);
  EXPECT_EQ(mismatched, 0u);
  EXPECT_FALSE(ring->ready());
  EXPECT_EQ(ring->capacity(), slots);
}

TEST(PeRing, TwoThreadsPassMillionsInOrderOverManyLaps) {
  for (const std::uint64_t slots : {8u, 32u, 128u}) pass_millions(slots);
}

TEST(PeRing, RingsBetweenEveryPairOfPesStayWithinTheirBudget) {
  using vela::rt::detail::ring_slots;
  for (std::size_t pes = 1; pes <= 256; ++pes) {
    const std::uint64_t slots = ring_slots(pes);
    EXPECT_GE(slots, 8u) << pes;
    EXPECT_EQ(slots & (slots - 1), 0u) << pes << " PEs: not a power of two";
    // Up to 128 PEs, the rings of every ordered pair take at most 64 MiB.
    if (pes <= 128) {
      EXPECT_LE(pes * (pes - 1) * slots * sizeof(Message), std::size_t{64} << 20) << pes;
    }
  }
}

}  // namespace
