// Exact multiway number partitioning; the method is described in number_partition.hpp.
#include "number_partition.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

namespace vela::lb::builtin {

namespace {

using Mask = std::uint64_t;  // a subset of the items, bit i = item i
using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxBins = 64;
constexpr std::uint64_t kMaxTotal = std::uint64_t{1} << 56;  // 64 capacities still fit in 2^62
constexpr std::size_t kMaxCandidates = std::size_t{1} << 20;

// A subset of the items and its sum.
struct Entry {
  std::uint64_t sum = 0;
  Mask mask = 0;
};
using Sums = std::vector<Entry>;  // ascending by sum

bool by_sum(const Entry& a, const Entry& b) {
  return a.sum < b.sum;
}

// Runs of equal items in `which` (given in size order, so equal items are adjacent), as
// [begin, end) positions.
std::vector<std::pair<std::size_t, std::size_t>> equal_runs(
    const std::vector<std::uint64_t>& value, const std::vector<std::uint32_t>& which) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t b = 0; b < which.size();) {
    std::size_t e = b + 1;
    while (e < which.size() && value[which[e]] == value[which[b]]) ++e;
    runs.emplace_back(b, e);
    b = e;
  }
  return runs;
}

// Every subset sum of the items `which`, built sorted: the sums so far merged with the same
// sums plus the next item (linear per item, so no sort). Equal items count as one multiset: c
// copies of a value are always its first c items, so no subset appears twice under other names.
Sums sorted_sums(const std::vector<std::uint64_t>& value, const std::vector<std::uint32_t>& which) {
  Sums s{Entry{}};
  Sums shifted;
  Sums merged;
  for (const auto& [b, e] : equal_runs(value, which)) {
    const std::uint64_t v = value[which[b]];
    if (e - b == 1) {
      // One item: merge s with s + v in place, from the back. With a and c entries of the two
      // lists left, the write position a + c - 1 is past every unread entry of s.
      const Mask bit = Mask{1} << which[b];
      std::size_t a = s.size();
      std::size_t c = s.size();
      s.resize(2 * a);
      while (c > 0) {
        const Entry plus{s[c - 1].sum + v, s[c - 1].mask | bit};
        if (a > 0 && s[a - 1].sum > plus.sum) {
          s[a + c - 1] = s[a - 1];
          --a;
        } else {
          s[a + c - 1] = plus;
          --c;
        }
      }
      continue;  // what is left of the first list is in place already
    }
    const Sums base = s;
    Mask add = 0;
    for (std::size_t c = 1; c <= e - b; ++c) {
      add |= Mask{1} << which[b + c - 1];
      shifted.resize(base.size());
      for (std::size_t j = 0; j < base.size(); ++j) {
        shifted[j] = {base[j].sum + c * v, base[j].mask | add};
      }
      merged.resize(s.size() + shifted.size());
      std::merge(s.begin(), s.end(), shifted.begin(), shifted.end(), merged.begin(), by_sum);
      std::swap(s, merged);
    }
  }
  return s;
}

// Splits `which` into two halves of about equal numbers of subsets, runs of equal items kept
// whole (so each multiset is listed once).
std::array<std::vector<std::uint32_t>, 2> halves(const std::vector<std::uint64_t>& value,
                                                 const std::vector<std::uint32_t>& which) {
  std::array<std::vector<std::uint32_t>, 2> half;
  std::array<double, 2> size{0.0, 0.0};  // log2 of each half's number of subsets
  for (const auto& [b, e] : equal_runs(value, which)) {
    const std::size_t h = size[1] < size[0] ? 1 : 0;
    half[h].insert(half[h].end(), which.begin() + static_cast<long>(b),
                   which.begin() + static_cast<long>(e));
    size[h] += std::log2(static_cast<double>(e - b + 1));
  }
  return half;
}

class Search {
 public:
  // `items` sorted heaviest first, so the lowest bit of a subset is its largest item.
  Search(const std::vector<std::uint64_t>& items, Clock::time_point deadline)
      : items_(items), deadline_(deadline) {}

  bool timed_out() const { return timed_out_; }

