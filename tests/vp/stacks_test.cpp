// Rank stacks: one reserved range, a fixed slot per rank, a guard page below each stack.
#include <gtest/gtest.h>

#include <cstring>

#include "stacks.hpp"
#include "vela/vp/vp.hpp"

namespace {

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

}  // namespace
