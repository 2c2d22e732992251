// Rank stacks: one reserved range, a fixed slot per rank, a guard page below each stack.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "memory/stacks.hpp"
#include "vela/vp/vp.hpp"

namespace {

using vela::vp::detail::heap_owning;
using vela::vp::detail::SlotHeap;
using vela::vp::detail::StackRange;

TEST(Stacks, SlotsAreFixedAndSeparatedByGuardPages) {
  StackRange range(4, 64 * 1024);
  EXPECT_EQ(range.stack_bytes(), 64u * 1024u);
  auto* a = static_cast<std::byte*>(range.open(1));
  auto* b = static_cast<std::byte*>(range.open(2));
  // Slot r always sits at the same place: a guard page, then the stack.
  EXPECT_EQ(b - a, static_cast<std::ptrdiff_t>(range.stack_bytes() + 4096));
  std::memset(a, 1, range.stack_bytes());
  EXPECT_EQ(range.resident(1), range.stack_bytes());
  EXPECT_EQ(range.resident(2), 0u);  // opened, never written: no memory
  range.close(1);
  EXPECT_EQ(range.resident(1), 0u);
  // Reopened, its pages are fresh zeroes.
  auto* again = static_cast<std::byte*>(range.open(1));
  EXPECT_EQ(again, a);
  EXPECT_EQ(again[100], std::byte{0});
}

TEST(StacksDeathTest, WritingBelowAStackFaults) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  StackRange range(2, 64 * 1024);
  auto* bottom = static_cast<volatile std::byte*>(range.open(1));
  EXPECT_DEATH(bottom[-1] = std::byte{1}, "");
}

TEST(Stacks, SizesAreChecked) {
  EXPECT_THROW(StackRange(4, 1000), vela::vp::Error);
  EXPECT_THROW(StackRange(std::size_t{1} << 40, std::size_t{1} << 30), vela::vp::Error);
}

TEST(Stacks, SlotsWithContextAndHeapAreFoundByAddress) {
  StackRange range(3, 64 * 1024, 100, 1 << 20);
  EXPECT_EQ(range.heap_bytes(), std::size_t{1} << 20);
  range.open(0);
  range.open(1);
  SlotHeap* heap = range.heap(1);
  ASSERT_NE(heap, nullptr);
  void* p = heap->allocate(100);
  ASSERT_NE(p, nullptr);
  // A block of slot 1's heap is found as such; its stack, context and other memory are not.
  EXPECT_EQ(heap_owning(p).heap, heap);
  EXPECT_TRUE(heap_owning(range.context(1)).in_slots);
  EXPECT_EQ(heap_owning(range.context(1)).heap, nullptr);
  int outside = 0;
  EXPECT_FALSE(heap_owning(&outside).in_slots);
  // The context page stays when the stack and heap go; a closed heap owns nothing.
  range.close(1, true);
  EXPECT_TRUE(heap_owning(p).in_slots);
  EXPECT_EQ(heap_owning(p).heap, nullptr);
  static_cast<volatile std::byte*>(range.context(1))[0] = std::byte{1};  // still writable
}

TEST(Stacks, TheStackEndsAtTheContextOnTheContextsPage) {
  constexpr std::size_t context = 600;
  StackRange range(3, 64 * 1024, context);
  auto* bottom = static_cast<std::byte*>(range.open(1));
  auto* ctx = static_cast<std::byte*>(range.context(1));
  // The stack runs from its bottom up to the context, which ends its page: a rank's top frames
  // and its context share one page.
  EXPECT_EQ(bottom + range.stack_bytes(), ctx);
  EXPECT_GE(range.stack_bytes(), 64u * 1024u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(ctx) % 64, 0u);
  const auto page = [](const std::byte* p) { return reinterpret_cast<std::uintptr_t>(p) / 4096; };
  EXPECT_EQ(page(ctx), page(ctx - 1));
  EXPECT_EQ(page(ctx), page(ctx + context - 1));
  EXPECT_NE(page(ctx), page(ctx + ((context + 63) / 64) * 64));
  // The whole stack is writable and leaves the context alone.
  std::memset(ctx, 7, context);
  std::memset(bottom, 1, range.stack_bytes());
  EXPECT_EQ(ctx[0], std::byte{7});
  EXPECT_EQ(ctx[context - 1], std::byte{7});
  // Closing while keeping the context keeps its page (and the stack's top on it).
  range.close(1, true);
  EXPECT_EQ(ctx[0], std::byte{7});
  EXPECT_EQ(range.resident(1), 4096u);
}

