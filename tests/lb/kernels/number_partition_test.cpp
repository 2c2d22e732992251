// Exact multiway number partitioning (the search behind `optimal` on PEs of one speed), checked
// against brute-force enumeration, an independent count for equal items, and its input checks.
#include "kernels/number_partition.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace vela::lb::builtin {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point far_future() {
  return Clock::now() + std::chrono::hours(1);
}

std::uint64_t makespan(const std::vector<std::uint64_t>& items,
                       const std::vector<std::uint64_t>& offsets,
                       const std::vector<std::uint32_t>& bin) {
  std::vector<std::uint64_t> load = offsets;
  for (std::size_t i = 0; i < items.size(); ++i) load.at(bin.at(i)) += items[i];
  return *std::max_element(load.begin(), load.end());
}

// Minimum makespan over every assignment.
std::uint64_t brute_force(const std::vector<std::uint64_t>& items,
                          const std::vector<std::uint64_t>& offsets) {
  std::vector<std::uint32_t> bin(items.size(), 0);
  const auto k = static_cast<std::uint32_t>(offsets.size());
  std::uint64_t best = UINT64_MAX;
  for (;;) {
    best = std::min(best, makespan(items, offsets, bin));
    std::size_t j = 0;
    while (j < bin.size() && ++bin[j] == k) bin[j++] = 0;
    if (j == bin.size()) break;
  }
  return best;
}

// Everything in bin 0: a valid, usually poor, start.
std::vector<std::uint32_t> all_in_first(std::size_t n) {
  return std::vector<std::uint32_t>(n, 0);
}

TEST(NumberPartition, MatchesBruteForce) {
  std::mt19937_64 rng(2026);
  std::uniform_int_distribution<std::size_t> count(0, 9);
  std::uniform_int_distribution<std::uint32_t> bins(1, 4);
  std::uniform_int_distribution<std::uint64_t> small(1, 12);          // many equal items
  std::uniform_int_distribution<std::uint64_t> large(1, 1000000007);  // almost all distinct
  std::uniform_int_distribution<std::uint64_t> offset(0, 30);
  for (int round = 0; round < 300; ++round) {
    const std::size_t n = count(rng);
    const std::uint32_t k = bins(rng);
    const bool distinct = round % 2 == 1;
    std::vector<std::uint64_t> items(n);
    for (auto& v : items) v = distinct ? large(rng) : small(rng);
    std::vector<std::uint64_t> offsets(k, 0);
    if (round % 3 == 0) {
      for (auto& o : offsets) o = distinct ? offset(rng) * 30000000 : offset(rng);
    }
    std::vector<std::uint32_t> start(n);
    for (auto& b : start) b = static_cast<std::uint32_t>(rng() % k);
    const NumberPartition p = min_max_partition(items, offsets, start, far_future());
    const std::uint64_t want = brute_force(items, offsets);
    ASSERT_EQ(p.bin.size(), n) << "round " << round;
    EXPECT_EQ(makespan(items, offsets, p.bin), p.makespan) << "round " << round;
    EXPECT_EQ(p.makespan, want) << "round " << round;
    EXPECT_TRUE(p.proven) << "round " << round;
    EXPECT_EQ(p.lower_bound, want) << "round " << round;
  }
}

// n equal items of value v over bins with offsets: the least T with enough room, counted
// directly (every T worth trying is an offset plus a multiple of v).
std::uint64_t equal_items_optimum(std::size_t n, std::uint64_t v,
                                  const std::vector<std::uint64_t>& offsets) {
  std::uint64_t best = UINT64_MAX;
  for (const std::uint64_t o : offsets) {
    for (std::uint64_t c = 0; c <= n; ++c) {
      const std::uint64_t t = o + c * v;
      std::uint64_t room = 0;
      for (const std::uint64_t f : offsets) room += t >= f ? (t - f) / v : 0;
      if (room >= n && t >= *std::max_element(offsets.begin(), offsets.end())) {
        best = std::min(best, t);
      }
    }
  }
  return best;
}

