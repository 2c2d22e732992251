// The seed technique (see seed_growth.hpp) with per-target lazy heaps.
#include "seed_growth.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <utility>

#include "pe_times.hpp"

namespace vela::lb::builtin {

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
// Live candidates a target looks at per placement before falling back to the heaviest vertex:
// bounds the cost of candidates too light for the tolerance.
constexpr std::size_t kWindow = 16;

struct Candidate {
  std::uint64_t affinity = 0;
  double load = 0.0;
  std::uint32_t vertex = 0;
};

// "Less" of the candidate max-heaps: more communication first, then heavier, then lower id.
struct Weaker {
  bool operator()(const Candidate& a, const Candidate& b) const {
    if (a.affinity != b.affinity) return a.affinity < b.affinity;
    if (a.load != b.load) return a.load < b.load;
    return a.vertex > b.vertex;
  }
};

// Communication of (vertex, target) pairs: an open-addressing table with linear probing, sized
// for every pair that can occur, so it never grows; about 5x faster than std::unordered_map here.
class PairCounter {
 public:
  explicit PairCounter(std::size_t pairs) {
    std::size_t size = 16;
    while (size < 2 * pairs) size *= 2;
    slots_.assign(size, {kEmpty, 0});
  }

  std::uint64_t& operator[](std::uint64_t key) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t at = mix(key) & mask;; at = (at + 1) & mask) {
      Slot& slot = slots_[at];
      if (slot.key == key) return slot.count;
      if (slot.key == kEmpty) {
        slot.key = key;
        return slot.count;
      }
    }
  }

 private:
  static constexpr std::uint64_t kEmpty = std::numeric_limits<std::uint64_t>::max();
  struct Slot {
    std::uint64_t key;
    std::uint64_t count;
  };
  static std::size_t mix(std::uint64_t key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return static_cast<std::size_t>(key);
  }
  std::vector<Slot> slots_;
};

Instance targets_only(const GrowthProblem& p) {
  Instance in;
  in.pes = p.targets;
  return in;
}

class Growth {
 public:
  explicit Growth(const GrowthProblem& p)
      : p_(p),
        g_(*p.graph),
        targets_(p.targets.size()),
        pes_(targets_only(p)),
        finish_(pes_, p.work),
        target_of_(g_.vertices(), -1),
        heaps_(2 * targets_),
        affinity_(g_.adjncy.size() + p.anchors.size()) {
    double total = 0.0;
    for (const double l : p_.load) total += l;
    level_ = level_time(p_.targets, p_.work, total);
    for (std::uint32_t v = 0; v < g_.vertices(); ++v) {
      order_[stage(v)].push_back({p_.load[v], v});
    }
    for (std::vector<LoadedObject>& order : order_) sort_heaviest_first(order);
    for (const Anchor& a : p_.anchors) {
      if (a.vertex >= g_.vertices() || a.target >= targets_) {
        throw std::logic_error("seed growth: anchor out of range");
      }
      attract(a.vertex, a.target, a.weight);
    }
  }

  std::vector<std::int32_t> run() {
    // Seeds from the first stage first, so regions start where the first stage's vertices are.
    const std::size_t seeds = std::min(targets_, g_.vertices());
    for (std::size_t k = 0; k < seeds; ++k) {
      const std::uint32_t v = heaviest(0) != kNone ? heaviest(0) : heaviest(1);
      place(v, static_cast<std::uint32_t>(finish_.best(p_.load[v])));
    }
    for (int s = 0; s < 2; ++s) {
      for (std::uint32_t h = heaviest(s); h != kNone; h = heaviest(s)) {
        const double most = p_.load[h];
        const auto t = static_cast<std::uint32_t>(finish_.best(most));
        const std::uint32_t v = candidate(s, t, most);
        place(v != kNone ? v : h, t);
      }
    }
    return std::move(target_of_);
  }

 private:
  int stage(std::uint32_t v) const { return p_.first[v] != 0 ? 0 : 1; }
  bool placed(std::uint32_t v) const { return target_of_[v] >= 0; }
  std::uint64_t key(std::uint32_t v, std::uint32_t t) const {
    return std::uint64_t{v} * targets_ + t;
  }
  std::vector<Candidate>& heap(int s, std::uint32_t t) {
    return heaps_[static_cast<std::size_t>(s) * targets_ + t];
  }

