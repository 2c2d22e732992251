// The distributed Hilbert cut: its segments, rounds and messages, and agreement with the
// central cut.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "vela/lb/strategies/hilbert.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::lb {
namespace {

Instance grid(int nx, int ny, PeId pes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Instance in;
  in.dims = 2;
  in.pes.assign(static_cast<std::size_t>(pes), Pe{});
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      Object o;
      o.id = j * nx + i;
      o.load = 0.5 + static_cast<double>(rng() % 1000) / 1000.0;
      o.coords = {static_cast<double>(i), static_cast<double>(j), 0.0};
      o.pe = static_cast<PeId>(rng() % static_cast<std::uint64_t>(pes));
      in.objects.push_back(o);
    }
  }
  return in;
}

// First curve position whose PE is >= p, for every p: where the cuts are.
std::vector<std::size_t> boundaries(const Assignment& a, const std::vector<std::uint32_t>& order,
                                    PeId pes) {
  std::vector<std::size_t> b(static_cast<std::size_t>(pes) + 1, order.size());
  for (std::size_t k = order.size(); k-- > 0;) {
    for (PeId p = 0; p <= a.pe[order[k]]; ++p) b[static_cast<std::size_t>(p)] = k;
  }
  return b;
}

// The scan and the broadcast run between the P segment owners (one per PE), not between the
// objects: their rounds and messages depend on the PE count only.
TEST(HilbertDistributed, CountsRoundsAndMessagesOfThePrefixSumAndBroadcast) {
  for (const PeId pes : {1, 2, 4, 7, 16}) {
    const Instance in = grid(10, 10, pes, 1);  // 100 objects
    const DistributedCut cut = hilbert_distributed_cut(in, hilbert_order(in));
    std::uint32_t rounds = 0;
    std::uint64_t scan_messages = 0;
    for (PeId d = 1; d < pes; d *= 2) {
      ++rounds;
      scan_messages += static_cast<std::uint64_t>(pes - d);
    }
    EXPECT_EQ(cut.prefix_rounds, rounds) << pes;  // ceil(log2 P)
    EXPECT_EQ(cut.broadcast_rounds, rounds) << pes;
    // The broadcast reaches the P - 1 other owners once each.
    EXPECT_EQ(cut.messages, scan_messages + static_cast<std::uint64_t>(pes - 1)) << pes;
  }
}

// The segments: contiguous, covering the curve, as equal as integers allow, empty ones when
// there are more PEs than objects; segment_of inverts segment_begin.
TEST(HilbertDistributed, SegmentsCoverTheCurveInPeOrder) {
  for (const std::uint64_t n : {1u, 5u, 100u, 1001u}) {
    for (const std::uint64_t pes : {1u, 3u, 4u, 7u, 2000u}) {
      EXPECT_EQ(hilbert_segment_begin(n, pes, 0), 0u);
      EXPECT_EQ(hilbert_segment_begin(n, pes, pes), n);
      for (std::uint64_t s = 0; s < pes; ++s) {
        const std::uint64_t begin = hilbert_segment_begin(n, pes, s);
        const std::uint64_t end = hilbert_segment_begin(n, pes, s + 1);
        ASSERT_LE(begin, end);
        EXPECT_LE(end - begin, n / pes + 1);
        for (std::uint64_t k = begin; k < end; ++k) EXPECT_EQ(hilbert_segment_of(k, n, pes), s);
      }
    }
  }
}

TEST(HilbertDistributed, AgreesWithTheCentralCutWithinOneObjectPerBoundary) {
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    const int nx = 1 + static_cast<int>(seed % 37), ny = 1 + static_cast<int>((seed * 7) % 53);
    const PeId pes = 1 + static_cast<PeId>(seed % 17);
    const Instance in = grid(nx, ny, pes, seed);
    const auto order = hilbert_order(in);
    const Assignment central = hilbert_cut(in, order);
    const DistributedCut distributed = hilbert_distributed_cut(in, order);
    validate(in, distributed.assignment);
    const auto a = boundaries(central, order, pes);
    const auto b = boundaries(distributed.assignment, order, pes);
    for (std::size_t p = 0; p < a.size(); ++p) {
      const auto gap = a[p] > b[p] ? a[p] - b[p] : b[p] - a[p];
      EXPECT_LE(gap, 1u) << "seed " << seed << " boundary " << p;
    }
  }
}

TEST(HilbertDistributed, NonMigratableObjectsStayAndRegistryRunsIt) {
  Instance in = grid(8, 8, 4, 3);
  for (std::size_t i = 0; i < in.objects.size(); i += 5) in.objects[i].migratable = false;
  auto strategy = make_strategy("hilbert-distributed");
  const Solution s = strategy->solve(in);
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    if (!in.objects[i].migratable) {
      EXPECT_EQ(s.assignment.pe[i], in.objects[i].pe);
    }
  }
  const Solution again = strategy->solve(in);
  EXPECT_EQ(again.assignment, s.assignment);
  bool cached = false;
  for (const auto& [key, value] : again.stats) cached = cached || (key == "curve_ms" && value == 0);
  EXPECT_TRUE(cached) << "the curve order is computed once";
}

}  // namespace
}  // namespace vela::lb