  // Calls visit(subset, sum) for every x + y in [lo, hi], x from `xs` and y from `ys`, until
  // visit returns false; false when stopped that way or by the deadline.
  template <class Visit>
  bool pairs(const Sums& xs, const Sums& ys, std::uint64_t lo, std::uint64_t hi, Visit&& visit) {
    std::size_t begin = ys.size();  // first y with x + y >= lo
    std::size_t end = ys.size();    // first y with x + y > hi
    for (std::size_t i = 0; i < xs.size() && xs[i].sum <= hi; ++i) {
      const std::uint64_t x = xs[i].sum;
      while (end > 0 && x + ys[end - 1].sum > hi) --end;
      while (begin > 0 && x + ys[begin - 1].sum >= lo) --begin;
      if (out_of_time()) return false;
      for (std::size_t j = begin; j < end; ++j) {
        if (!visit(xs[i].mask | ys[j].mask, x + ys[j].sum) || out_of_time()) return false;
      }
    }
    return true;
  }

  // Whether the items of `rest` fit into bins of capacities `caps`; when they do, out[q] is the
  // subset put into bin q. False too when the deadline passes (see timed_out()).
  bool fits(Mask rest, std::span<const std::uint64_t> caps, std::span<Mask> out) {
    std::vector<std::uint32_t> which;
    std::uint64_t total = 0;
    for (Mask m = rest; m != 0; m &= m - 1) {
      const auto i = static_cast<std::uint32_t>(std::countr_zero(m));
      which.push_back(i);
      total += items_[i];
    }
    if (which.empty()) {
      std::fill(out.begin(), out.end(), Mask{0});
      return true;
    }
    std::array<std::uint64_t, kMaxBins> cap{};
    std::uint64_t cap_sum = 0;
    std::uint64_t cap_max = 0;
    for (std::size_t q = 0; q < caps.size(); ++q) {
      cap[q] = std::min(caps[q], total);  // room beyond the total is never used
      cap_sum += cap[q];
      cap_max = std::max(cap_max, cap[q]);
    }
    if (total > cap_sum || items_[which.front()] > cap_max) return false;
    if (caps.size() == 1) {
      out[0] = rest;
      return true;
    }
    // Bin 0 takes a subset that leaves no more than the other bins can hold.
    const std::uint64_t others = cap_sum - cap[0];
    const std::uint64_t lo = total > others ? total - others : 0;
    const std::uint64_t hi = cap[0];
    // Interchangeable bins: the largest item may as well be in the first.
    Mask forced = 0;
    std::uint64_t base = 0;
    const bool same = std::all_of(cap.begin() + 1, cap.begin() + static_cast<long>(caps.size()),
                                  [&](std::uint64_t c) { return c == cap[0]; });
    if (same) {
      forced = Mask{1} << which.front();
      base = items_[which.front()];
      which.erase(which.begin());
    }
    if (hi < base || lo > hi) return false;
    const std::uint64_t sub_lo = lo > base ? lo - base : 0;
    const std::uint64_t sub_hi = hi - base;
    bool found = false;
    subsets(which, sub_lo, sub_hi, [&](Mask m, std::uint64_t) {
      const Mask first = m | forced;
      if (fits(rest & ~first, caps.subspan(1), out.subspan(1))) {
        out[0] = first;
        found = true;
        return false;
      }
      return !timed_out_;
    });
    return found;
  }

  // Subsets of `which` with sums in [lo, hi], through both halves' sorted sums.
  template <class Visit>
  bool subsets(const std::vector<std::uint32_t>& which, std::uint64_t lo, std::uint64_t hi,
               Visit&& visit) {
    const auto half = halves(items_, which);
    const Sums xs = sorted_sums(items_, half[0]);
    const Sums ys = sorted_sums(items_, half[1]);
    return pairs(xs, ys, lo, hi, visit);
  }

 private:
  bool out_of_time() {
    if (!timed_out_ && ++ticks_ % 4096 == 0 && Clock::now() >= deadline_) timed_out_ = true;
    return timed_out_;
  }

