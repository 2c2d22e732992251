// Diffusion: each PE balances only with its neighbour PEs, those whose objects talk to
// its own objects. One solve() is one invocation of the balancer, so load moves at most one
// boundary layer per PE pair and can stay "trapped" (seed 000, Fig. 4.17); repeated invocations
// (applying each result before the next) converge slowly.
//
// Semantics of one invocation:
//  - PE neighbours and each PE's boundary objects come from the placement at the start.
//  - PEs are processed in id order, each seeing the PE times (background + work / speed) as
//    left by the moves of PEs processed before it (a sequential sweep, not the seed's
//    simultaneous exchange: this keeps every move's guarantee below exact).
//  - PE i visits its neighbours j with lower time, lightest first. The candidates for j are
//    i's migratable objects of positive load that have not moved in this invocation and talk to
//    an object on j that has not moved either (so an object only goes to a PE it already talks
//    to, and moves at most once per invocation). Heaviest candidate first (ties: lower index),
//    a candidate moves when
//      (a) its time on j, load / speed_j, is below L_i - L_j, so max(L_i, L_j) drops, and
//      (b) removing it does not split i's remaining objects into more connected components
//          (a breadth-first search over i's objects from one of its neighbours on i that stops
//          once all its other neighbours on i are reached),
//    until L_i <= (1 + tolerance) * L_j or max_moves_per_pe objects left i in this invocation.
// Every move lowers the larger of the two PE times and leaves the receiver below the donor's
// old time, so the maximum PE time never rises.
//
// Cost: offline, one call builds the object adjacency and groups the objects by PE in
// O(n + e), then runs every PE's local step in turn. A PE's local step reads only its own
// objects, their neighbours' PEs and its neighbour PEs' times (its boundary, neighbour PEs, and
// per move attempt a search over its own objects), so in a distributed run, where each PE runs
// its own step, an invocation costs what the busiest PE's step costs, whatever the total
// object count. The stats report that figure ("max_pe_ms") and the mean ("mean_pe_ms"), and the
// same as counts of objects and adjacency entries read ("max_pe_visits", "mean_pe_visits").
// The runtime runs exactly this sweep with one agent per PE (diffusion_agent.cpp).
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/pe_times.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

// Undirected object adjacency in compressed rows; self-loops dropped, duplicates kept.
struct Adjacency {
  std::vector<std::size_t> start;
  std::vector<std::uint32_t> to;

  explicit Adjacency(const Instance& instance) : start(instance.objects.size() + 1, 0) {
    const std::size_t n = instance.objects.size();
    for (const Edge& e : instance.edges) {
      if (e.from == e.to || e.from >= n || e.to >= n) continue;
      ++start[e.from + 1];
      ++start[e.to + 1];
    }
    for (std::size_t v = 0; v < n; ++v) start[v + 1] += start[v];
    to.resize(start[n]);
    std::vector<std::size_t> fill(start.begin(), start.end() - 1);
    for (const Edge& e : instance.edges) {
      if (e.from == e.to || e.from >= n || e.to >= n) continue;
      to[fill[e.from]++] = e.to;
      to[fill[e.to]++] = e.from;
    }
  }

  const std::uint32_t* begin(std::uint32_t v) const { return to.data() + start[v]; }
  const std::uint32_t* end(std::uint32_t v) const { return to.data() + start[v + 1]; }
};

class Invocation {
 public:
  Invocation(const Instance& instance, double tolerance, std::size_t max_moves)
      : instance_(instance),
        graph_(instance),
        tolerance_(tolerance),
        max_moves_(max_moves),
        start_(current_assignment(instance).pe),
        pe_(start_),
        moved_(instance.objects.size(), 0),
        work_(pe_work(instance, Assignment{pe_}, false)),
        time_(instance.pes.size()),
        first_(instance.pes.size() + 1, 0),
        seen_(instance.objects.size(), 0),
        target_(instance.objects.size(), 0) {
    for (std::size_t p = 0; p < time_.size(); ++p) time_[p] = pe_time(instance.pes[p], work_[p]);
    // Each PE's objects (at the start), in index order: what a PE holds in a distributed run.
    for (const PeId p : start_) ++first_[static_cast<std::size_t>(p) + 1];
    for (std::size_t p = 0; p < time_.size(); ++p) first_[p + 1] += first_[p];
    owned_.resize(start_.size());
    std::vector<std::size_t> fill(first_.begin(), first_.end() - 1);
    for (std::uint32_t v = 0; v < start_.size(); ++v) {
      owned_[fill[static_cast<std::size_t>(start_[v])]++] = v;
    }
  }

