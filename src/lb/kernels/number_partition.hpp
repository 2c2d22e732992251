// Exact multiway number partitioning: split integer items among bins that already hold a fixed
// amount each, minimizing the fullest bin. The `optimal` strategy uses it for identical PEs
// without a communication term, where the MILP's LP bound (the average) is too weak for GLPK
// to prove anything on 40 real-valued loads in reasonable time.
//
// Why a search of our own: GLPK, METIS, Scotch and Zoltan have no exact number partitioner, and
// Debian packages none. The method follows the sequential number partitioning idea (Korf,
// Schreiber and Moffitt): the fullest bin of an optimal partition holds some subset A with
// offset + sum(A) = T*, and no subset with a smaller T leaves a rest that fits in the other bins
// under capacity T. So candidate (bin, A) pairs are tried in increasing T, from a lower bound up,
// and the first one whose rest fits is optimal. Subsets whose sums fall in a window are listed
// with Horowitz-Sahni: both halves' subset sums are built sorted by merging (no sort), then
// paired by two pointers. Whether the rest fits is decided the same way, one bin at a time, each
// bin's window being as wide as the slack left; when the remaining bins are interchangeable the
// largest item goes into the first of them (symmetry).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vela::lb::builtin {

// Largest number of items the search accepts: each half's sorted sums take 2^(n/2) entries of
// 16 bytes (64 MiB per half at 44 items).
inline constexpr std::size_t kMaxPartitionItems = 44;

struct NumberPartition {
  std::vector<std::uint32_t> bin;  // bin of each item
  std::uint64_t makespan = 0;      // max over bins of offset + sum of its items
  std::uint64_t lower_bound = 0;   // proven: no partition has a smaller makespan
  bool proven = false;             // makespan == lower_bound, the search ran to completion
  std::uint64_t candidates = 0;    // (bin, subset) pairs whose rest was tested
};

// Minimizes the makespan of `items` (each > 0) over bins with the given fixed `offsets`.
// `start` is a valid assignment (a bin per item). It and the Karmarkar-Karp differencing
// partition, each improved by single moves and swaps, give the first upper bound, and the
// answer when the search finds nothing better. The sum of the items
// plus the largest offset must be below 2^62; at most kMaxPartitionItems items. When `deadline`
// passes, the best partition so far comes back with proven = false and the bound reached.
NumberPartition min_max_partition(const std::vector<std::uint64_t>& items,
                                  const std::vector<std::uint64_t>& offsets,
                                  const std::vector<std::uint32_t>& start,
                                  std::chrono::steady_clock::time_point deadline);

}  // namespace vela::lb::builtin