  const std::vector<std::uint64_t>& items_;
  Clock::time_point deadline_;
  std::uint64_t ticks_ = 0;
  bool timed_out_ = false;
};

// A candidate fullest bin: `bin` holds `subset`, reaching `t`.
struct Candidate {
  std::uint64_t t = 0;
  std::uint32_t bin = 0;
  Mask subset = 0;
};

void check_input(const std::vector<std::uint64_t>& items, const std::vector<std::uint64_t>& offsets,
                 const std::vector<std::uint32_t>& start) {
  const auto fail = [](const std::string& what) {
    throw std::invalid_argument("number partition: " + what);
  };
  if (items.size() > kMaxPartitionItems) {
    fail(std::to_string(items.size()) + " items, more than the limit of " +
         std::to_string(kMaxPartitionItems));
  }
  if (offsets.empty() || offsets.size() > kMaxBins) {
    fail(std::to_string(offsets.size()) + " bins, expected 1 to " + std::to_string(kMaxBins));
  }
  if (start.size() != items.size()) {
    fail("the start assignment has " + std::to_string(start.size()) + " entries for " +
         std::to_string(items.size()) + " items");
  }
  std::uint64_t total = *std::max_element(offsets.begin(), offsets.end());
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i] == 0) fail("item " + std::to_string(i) + " is 0, expected > 0");
    if (start[i] >= offsets.size()) {
      fail("the start puts item " + std::to_string(i) + " in bin " + std::to_string(start[i]) +
           " of " + std::to_string(offsets.size()));
    }
    if (items[i] >= kMaxTotal || (total += items[i]) >= kMaxTotal) {
      fail("the items plus the largest offset reach 2^56, expected less");
    }
  }
  if (total >= kMaxTotal) fail("the largest offset reaches 2^56, expected less");
}

// The Karmarkar-Karp differencing heuristic for k bins: every item is a k-tuple (item, 0, ...),
// the offsets one more tuple; the two tuples of largest spread are merged, largest part with
// smallest, until one is left. On random real-valued items it lands far closer to the optimum
// than greedy LPT. Returns a bin per item.
std::vector<std::uint32_t> karmarkar_karp(const std::vector<std::uint64_t>& items,
                                          const std::vector<std::uint64_t>& offsets) {
  struct Part {
    std::uint64_t sum = 0;
    std::vector<std::uint32_t> members;
    std::int64_t bin = -1;  // the bin whose offset it holds, once merged with the offsets
  };
  using Tuple = std::vector<Part>;  // kept sorted, fullest part first
  const std::size_t k = offsets.size();
  const auto spread = [](const Tuple& t) { return t.front().sum - t.back().sum; };
  const auto by_sum = [](const Part& a, const Part& b) { return a.sum > b.sum; };
  std::vector<Tuple> tuples;
  for (std::uint32_t i = 0; i < items.size(); ++i) {
    Tuple t(k);
    t[0] = {items[i], {i}, -1};
    tuples.push_back(std::move(t));
  }
  Tuple bins(k);
  for (std::size_t b = 0; b < k; ++b) bins[b] = {offsets[b], {}, static_cast<std::int64_t>(b)};
  std::sort(bins.begin(), bins.end(), by_sum);
  tuples.push_back(std::move(bins));
  while (tuples.size() > 1) {
    std::sort(tuples.begin(), tuples.end(),
              [&](const Tuple& a, const Tuple& b) { return spread(a) > spread(b); });
    Tuple merged(k);
    for (std::size_t j = 0; j < k; ++j) {
      Part& a = tuples[0][j];
      Part& b = tuples[1][k - 1 - j];
      merged[j].sum = a.sum + b.sum;
      merged[j].members = std::move(a.members);
      merged[j].members.insert(merged[j].members.end(), b.members.begin(), b.members.end());
      merged[j].bin = std::max(a.bin, b.bin);
    }
    std::sort(merged.begin(), merged.end(), by_sum);
    tuples.erase(tuples.begin(), tuples.begin() + 2);
    tuples.push_back(std::move(merged));
  }
  std::vector<std::uint32_t> bin(items.size(), 0);
  for (const Part& part : tuples.front()) {
    for (const std::uint32_t i : part.members) bin[i] = static_cast<std::uint32_t>(part.bin);
  }
  return bin;
}

