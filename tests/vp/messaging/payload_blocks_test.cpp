// Payload blocks (src/vp/messaging/blocks.cpp): small ones from per-thread pools, handed back by
// whichever thread frees them; large ones and those made off the PEs from the heap.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "messaging/payload.hpp"
#include "support/ranks.hpp"
#include "vela/vp/vp.hpp"

namespace {

namespace vp = vela::vp;
using vela::vp::detail::free_payload_block;
using vela::vp::detail::payload_block;
using vela::vp::detail::pooled_bytes;

std::uint8_t pattern(std::size_t i, std::size_t size) {
  return static_cast<std::uint8_t>((i * 37 + size) & 0xff);
}

// Blocks made by rank 0 (PE 0) are checked and freed by rank 1 (PE 1), round after round: every
// byte holds, every block is 16-byte aligned, and the blocks freed on the other PE come back to
// their pool (the addresses seen stay few; without the return path every round would need new
// ones).
TEST(PayloadBlocks, BlocksFreedOnAnotherPeComeBackToTheirPool) {
  const std::size_t sizes[] = {1, 63, 64, 65, 128, 129, 1000, pooled_bytes, pooled_bytes + 1};
  constexpr int rounds = 2000;
  std::atomic<int> wrong{0};
  std::vector<std::uintptr_t> pooled;  // every pooled block's address (reserved: no allocation in
  pooled.reserve(std::size(sizes) * rounds);  // the ranks)
  ASSERT_EQ(vela::testing::run({2, 2},
                               [&] {
                                 for (int round = 0; round < rounds; ++round) {
                                   std::uint64_t blocks[std::size(sizes)] = {};
                                   if (vp::rank() == 0) {
                                     for (std::size_t k = 0; k < std::size(sizes); ++k) {
                                       std::byte* b = payload_block(sizes[k]);
                                       if (reinterpret_cast<std::uintptr_t>(b) % 16 != 0) wrong++;
                                       for (std::size_t i = 0; i < sizes[k]; ++i)
                                         b[i] = static_cast<std::byte>(pattern(i, sizes[k]));
                                       blocks[k] = reinterpret_cast<std::uintptr_t>(b);
                                       if (sizes[k] <= pooled_bytes) pooled.push_back(blocks[k]);
                                     }
                                     vp::send(blocks, std::size(blocks), vp::Type::u64, 1, round);
                                   } else {
                                     vp::recv(blocks, std::size(blocks), vp::Type::u64, 0, round);
                                     for (std::size_t k = 0; k < std::size(sizes); ++k) {
                                       auto* b = reinterpret_cast<std::byte*>(blocks[k]);
                                       for (std::size_t i = 0; i < sizes[k]; ++i) {
                                         if (b[i] != static_cast<std::byte>(pattern(i, sizes[k]))) {
                                           wrong++;
                                           break;
                                         }
                                       }
                                       free_payload_block(b);
                                     }
                                   }
                                   vp::barrier();
                                 }
                               }),
            0);
  EXPECT_EQ(wrong.load(), 0);
  const std::set<std::uintptr_t> seen(pooled.begin(), pooled.end());
  EXPECT_EQ(pooled.size(), 8u * rounds);
  // 8 pooled sizes in 7 classes: per class the blocks PE 1 keeps (at most 64) and a few slabs
  // of 16 cycling back to PE 0, far fewer than the 8 x 2000 made.
  EXPECT_LE(seen.size(), 7u * 200u) << "pooled blocks freed on the other PE were not reused";
}

TEST(PayloadBlocks, BlocksOffThePesComeFromTheHeap) {
  for (const std::size_t size : {std::size_t{0}, std::size_t{64}, pooled_bytes * 4}) {
    std::byte* b = payload_block(size);
    ASSERT_NE(b, nullptr);
    if (size > 0) std::memset(b, 0x5a, size);
    free_payload_block(b);
  }
}

}  // namespace