  Assignment run() {
    for (std::size_t p = 0; p < instance_.pes.size(); ++p) {
      const auto begin = std::chrono::steady_clock::now();
      visits_ = 0;
      balance_pe(static_cast<PeId>(p));
      max_pe_visits_ = std::max(max_pe_visits_, visits_);
      sum_pe_visits_ += visits_;
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
              .count();
      max_pe_ms_ = std::max(max_pe_ms_, ms);
      sum_pe_ms_ += ms;
    }
    return Assignment{pe_};
  }

  // The longest and the mean local step of one PE: what an invocation costs when every PE
  // runs its own step, as in a distributed run.
  double max_pe_ms() const { return max_pe_ms_; }
  double mean_pe_ms() const {
    return time_.empty() ? 0.0 : sum_pe_ms_ / static_cast<double>(time_.size());
  }
  // The same in adjacency entries and objects read: a count, free of timer noise.
  std::size_t max_pe_visits() const { return max_pe_visits_; }
  double mean_pe_visits() const {
    return time_.empty() ? 0.0
                         : static_cast<double>(sum_pe_visits_) / static_cast<double>(time_.size());
  }

 private:
  // PE i's local step. It reads only its own objects, their neighbours' PEs and its
  // neighbour PEs' times, so its cost depends on the PE's objects, not on the total count.
  void balance_pe(PeId i) {
    find_boundary(i);
    std::vector<PeId> lower;
    for (const PeId j : neighbours_) {
      if (time(j) < time(i)) lower.push_back(j);
    }
    std::sort(lower.begin(), lower.end(),
              [&](PeId a, PeId b) { return time(a) < time(b) || (time(a) == time(b) && a < b); });
    std::size_t moves = 0;
    for (const PeId j : lower) {
      if (max_moves_ != 0 && moves >= max_moves_) break;
      moves += balance_pair(i, j, max_moves_ == 0 ? 0 : max_moves_ - moves);
    }
  }

  // PE i's boundary objects (those talking to another PE) and its neighbour PEs, both from
  // the placement at the start of the invocation.
  void find_boundary(PeId i) {
    boundary_.clear();
    neighbours_.clear();
    const auto p = static_cast<std::size_t>(i);
    for (std::size_t k = first_[p]; k < first_[p + 1]; ++k) {
      const std::uint32_t v = owned_[k];
      bool on_boundary = false;
      visits_ += 1 + static_cast<std::size_t>(graph_.end(v) - graph_.begin(v));
      for (const std::uint32_t* x = graph_.begin(v); x != graph_.end(v); ++x) {
        if (start_[*x] != i) {
          on_boundary = true;
          neighbours_.push_back(start_[*x]);
        }
      }
      if (on_boundary) boundary_.push_back(v);
    }
    std::sort(neighbours_.begin(), neighbours_.end());
    neighbours_.erase(std::unique(neighbours_.begin(), neighbours_.end()), neighbours_.end());
  }

  // Moves objects from i to j; `budget` 0 means no limit. Returns how many moved.
  std::size_t balance_pair(PeId i, PeId j, std::size_t budget) {
    const double speed_j = instance_.pes[static_cast<std::size_t>(j)].speed;
    std::vector<LoadedObject> candidates;
    for (const std::uint32_t v : boundary_) {
      ++visits_;
      const Object& o = instance_.objects[v];
      if (pe_[v] != i || moved_[v] != 0 || !o.migratable || !(o.load > 0.0)) continue;
      for (const std::uint32_t* x = graph_.begin(v); x != graph_.end(v); ++x) {
        ++visits_;
        if (pe_[*x] == j && moved_[*x] == 0) {
          candidates.push_back({o.load, v});
          break;
        }
      }
    }
    sort_heaviest_first(candidates);
    std::size_t moves = 0;
    for (const LoadedObject& c : candidates) {
      if (budget != 0 && moves >= budget) break;
      if (time(i) <= (1.0 + tolerance_) * time(j)) break;
      if (!(c.load / speed_j < time(i) - time(j))) continue;
      if (!keeps_connected(c.index, i)) continue;
      move(c.index, i, j);
      ++moves;
    }
    return moves;
  }

