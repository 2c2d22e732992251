// The PE ring (core/pe_ring.hpp) on its own: messages come out in the order they went in, each
// once, as their image (header and inline arguments) or as the sender's block; the ring refuses
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

// Sender and receiver threads on a ring of `slots`: `total` messages, some as addresses, the
// receiver publishing after every batch; every message once and in order.
void pass_millions(std::uint64_t slots) {
  auto ring = std::make_unique<PeRing>(slots);
  constexpr std::uint64_t total = 2'000'000;
  std::vector<Message> by_address(total / 16 + 1);  // each used once: the receiver reads it
  std::thread sender([&] {
    MessagePool pool;
    for (std::uint64_t n = 0; n < total; ++n) {
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
      if (m->element != next || m->sender != static_cast<std::int64_t>(next) * 3 ||
          m->storage[Message::inline_bytes - 1] !=
              static_cast<std::byte>((next + Message::inline_bytes - 1) & 0xff))
        ++mismatched;
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
