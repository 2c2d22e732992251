// Hilbert-curve load balancing, central and distributed: order objects along a space-filling curve
// of their coordinates, then cut the curve into one contiguous segment per PE.
#pragma once

#include <cstdint>
#include <vector>

#include "vela/lb/model/instance.hpp"

namespace vela::lb {

// Lattice resolution for non-integer coordinates: 2^bits cells along the longest extent.
inline constexpr int kHilbertMinBits = 1;
inline constexpr int kHilbertMaxBits = 20;
inline constexpr int kHilbertDefaultBits = 16;

// Positions in instance.objects, sorted along a Hilbert curve of their coordinates (dims 2 and
// 3; dims 1 sorts by x, dims 0 keeps index order; ties keep index order). Integer coordinates
// are used as lattice points directly, others are binned with an isotropic cell of 1/2^bits of
// the longest extent. Any domain shape works: see hilbert_curve.cpp for how boxes that are not
// power-of-two cubes are covered. Depends only on coordinates and dims. Throws InstanceError
// for a non-finite coordinate and std::invalid_argument for bits outside
// [kHilbertMinBits, kHilbertMaxBits].
std::vector<std::uint32_t> hilbert_order(const Instance& instance, int bits = kHilbertDefaultBits);

// Migratable work each PE should receive so that all PEs finish together: c_p =
// max(0, T - fixed_p) * speed_p with T solving sum_p c_p = total migratable load, where
// fixed_p is PE p's background plus the time of the non-migratable objects it keeps.
// When the migratable load is zero, capacities are proportional to speed and sum to 1.
std::vector<double> pe_work_targets(const Instance& instance);

// Cuts the curve `order` (a permutation of object positions, e.g. from hilbert_order) into
// one contiguous segment of migratable objects per PE, in PE order. Each cut sits at the
// load-prefix boundary nearest to C_k = c_0 + ... + c_{k-1} (pe_work_targets), so every PE's
// work is within one object's load of its target (by count when all migratable loads are 0).
// Non-migratable objects keep their PE. O(n + P log P). Throws std::invalid_argument when
// `order` is not a permutation of the objects and InstanceError when there are no PEs.
Assignment hilbert_cut(const Instance& instance, const std::vector<std::uint32_t>& order);

// The distributed form of the cut, computed by one object alone from its inclusive load
// prefix along the curve, its own load, the total and the PE count: the PE whose equal share
// holds the object's load midpoint (prefix - load / 2), which is the nearest-boundary rule,
// clamped to [0, pes - 1]. For PEs of equal speed and no background it agrees with hilbert_cut
// up to rounding (at most one object per boundary).
// Returns 0 when total <= 0 (callers then pass object counts as loads, as hilbert_cut does).
PeId hilbert_destination(double inclusive_prefix, double load, double total, PeId pes);

// The curve's segments in the distributed form: positions [0, n) cut into `segments`
// contiguous pieces, segment s holding [s * n / segments, (s + 1) * n / segments) (empty ones
// when segments > n), owned by PE s.
inline std::uint64_t hilbert_segment_begin(std::uint64_t n, std::uint64_t segments,
                                           std::uint64_t s) {
  return s * n / segments;
}
inline std::uint64_t hilbert_segment_of(std::uint64_t position, std::uint64_t n,
                                        std::uint64_t segments) {
  return ((position + 1) * segments - 1) / n;  // the last s with begin(s) <= position
}

// hilbert-distributed as the PEs run it (lb::make_agent, the runtime), over arrays. The curve is
// cut into P segments (hilbert_segment_begin, P = instance.pes.size()), one per PE. Object k
// of the curve holds its load (0 if it cannot move) and a count (1, 0 if it cannot move); the
// owner of each segment sums its objects left to right from 0.0 (its local inclusive
// prefixes and the segment's total); an exclusive scan of the segment totals by recursive
// doubling (round r: owner s >= 2^r receives the window owner s - 2^r held after round r - 1
// and sets offset = received + offset, window = received + window; one message each) in
// ceil(log2 P) rounds; the last owner's window, the total, goes to every owner down a binomial
// tree in ceil(log2 P) more rounds; object k's inclusive prefix is its segment's offset plus
// its local prefix, and hilbert_destination places it alone (by count when the total load is
// not positive). Shares are equal (the rule has no PE speeds or background); non-migratable
// objects keep their PE and take no share. The segments make the summation order one that the
// PEs can follow exactly, so the runtime's distributed run and this function agree bit for
// bit; `messages` counts the scan's and the broadcast's messages between owners.
struct DistributedCut {
  Assignment assignment;
  std::uint32_t prefix_rounds = 0;
  std::uint32_t broadcast_rounds = 0;
  std::uint64_t messages = 0;
};
DistributedCut hilbert_distributed_cut(const Instance& instance,
                                       const std::vector<std::uint32_t>& order);

}  // namespace vela::lb
