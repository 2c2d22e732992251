// Rec-bisect-bf: recursive bisection of the object graph by breadth-first enumeration.
// A call takes a set of objects and a PE range [p0, p1): with one PE it assigns them all;
// otherwise it numbers the set breadth first over the communication graph restricted to the set
// (each connected component from a pseudo-peripheral object: the last object reached by a BFS
// from the component's first object; components follow each other in the set's order), then
// cuts that order where the prefix load is nearest to the share of the left PE half
// [p0, p0 + floor(k/2)) and recurses on both halves.
// Shares are capacities: capacity_p = speed_p * max(0, T - fixed_p), T = ideal_time and fixed_p
// the PE's background plus non-migratable work, so a faster PE gets proportionally more work
// and pinned work counts against its PE. Non-migratable objects keep their PE and take no part
// in the bisection (their edges are ignored for the ordering). Cuts are proportional to the
// set's own load, so rounding errors do not pile up: a PE ends within about one object's load
// of its share. O((n + m) log P) after the O(n + m log d) graph build.
#include <cstdint>
#include <utility>

#include "kernels/comm_graph.hpp"
#include "kernels/pe_times.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

class Bisector {
 public:
  explicit Bisector(const Instance& instance)
      : instance_(instance),
        graph_(instance, true),
        assignment_(current_assignment(instance)),
        seen_a_(instance.objects.size(), 0),
        seen_b_(instance.objects.size(), 0),
        member_(instance.objects.size(), 0) {
    const std::size_t pe_count = instance.pes.size();
    const double target = ideal_time(instance);
    const std::vector<double> fixed = fixed_pe_loads(instance);
    capacity_prefix_.assign(pe_count + 1, 0.0);
    speed_prefix_.assign(pe_count + 1, 0.0);
    for (std::size_t p = 0; p < pe_count; ++p) {
      const double speed = instance.pes[p].speed;
      capacity_prefix_[p + 1] = capacity_prefix_[p] + speed * std::max(0.0, target - fixed[p]);
      speed_prefix_[p + 1] = speed_prefix_[p] + speed;
    }
  }

  Assignment run() {
    std::vector<std::uint32_t> set;
    for (std::size_t i = 0; i < instance_.objects.size(); ++i) {
      if (instance_.objects[i].migratable) set.push_back(static_cast<std::uint32_t>(i));
    }
    queue_.resize(set.size());
    bisect(set, 0, set.size(), 0, instance_.pes.size());
    return std::move(assignment_);
  }

 private:
  // Share of PEs [p0, p1): capacity, or speed where the whole range has no capacity.
  double share(std::size_t p0, std::size_t mid, std::size_t p1) const {
    const double left = capacity_prefix_[mid] - capacity_prefix_[p0];
    const double all = capacity_prefix_[p1] - capacity_prefix_[p0];
    if (all > 0.0) return left / all;
    return (speed_prefix_[mid] - speed_prefix_[p0]) / (speed_prefix_[p1] - speed_prefix_[p0]);
  }

  // BFS over the members (member_ == mark) from `root`, marking `seen` with `mark`; appends
  // the visit order to queue_[tail...] and returns the new tail.
  std::size_t bfs(std::uint32_t root, std::vector<std::uint32_t>& seen, std::uint32_t mark,
                  std::size_t tail) {
    std::size_t head = tail;
    queue_[tail++] = root;
    seen[root] = mark;
    while (head < tail) {
      const std::uint32_t v = queue_[head++];
      for (const CommGraph::Neighbour* n = graph_.begin(v); n != graph_.end(v); ++n) {
        const std::uint32_t w = n->object;
        if (member_[w] != mark || seen[w] == mark) continue;
        seen[w] = mark;
        queue_[tail++] = w;
      }
    }
    return tail;
  }

  void bisect(std::vector<std::uint32_t>& set, std::size_t begin, std::size_t end, std::size_t p0,
              std::size_t p1) {
    if (begin == end) return;
    if (p1 - p0 == 1) {
      for (std::size_t k = begin; k < end; ++k) assignment_.pe[set[k]] = static_cast<PeId>(p0);
      return;
    }
    const std::uint32_t mark = ++mark_;
    for (std::size_t k = begin; k < end; ++k) member_[set[k]] = mark;
    // Breadth-first order, one component after another, into queue_[0, count).
    std::size_t count = 0;
    for (std::size_t k = begin; k < end; ++k) {
      const std::uint32_t seed = set[k];
      if (seen_b_[seed] == mark) continue;
      const std::size_t reached = bfs(seed, seen_a_, mark, count);  // scratch at queue_[count..]
      const std::uint32_t far = queue_[reached - 1];
      count = bfs(far, seen_b_, mark, count);
    }
    // Cut where the prefix load is nearest to the left half's share.
    double total = 0.0;
    for (std::size_t q = 0; q < count; ++q) total += instance_.objects[queue_[q]].load;
    const bool by_count = !(total > 0.0);  // all loads zero: split the objects by number
    if (by_count) total = static_cast<double>(count);
    const auto weight = [&](std::uint32_t i) { return by_count ? 1.0 : instance_.objects[i].load; };
    const std::size_t mid = p0 + (p1 - p0) / 2;
    const double want = total * share(p0, mid, p1);
    std::size_t cut = 0;
    double prefix = 0.0;
    while (cut < count) {
      const double next = prefix + weight(queue_[cut]);
      if (next > want) {
        if (next - want < want - prefix) ++cut;
        break;
      }
      prefix = next;
      ++cut;
    }
    std::copy(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(count),
              set.begin() + static_cast<std::ptrdiff_t>(begin));
    bisect(set, begin, begin + cut, p0, mid);
    bisect(set, begin + cut, end, mid, p1);
  }

  const Instance& instance_;
  CommGraph graph_;
  Assignment assignment_;
  std::vector<double> capacity_prefix_;
  std::vector<double> speed_prefix_;
  std::vector<std::uint32_t> seen_a_;
  std::vector<std::uint32_t> seen_b_;
  std::vector<std::uint32_t> member_;
  std::vector<std::uint32_t> queue_;
  std::uint32_t mark_ = 0;
};

class RecBisectBfStrategy final : public Strategy {
 public:
  Solution solve(const Instance& instance) override {
    if (instance.pes.empty() || instance.objects.empty()) {
      return {current_assignment(instance), {{"moves", 0.0}}};
    }
    Assignment a = Bisector(instance).run();
    StrategyStats stats = {{"moves", count_moves(current_assignment(instance), a)}};
    return {std::move(a), std::move(stats)};
  }
};

}  // namespace

StrategyInfo rec_bisect_bf() {
  return {"rec-bisect-bf",
          "recursive bisection of the object graph in breadth-first order, split by load",
          {},
          [](const ParamValues&) { return std::make_unique<RecBisectBfStrategy>(); }};
}

}  // namespace vela::lb::builtin