  // The heaviest vertex of stage `s` not placed yet, or kNone.
  std::uint32_t heaviest(int s) {
    std::vector<LoadedObject>& order = order_[s];
    std::size_t& at = cursor_[s];
    while (at < order.size() && placed(order[at].index)) ++at;
    return at < order.size() ? order[at].index : kNone;
  }

  // `weight` more communication between vertex v and target t.
  void attract(std::uint32_t v, std::uint32_t t, std::uint64_t weight) {
    const std::uint64_t now = affinity_[key(v, t)] += weight;
    std::vector<Candidate>& h = heap(stage(v), t);
    h.push_back({now, p_.load[v], v});
    std::push_heap(h.begin(), h.end(), Weaker{});
  }

  // The best live candidate of stage `s` for target t: one with load >= (1 - tolerance) * most,
  // or one after which t still has room for the heaviest vertex left below the level time.
  std::uint32_t candidate(int s, std::uint32_t t, double most) {
    std::vector<Candidate>& h = heap(s, t);
    const double least = (1.0 - p_.tolerance) * most;
    const double room = level_ - most / p_.targets[t].speed;
    std::uint32_t chosen = kNone;
    kept_.clear();
    while (!h.empty() && kept_.size() < kWindow) {
      std::pop_heap(h.begin(), h.end(), Weaker{});
      const Candidate c = h.back();
      h.pop_back();
      // Stale: placed meanwhile, or superseded by an entry with more communication.
      if (placed(c.vertex) || c.affinity != affinity_[key(c.vertex, t)]) continue;
      if (c.load >= least || finish_.finish(static_cast<PeId>(t), c.load) <= room) {
        chosen = c.vertex;
        break;
      }
      kept_.push_back(c);
    }
    for (const Candidate& c : kept_) {
      h.push_back(c);
      std::push_heap(h.begin(), h.end(), Weaker{});
    }
    return chosen;
  }

  void place(std::uint32_t v, std::uint32_t t) {
    target_of_[v] = static_cast<std::int32_t>(t);
    finish_.add(static_cast<PeId>(t), p_.load[v]);
    for (std::int32_t j = g_.xadj[v]; j < g_.xadj[v + 1]; ++j) {
      const auto u = static_cast<std::uint32_t>(g_.adjncy[static_cast<std::size_t>(j)]);
      if (!placed(u))
        attract(u, t, static_cast<std::uint64_t>(g_.adjwgt[static_cast<std::size_t>(j)]));
    }
  }

  const GrowthProblem& p_;
  const PartitionGraph& g_;
  std::size_t targets_;
  Instance pes_;  // the targets as PEs, for EarliestFinish
  EarliestFinish finish_;
  double level_ = 0.0;  // when every target would finish if the vertices' load split freely
  std::vector<std::int32_t> target_of_;
  std::vector<LoadedObject> order_[2];  // vertices of each stage, heaviest first
  std::size_t cursor_[2] = {0, 0};
  std::vector<std::vector<Candidate>> heaps_;  // stage-major: heaps_[s * targets + t]
  PairCounter affinity_;                       // communication of each (vertex, target) pair so far
  std::vector<Candidate> kept_;
};

}  // namespace

double level_time(const std::vector<Pe>& pes, const std::vector<double>& fixed_work, double work) {
  const std::size_t count = pes.size();
  std::vector<double> fixed(count);
  for (std::size_t p = 0; p < count; ++p) fixed[p] = pe_time(pes[p], fixed_work[p]);
  std::vector<std::size_t> order(count);
  for (std::size_t p = 0; p < count; ++p) order[p] = p;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return fixed[a] < fixed[b]; });
  // Raise the level over the PEs in order of fixed time until the work is spent.
  double speed = 0.0;
  double weighted = 0.0;  // sum of speed * fixed over the PEs below the level
  double level = 0.0;
  for (std::size_t k = 0; k < count; ++k) {
    speed += pes[order[k]].speed;
    weighted += pes[order[k]].speed * fixed[order[k]];
    level = (work + weighted) / speed;
    if (k + 1 == count || level <= fixed[order[k + 1]]) break;
  }
  return level;
}

std::vector<std::int32_t> grow_from_seeds(const GrowthProblem& problem) {
  const std::size_t n = problem.graph->vertices();
  if (problem.load.size() != n || problem.first.size() != n ||
      problem.work.size() != problem.targets.size()) {
    throw std::logic_error("seed growth: sizes do not match");
  }
  if (n == 0) return {};
  if (problem.targets.empty()) throw std::logic_error("seed growth: no targets");
  return Growth(problem).run();
}

}  // namespace vela::lb::builtin