TEST(NumberPartition, ManyEqualItemsAreOneMultiset) {
  // 40 equal items have 2^40 subsets but only 41 distinct ones; the search must list each once.
  const std::vector<std::vector<std::uint64_t>> offset_sets = {
      {0, 0, 0}, {0, 0, 0, 5}, {13, 0, 7, 7, 2}, {100, 0}};
  for (const auto& offsets : offset_sets) {
    const std::vector<std::uint64_t> items(40, 7);
    const NumberPartition p =
        min_max_partition(items, offsets, all_in_first(items.size()), far_future());
    EXPECT_TRUE(p.proven);
    EXPECT_EQ(p.makespan, equal_items_optimum(items.size(), 7, offsets));
    EXPECT_EQ(makespan(items, offsets, p.bin), p.makespan);
  }
  // Two values, many copies each: 20 nines and 22 fours on 3 bins, checked against every
  // composition of the bins.
  std::vector<std::uint64_t> items(20, 9);
  items.insert(items.end(), 22, 4);
  const std::vector<std::uint64_t> offsets(3, 0);
  std::uint64_t want = UINT64_MAX;  // bins 0 and 1 take (a, b) and (c, d) nines and fours
  for (int a = 0; a <= 20; ++a) {
    for (int b = 0; b <= 22; ++b) {
      for (int c = 0; a + c <= 20; ++c) {
        for (int d = 0; b + d <= 22; ++d) {
          const std::uint64_t l0 = 9U * a + 4U * b;
          const std::uint64_t l1 = 9U * c + 4U * d;
          const std::uint64_t l2 = 9U * (20 - a - c) + 4U * (22 - b - d);
          want = std::min(want, std::max({l0, l1, l2}));
        }
      }
    }
  }
  const NumberPartition p = min_max_partition(items, offsets, all_in_first(42), far_future());
  EXPECT_TRUE(p.proven);
  EXPECT_EQ(p.makespan, want);
  EXPECT_EQ(makespan(items, offsets, p.bin), want);
}

TEST(NumberPartition, FortyDistinctItemsOnFourBinsAreProven) {
  // Random 40-bit items: no perfect partition to stop at early, the hard case for a proof. The
  // answer must be at least the average and no worse than the greedy start.
  std::mt19937_64 rng(40);
  std::vector<std::uint64_t> items(40);
  for (auto& v : items) v = (rng() >> 24) + 1;
  std::vector<std::uint32_t> order(items.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return items[a] > items[b]; });
  const std::vector<std::uint64_t> offsets(4, 0);
  std::vector<std::uint64_t> load(4, 0);
  std::vector<std::uint32_t> greedy(items.size());
  for (const std::uint32_t i : order) {
    const auto b =
        static_cast<std::uint32_t>(std::min_element(load.begin(), load.end()) - load.begin());
    greedy[i] = b;
    load[b] += items[i];
  }
  const NumberPartition p = min_max_partition(items, offsets, greedy, far_future());
  std::uint64_t total = 0;
  for (const auto v : items) total += v;
  EXPECT_TRUE(p.proven);
  EXPECT_EQ(makespan(items, offsets, p.bin), p.makespan);
  EXPECT_GE(p.makespan, (total + 3) / 4);
  EXPECT_LE(p.makespan, makespan(items, offsets, greedy));
  EXPECT_EQ(p.lower_bound, p.makespan);
  // Started from its own answer, the search finds nothing better and proves it again.
  const NumberPartition again = min_max_partition(items, offsets, p.bin, far_future());
  EXPECT_TRUE(again.proven);
  EXPECT_EQ(again.makespan, p.makespan);
  EXPECT_EQ(again.bin, p.bin);
}

TEST(NumberPartition, DeadlineReturnsTheStartWithABound) {
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> items(40);
  for (auto& v : items) v = (rng() >> 20) + 1;
  const std::vector<std::uint64_t> offsets(4, 0);
  const std::vector<std::uint32_t> start = all_in_first(items.size());
  const NumberPartition p = min_max_partition(items, offsets, start, Clock::now());
  EXPECT_FALSE(p.proven);
  EXPECT_EQ(p.makespan, makespan(items, offsets, p.bin));
  EXPECT_LE(p.makespan, makespan(items, offsets, start));
  std::uint64_t total = 0;
  for (const auto v : items) total += v;
  EXPECT_GE(p.lower_bound, (total + 3) / 4);
  EXPECT_LT(p.lower_bound, p.makespan);
}

TEST(NumberPartition, BadInputsAreNamed) {
  const auto message = [](const std::vector<std::uint64_t>& items,
                          const std::vector<std::uint64_t>& offsets,
                          const std::vector<std::uint32_t>& start) {
    try {
      min_max_partition(items, offsets, start, far_future());
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message(std::vector<std::uint64_t>(45, 1), {0, 0}, all_in_first(45)).find("45 items"),
            std::string::npos);
  EXPECT_NE(message({1, 0, 2}, {0, 0}, all_in_first(3)).find("item 1 is 0"), std::string::npos);
  EXPECT_NE(message({1, 2}, {}, all_in_first(2)).find("0 bins"), std::string::npos);
  EXPECT_NE(message({1, 2}, {0, 0}, {0, 2}).find("item 1 in bin 2"), std::string::npos);
  EXPECT_NE(message({1, 2}, {0, 0}, {0}).find("1 entries for 2 items"), std::string::npos);
  EXPECT_NE(message({std::uint64_t{1} << 55, std::uint64_t{1} << 55}, {0, 0}, all_in_first(2))
                .find("2^56"),
            std::string::npos);
  EXPECT_NE(message({1}, {std::uint64_t{1} << 57}, all_in_first(1)).find("2^56"),
            std::string::npos);
}

}  // namespace
}  // namespace vela::lb::builtin