// Improves `bin` by single moves and pairwise swaps out of a fullest bin, each of which lowers
// that bin below its load without raising the other bin to it, until none is left. A cheap
// first incumbent: when the deadline ends the search early, this is what comes back.
void improve_by_swaps(const std::vector<std::uint64_t>& items,
                      const std::vector<std::uint64_t>& offsets, std::vector<std::uint32_t>& bin,
                      Clock::time_point deadline) {
  std::vector<std::uint64_t> load = offsets;
  for (std::size_t i = 0; i < items.size(); ++i) load[bin[i]] += items[i];
  for (bool improved = true; improved && Clock::now() < deadline;) {
    improved = false;
    const auto top =
        static_cast<std::uint32_t>(std::max_element(load.begin(), load.end()) - load.begin());
    // Best exchange: the pair (fullest, other) ends with the smallest larger side.
    std::uint64_t best = load[top];
    std::size_t best_i = items.size();
    std::size_t best_j = items.size();  // items.size(): a move, no swap
    std::uint32_t best_q = top;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (bin[i] != top) continue;
      for (std::uint32_t q = 0; q < load.size(); ++q) {
        if (q == top) continue;
        const std::uint64_t moved = std::max(load[top] - items[i], load[q] + items[i]);
        if (moved < best) {
          best = moved;
          best_i = i;
          best_j = items.size();
          best_q = q;
        }
      }
      for (std::size_t j = 0; j < items.size(); ++j) {
        if (bin[j] == top || items[j] >= items[i]) continue;
        const std::uint64_t d = items[i] - items[j];
        const std::uint64_t swapped = std::max(load[top] - d, load[bin[j]] + d);
        if (swapped < best) {
          best = swapped;
          best_i = i;
          best_j = j;
          best_q = bin[j];
        }
      }
    }
    if (best_i == items.size()) break;
    const std::uint64_t d = best_j == items.size() ? items[best_i] : items[best_i] - items[best_j];
    load[top] -= d;
    load[best_q] += d;
    bin[best_i] = best_q;
    if (best_j != items.size()) bin[best_j] = top;
    improved = true;
  }
}

}  // namespace

