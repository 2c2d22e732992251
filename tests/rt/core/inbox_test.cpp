// The PE inbox (an intrusive multi-producer single-consumer list with a futex park) and the
// message pools, on their own: every node pushed is taken exactly once, each producer's nodes
// in the order it pushed them, whether the owner polls or parks.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "core/inbox.hpp"
#include "core/message.hpp"

namespace {

struct Node {
  Node* next = nullptr;
  std::uint32_t producer = 0;
  std::uint32_t sequence = 0;
};

// `producers` threads push `per_producer` nodes each into one inbox; the owner takes them,
// parking whenever it finds nothing (so the wake-up path runs too).
void stress(std::uint32_t producers, std::uint32_t per_producer, bool pause_producers) {
  vela::rt::detail::Inbox<Node> inbox;
  std::vector<std::unique_ptr<Node[]>> nodes;
  for (std::uint32_t p = 0; p < producers; ++p) {
    nodes.push_back(std::make_unique<Node[]>(per_producer));
    for (std::uint32_t i = 0; i < per_producer; ++i) nodes[p][i] = {nullptr, p, i};
  }
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (std::uint32_t p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      for (std::uint32_t i = 0; i < per_producer; ++i) {
        inbox.push(&nodes[p][i]);
        // Now and then let the owner run dry and park.
        if (pause_producers && i % 4096 == 4095) std::this_thread::yield();
      }
    });
  }
  std::vector<std::uint32_t> next(producers, 0);
  std::uint64_t taken = 0, out_of_order = 0, parks = 0;
  const std::uint64_t total = std::uint64_t{producers} * per_producer;
  while (taken < total) {
    auto batch = inbox.take_all();
    if (batch.count == 0) {
      ++parks;
      inbox.park(stop, nullptr);
      continue;
    }
    std::uint64_t counted = 0;
    for (Node* n = batch.first; n != nullptr; n = n->next) {
      if (n->sequence != next[n->producer]) ++out_of_order;
      next[n->producer] = n->sequence + 1;
      ++counted;
    }
    EXPECT_EQ(counted, batch.count);
    taken += counted;
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(taken, total);
  EXPECT_EQ(out_of_order, 0u);
  for (std::uint32_t p = 0; p < producers; ++p) EXPECT_EQ(next[p], per_producer) << p;
  EXPECT_TRUE(inbox.empty());
  EXPECT_EQ(inbox.take_all().count, 0u);
  ::testing::Test::RecordProperty("parks", static_cast<int>(parks));
}

TEST(Inbox, FourProducersAMillionEachEveryNodeOnceAndInOrder) {
  stress(4, 1'000'000, false);
}

TEST(Inbox, OwnerThatParksIsWokenByTheProducer) {
  stress(4, 200'000, true);
}

TEST(Inbox, WakeEndsAParkWithNothingPushed) {
  vela::rt::detail::Inbox<Node> inbox;
  std::atomic<bool> stop{false};
  std::thread owner([&] { inbox.park(stop, nullptr); });
  // Whether the owner has parked yet or not, stop + wake must end its park.
  stop = true;
  inbox.wake();
  owner.join();
  EXPECT_TRUE(inbox.empty());
}

TEST(Inbox, ParkWithATimeoutReturnsAndLeavesTheInboxUsable) {
  vela::rt::detail::Inbox<Node> inbox;
  std::atomic<bool> stop{false};
  const timespec timeout{0, 1'000'000};  // 1 ms
  inbox.park(stop, &timeout);
  EXPECT_TRUE(inbox.empty());
  Node n;
  inbox.push(&n);
  EXPECT_FALSE(inbox.empty());
  const auto batch = inbox.take_all();
  EXPECT_EQ(batch.count, 1u);
  EXPECT_EQ(batch.first, &n);
}

TEST(MessagePool, BlocksGivenBackFromOtherThreadsAreReused) {
  vela::rt::detail::MessagePool pool;
  std::vector<vela::rt::detail::Message*> taken;
  for (int i = 0; i < 1000; ++i) taken.push_back(pool.take());
  // Take the rest of the blocks it has, so that every block is out.
  const std::size_t blocks = pool.blocks();
  EXPECT_GE(blocks, 1000u);
  while (taken.size() < blocks) taken.push_back(pool.take());
  EXPECT_EQ(pool.blocks(), blocks);
  // Another thread gives half of them back, this thread the other half.
  std::thread other([&] {
    for (std::size_t i = 0; i < taken.size(); i += 2) pool.give_back_remote(taken[i]);
  });
  other.join();
  for (std::size_t i = 1; i < taken.size(); i += 2) pool.give_back_local(taken[i]);
  // Taking them all again needs no new block.
  std::vector<vela::rt::detail::Message*> again;
  for (std::size_t i = 0; i < blocks; ++i) again.push_back(pool.take());
  EXPECT_EQ(pool.blocks(), blocks);
  std::sort(taken.begin(), taken.end());
  std::sort(again.begin(), again.end());
  EXPECT_EQ(taken, again);
}

}  // namespace