  // Whether removing object `o` from PE `pe` keeps the number of connected components of the
  // PE's objects from rising: all of o's neighbours on the PE must stay mutually reachable.
  bool keeps_connected(std::uint32_t o, PeId pe) {
    next_epoch();
    std::size_t targets = 0;
    std::uint32_t first = 0;
    for (const std::uint32_t* x = graph_.begin(o); x != graph_.end(o); ++x) {
      if (pe_[*x] != pe || target_[*x] == epoch_) continue;
      target_[*x] = epoch_;
      if (targets++ == 0) first = *x;
    }
    if (targets <= 1) return true;
    queue_.clear();
    queue_.push_back(first);
    seen_[first] = epoch_;
    seen_[o] = epoch_;  // removed
    std::size_t reached = 1;
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const std::uint32_t v = queue_[head];
      visits_ += 1 + static_cast<std::size_t>(graph_.end(v) - graph_.begin(v));
      for (const std::uint32_t* x = graph_.begin(v); x != graph_.end(v); ++x) {
        if (pe_[*x] != pe || seen_[*x] == epoch_) continue;
        seen_[*x] = epoch_;
        if (target_[*x] == epoch_ && ++reached == targets) return true;
        queue_.push_back(*x);
      }
    }
    return false;
  }

  void next_epoch() {
    if (++epoch_ == 0) {
      std::fill(seen_.begin(), seen_.end(), 0);
      std::fill(target_.begin(), target_.end(), 0);
      epoch_ = 1;
    }
  }

  void move(std::uint32_t o, PeId from, PeId to) {
    const double load = instance_.objects[o].load;
    pe_[o] = to;
    moved_[o] = 1;
    const auto f = static_cast<std::size_t>(from);
    const auto t = static_cast<std::size_t>(to);
    work_[f] -= load;
    work_[t] += load;
    time_[f] = pe_time(instance_.pes[f], work_[f]);
    time_[t] = pe_time(instance_.pes[t], work_[t]);
  }

  double time(PeId p) const { return time_[static_cast<std::size_t>(p)]; }

  const Instance& instance_;
  Adjacency graph_;
  double tolerance_;
  std::size_t max_moves_;
  std::vector<PeId> start_;  // placement at the start of the invocation
  std::vector<PeId> pe_;
  std::vector<char> moved_;
  std::vector<double> work_;
  std::vector<double> time_;
  std::vector<std::size_t> first_;       // owned_[first_[p] .. first_[p + 1]) are PE p's objects
  std::vector<std::uint32_t> owned_;     // objects grouped by starting PE
  std::vector<std::uint32_t> boundary_;  // the PE being balanced: objects talking to another PE
  std::vector<PeId> neighbours_;         // the PE being balanced: neighbour PEs, ascending
  double max_pe_ms_ = 0.0;
  double sum_pe_ms_ = 0.0;
  std::size_t visits_ = 0;  // the PE being balanced
  std::size_t max_pe_visits_ = 0;
  std::size_t sum_pe_visits_ = 0;
  std::vector<std::uint32_t> seen_;
  std::vector<std::uint32_t> target_;
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> queue_;
};

class DiffusionStrategy final : public Strategy {
 public:
  DiffusionStrategy(double tolerance, std::size_t max_moves)
      : tolerance_(tolerance), max_moves_(max_moves) {}

  Solution solve(const Instance& instance) override {
    const Assignment current = current_assignment(instance);
    if (instance.pes.empty()) return {current, {{"moves", 0.0}}};
    Invocation invocation(instance, tolerance_, max_moves_);
    Assignment a = invocation.run();
    StrategyStats stats = {{"moves", count_moves(current, a)},
                           {"max_pe_ms", invocation.max_pe_ms()},
                           {"mean_pe_ms", invocation.mean_pe_ms()},
                           {"max_pe_visits", static_cast<double>(invocation.max_pe_visits())},
                           {"mean_pe_visits", invocation.mean_pe_visits()}};
    return {std::move(a), std::move(stats)};
  }

 private:
  double tolerance_;
  std::size_t max_moves_;
};

}  // namespace

StrategyInfo diffusion() {
  return {"diffusion",
          "one invocation of neighbour-only diffusion: boundary objects move to lighter neighbour "
          "PEs they talk to, keeping each PE's objects connected; repeat to converge",
          {{"max_moves_per_pe", "most objects a PE gives away per invocation (0 = no limit)", 0.0,
            0.0, 1e9, true},
           {"tolerance", "a PE stops giving to a neighbour once within (1 + tolerance) of it", 0.0,
            0.0, 10.0, false}},
          [](const ParamValues& values) {
            return std::make_unique<DiffusionStrategy>(
                values.get("tolerance"), static_cast<std::size_t>(values.get("max_moves_per_pe")));
          }};
}

}  // namespace vela::lb::builtin