NumberPartition min_max_partition(const std::vector<std::uint64_t>& items,
                                  const std::vector<std::uint64_t>& offsets,
                                  const std::vector<std::uint32_t>& start,
                                  std::chrono::steady_clock::time_point deadline) {
  check_input(items, offsets, start);
  const std::size_t n = items.size();
  const std::size_t k = offsets.size();

  // First incumbent: the better of the start and Karmarkar-Karp, each improved by swaps.
  NumberPartition result;
  result.makespan = UINT64_MAX;
  for (std::vector<std::uint32_t> bin : {start, karmarkar_karp(items, offsets)}) {
    improve_by_swaps(items, offsets, bin, deadline);
    std::vector<std::uint64_t> load = offsets;
    for (std::size_t i = 0; i < n; ++i) load[bin[i]] += items[i];
    const std::uint64_t makespan = *std::max_element(load.begin(), load.end());
    if (makespan < result.makespan) {
      result.makespan = makespan;
      result.bin = std::move(bin);
    }
  }

  // Items heaviest first (ties by index), so bit order is size order.
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0U);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return items[a] > items[b]; });
  std::vector<std::uint64_t> value(n);
  for (std::size_t j = 0; j < n; ++j) value[j] = items[order[j]];

  // Lower bound: the largest offset; the average; the largest item on the emptiest bin.
  const std::uint64_t total = std::accumulate(value.begin(), value.end(), std::uint64_t{0});
  const std::uint64_t offset_sum =
      std::accumulate(offsets.begin(), offsets.end(), std::uint64_t{0});
  std::uint64_t bound = *std::max_element(offsets.begin(), offsets.end());
  bound = std::max(bound, (offset_sum + total + k - 1) / k);
  if (n > 0) bound = std::max(bound, *std::min_element(offsets.begin(), offsets.end()) + value[0]);
  const std::uint64_t upper = result.makespan;
  if (bound >= upper) {
    result.lower_bound = upper;
    result.proven = true;
    return result;
  }

  Search search(value, deadline);
  std::vector<std::uint32_t> all(n);
  std::iota(all.begin(), all.end(), 0U);
  const auto half = halves(value, all);
  const Sums xs = sorted_sums(value, half[0]);
  const Sums ys = sorted_sums(value, half[1]);
  const Mask everything = n == 64 ? ~Mask{0} : (Mask{1} << n) - 1;

  // One bin of each distinct offset can be the fullest; bins of equal offset are alike.
  std::vector<std::uint32_t> firsts;
  for (std::uint32_t b = 0; b < k; ++b) {
    bool seen = false;
    for (const std::uint32_t f : firsts) seen = seen || offsets[f] == offsets[b];
    if (!seen) firsts.push_back(b);
  }

  // Windows [lo, hi] of T, from the bound up, each twice as wide as the last; within a window
  // the candidates are tried in increasing T.
  std::uint64_t lo = bound;
  std::uint64_t width = std::max<std::uint64_t>(1, (upper - bound) >> 16);
  std::vector<Candidate> candidates;
  std::array<std::uint64_t, kMaxBins> caps{};
  std::array<std::uint32_t, kMaxBins> cap_bin{};
  std::array<Mask, kMaxBins> filled{};
  while (lo < upper) {
    const std::uint64_t hi = std::min(upper - 1, lo + (width - 1));
    candidates.clear();
    bool crowded = false;
    for (const std::uint32_t b : firsts) {
      const std::uint64_t f = offsets[b];
      if (hi < f) continue;
      search.pairs(xs, ys, lo > f ? lo - f : 0, hi - f, [&](Mask m, std::uint64_t s) {
        if (width > 1 && candidates.size() >= kMaxCandidates) {
          crowded = true;
          return false;
        }
        candidates.push_back({f + s, b, m});
        return true;
      });
      if (search.timed_out()) {
        result.lower_bound = lo;
        return result;
      }
      if (crowded) break;
    }
    if (crowded) {  // too many subsets in this window: try a narrower one
      width = std::max<std::uint64_t>(1, width / 4);
      continue;
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      return a.t != b.t ? a.t < b.t : a.bin != b.bin ? a.bin < b.bin : a.subset < b.subset;
    });
    for (const Candidate& c : candidates) {
      // The other bins, interchangeable ones next to each other, may fill up to T.
      std::vector<std::pair<std::uint64_t, std::uint32_t>> others;
      for (std::uint32_t b = 0; b < k; ++b) {
        if (b != c.bin) others.emplace_back(c.t - offsets[b], b);
      }
      std::sort(others.begin(), others.end(), std::greater<>());
      for (std::size_t q = 0; q < others.size(); ++q) {
        caps[q] = others[q].first;
        cap_bin[q] = others[q].second;
      }
      ++result.candidates;
      const std::span<const std::uint64_t> cap_span(caps.data(), others.size());
      const std::span<Mask> out(filled.data(), others.size());
      if (search.fits(everything & ~c.subset, cap_span, out)) {
        std::vector<std::uint32_t> bin_of(n);
        for (std::size_t q = 0; q <= others.size(); ++q) {
          const Mask m = q < others.size() ? filled[q] : c.subset;
          const std::uint32_t b = q < others.size() ? cap_bin[q] : c.bin;
          for (Mask r = m; r != 0; r &= r - 1) bin_of[order[std::countr_zero(r)]] = b;
        }
        result.bin = std::move(bin_of);
        result.makespan = c.t;
        result.lower_bound = c.t;
        result.proven = true;
        return result;
      }
      if (search.timed_out()) {
        result.lower_bound = c.t;
        return result;
      }
    }
    lo = hi + 1;
    width = width > (std::uint64_t{1} << 62) ? width : 2 * width;
  }
  // Nothing below the improved start's makespan: it is optimal.
  result.lower_bound = upper;
  result.proven = true;
  return result;
}

}  // namespace vela::lb::builtin