TEST(SlotHeap, BlocksAreDistinctAlignedReusedAndBounded) {
  alignas(64) static std::byte region[1 << 16];
  SlotHeap* heap = SlotHeap::create(region, sizeof region);
  EXPECT_EQ(heap->live_bytes(), 0u);
  std::vector<std::pair<std::byte*, std::size_t>> blocks;
  for (std::size_t size : {1, 16, 17, 100, 1000, 3000}) {
    auto* p = static_cast<std::byte*>(heap->allocate(size));
    ASSERT_NE(p, nullptr) << size;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 16, 0u);
    EXPECT_GE(heap->usable_size(p), size);
    EXPECT_TRUE(heap->owns(p));
    std::memset(p, static_cast<int>(size & 0xff), size);
    blocks.emplace_back(p, size);
  }
  // No block overlaps another: each still holds its own pattern.
  for (const auto& [p, size] : blocks) {
    for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(p[i], std::byte(size & 0xff)) << size;
  }
  // Over-aligned blocks.
  for (std::size_t alignment : {32, 64, 256, 4096}) {
    void* p = heap->allocate(50, alignment);
    ASSERT_NE(p, nullptr) << alignment;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignment, 0u) << alignment;
    EXPECT_GE(heap->usable_size(p), 50u);
    heap->release(p);
  }
  EXPECT_EQ(heap->allocate(8, 48), nullptr);  // not a power of two
  // A freed block is reused for the same size, and the used part does not grow.
  const std::size_t used = heap->used_bytes();
  heap->release(blocks[3].first);
  EXPECT_EQ(heap->allocate(100), blocks[3].first);
  EXPECT_EQ(heap->used_bytes(), used);
  // Full: nullptr, not memory past the region.
  EXPECT_EQ(heap->allocate(sizeof region), nullptr);
  std::set<void*> seen;
  while (void* p = heap->allocate(1000)) {
    EXPECT_TRUE(seen.insert(p).second);
    EXPECT_LE(reinterpret_cast<std::byte*>(p) + 1000, region + sizeof region);
  }
  EXPECT_LE(heap->used_bytes(), heap->capacity());
  for (void* p : seen) heap->release(p);
  // Freed blocks serve the next allocations of their size.
  EXPECT_EQ(seen.count(heap->allocate(1000)), 1u);
}

// Memory freed at one size serves another: blocks of mixed sizes, allocated, filled and freed in
// a shuffled order, leave the heap whole again (a block of half the region fits); blocks never
// overlap meanwhile.
TEST(SlotHeap, FreedBlocksMergeAndServeOtherSizes) {
  alignas(4096) static std::byte region[1 << 20];
  SlotHeap* heap = SlotHeap::create(region, sizeof region);
  const std::size_t empty = heap->used_bytes();
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::pair<std::byte*, std::size_t>> blocks;
    for (int k = 0; k < 40; ++k) {
      const std::size_t size = (std::size_t{16} << (rng() % 12)) + rng() % 7;
      auto* p = static_cast<std::byte*>(heap->allocate(size));
      if (p == nullptr) break;
      std::memset(p, k, size);
      blocks.emplace_back(p, size);
    }
    ASSERT_GE(blocks.size(), 10u) << round;
    std::shuffle(blocks.begin(), blocks.end(), rng);
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      const auto [p, size] = blocks[i];
      for (std::size_t j = 0; j < size; ++j) ASSERT_EQ(p[j], p[0]) << round;
      heap->release(p);
    }
    EXPECT_EQ(heap->live_bytes(), 0u);
  }
  void* half = heap->allocate(sizeof region / 2 - 64);
  ASSERT_NE(half, nullptr);
  // The top block freed lowers the top: a moving rank carries less.
  const std::size_t with_half = heap->used_bytes();
  EXPECT_EQ(with_half, sizeof region);
  heap->release(half);
  EXPECT_EQ(heap->used_bytes(), sizeof region / 2);
  EXPECT_GT(heap->used_bytes(), empty);
}

}  // namespace
