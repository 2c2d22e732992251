// Refine-comm: refine that keeps communicating objects together. Like refine it only
// moves objects off PEs above level = (1 + tolerance) * ideal time, never raising the maximum
// PE time, but it chooses among the candidate moves (object, destination) by communication:
//   score = bytes the object exchanges with objects already on the destination
//         - bytes it exchanges with objects staying on its source,
// highest score first; ties go to the heavier object (fewer moves) and, for the destination, to
// the tightest fit (least room left).
//
// Phase 1 unloads the PEs above the level, heaviest first. For each such donor its objects sit
// in a max-heap by score; a destination is any PE that stays within the level after the move,
// looked for among the PEs of the object's neighbours plus the best-fit PE of all those with
// room (a std::set by room). Scores are re-checked when popped (destinations only lose room, so
// a stale score is too high and the object goes back with its new score), and the neighbours of
// a moved object that stay on the donor are re-scored at once (their score only rises).
// Phase 2 handles donors that no single move brings within the level (objects too big for the
// room left): while the heaviest PE is above the level it gives the best-scoring object that
// finishes strictly earlier on the least-loaded PE or a neighbour's PE. Every move lowers the
// heaviest PE without lifting any PE to its time, so the maximum never rises; with equal speeds
// phase 2 ends with max <= min PE time + its lightest object <= mean + largest object.
// O(n + m log d + moves * (d^2 + d log n + log P)) for phase 1, d = degree; phase 2 scans the
// heaviest PE's objects once per move and is rarely needed.
#include <limits>
#include <queue>
#include <set>
#include <utility>

#include "kernels/comm_graph.hpp"
#include "kernels/pe_times.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

constexpr PeId kNone = -1;

class CommRefiner {
 public:
  CommRefiner(const Instance& instance, double tolerance)
      : instance_(instance),
        graph_(instance),
        assignment_(current_assignment(instance)),
        work_(pe_work(instance, assignment_, false)),
        level_((1.0 + tolerance) * ideal_time(instance)),
        bytes_at_(instance.pes.size(), 0.0),
        position_(instance.objects.size(), 0),
        stamp_(instance.objects.size(), 0),
        on_pe_(instance.pes.size()) {
    for (std::size_t i = 0; i < instance.objects.size(); ++i) {
      std::vector<std::uint32_t>& list = on_pe_[static_cast<std::size_t>(assignment_.pe[i])];
      position_[i] = static_cast<std::uint32_t>(list.size());
      list.push_back(static_cast<std::uint32_t>(i));
    }
  }

  Assignment run() {
    const std::size_t pe_count = instance_.pes.size();
    std::vector<std::size_t> donors;
    room_key_.assign(pe_count, 0.0);
    for (std::size_t p = 0; p < pe_count; ++p) {
      if (time(p) > level_) donors.push_back(p);
      update_receiver(p);
    }
    std::sort(donors.begin(), donors.end(), [&](std::size_t a, std::size_t b) {
      const double ta = time(a);
      const double tb = time(b);
      return ta > tb || (ta == tb && a < b);
    });
    for (const std::size_t d : donors) {
      unload(d);
      update_receiver(d);  // a donor brought below the level may take objects of later donors
    }
    bool stuck = false;
    for (const std::size_t d : donors) stuck = stuck || time(d) > level_;
    if (stuck) settle();
    return std::move(assignment_);
  }

  std::size_t moves() const { return moves_; }
  std::size_t late_moves() const { return late_moves_; }

 private:
  struct Candidate {
    double score = 0.0;
    PeId to = kNone;
  };

  struct Entry {
    double score = 0.0;
    double load = 0.0;
    std::uint32_t index = 0;
    std::uint32_t stamp = 0;
  };

  // std::priority_queue puts the greatest on top: highest score, then heavier, then lower index.
  struct Lower {
    bool operator()(const Entry& a, const Entry& b) const {
      if (a.score != b.score) return a.score < b.score;
      if (a.load != b.load) return a.load < b.load;
      return a.index > b.index;
    }
  };

  using Heap = std::priority_queue<Entry, std::vector<Entry>, Lower>;

  double speed(std::size_t p) const { return instance_.pes[p].speed; }
  double time(std::size_t p) const { return pe_time(instance_.pes[p], work_[p]); }
  double finish(std::size_t p, double load) const {
    return pe_time(instance_.pes[p], work_[p] + load);
  }
  double room(std::size_t p) const { return (level_ - time(p)) * speed(p); }

  // Keeps receivers_ (PEs with room below the level, by room) in step with work_[p].
  void update_receiver(std::size_t p) {
    const auto pe = static_cast<PeId>(p);
    if (room_key_[p] > 0.0) receivers_.erase({room_key_[p], pe});
    room_key_[p] = room(p);
    if (room_key_[p] > 0.0) receivers_.emplace(room_key_[p], pe);
  }

  // Fills bytes_at_ with the object's bytes per neighbouring PE (touched_ lists them) and
  // returns the bytes to neighbours on its own PE. clear_bytes() undoes it.
  double gather(std::size_t i) {
    const auto own = assignment_.pe[i];
    double to_own = 0.0;
    for (const CommGraph::Neighbour* n = graph_.begin(i); n != graph_.end(i); ++n) {
      const PeId q = assignment_.pe[n->object];
      const auto b = static_cast<double>(n->bytes);
      if (q == own) {
        to_own += b;
        continue;
      }
      double& slot = bytes_at_[static_cast<std::size_t>(q)];
      if (slot == 0.0) touched_.push_back(q);
      slot += b;
      if (slot == 0.0) slot = std::numeric_limits<double>::min();  // zero-byte edges still count
    }
    return to_own;
  }

  void clear_bytes() {
    for (const PeId q : touched_) bytes_at_[static_cast<std::size_t>(q)] = 0.0;
    touched_.clear();
  }

  double bytes_at(PeId q) const {
    const double b = bytes_at_[static_cast<std::size_t>(q)];
    return b == std::numeric_limits<double>::min() ? 0.0 : b;
  }

  // Best destination for object i within the level (phase 1), kNone when it fits nowhere.
  Candidate best_within_level(std::size_t i) {
    const double load = instance_.objects[i].load;
    const PeId own = assignment_.pe[i];
    const double to_own = gather(i);
    Candidate best;
    double best_left = 0.0;
    const auto consider = [&](PeId q) {
      if (q == own) return;
      const auto p = static_cast<std::size_t>(q);
      if (finish(p, load) > level_) return;
      const double score = bytes_at(q) - to_own;
      const double left = room(p) - load;
      if (best.to == kNone || score > best.score ||
          (score == best.score && (left < best_left || (left == best_left && q < best.to)))) {
        best = {score, q};
        best_left = left;
      }
    };
    for (const PeId q : touched_) consider(q);
    const auto fit = receivers_.lower_bound({load, std::numeric_limits<PeId>::min()});
    if (fit != receivers_.end()) consider(fit->second);
    clear_bytes();
    return best;
  }

  void move(std::size_t i, PeId to) {
    const auto from = static_cast<std::size_t>(assignment_.pe[i]);
    const auto dest = static_cast<std::size_t>(to);
    const double load = instance_.objects[i].load;
    std::vector<std::uint32_t>& list = on_pe_[from];
    const std::uint32_t at = position_[i];
    list[at] = list.back();
    position_[list[at]] = at;
    list.pop_back();
    position_[i] = static_cast<std::uint32_t>(on_pe_[dest].size());
    on_pe_[dest].push_back(static_cast<std::uint32_t>(i));
    work_[from] -= load;
    work_[dest] += load;
    assignment_.pe[i] = to;
    ++moves_;
  }

  bool candidate_object(std::size_t i) const {
    const Object& o = instance_.objects[i];
    return o.migratable && o.load > 0.0;
  }

  void push(Heap& heap, std::size_t i) {
    const Candidate c = best_within_level(i);
    if (c.to != kNone) {
      heap.push({c.score, instance_.objects[i].load, static_cast<std::uint32_t>(i), stamp_[i]});
    }
  }

  void unload(std::size_t donor) {
    Heap heap;
    for (const std::uint32_t i : on_pe_[donor]) {
      if (candidate_object(i)) push(heap, i);
    }
    while (time(donor) > level_ && !heap.empty()) {
      const Entry e = heap.top();
      heap.pop();
      if (e.stamp != stamp_[e.index]) continue;
      const Candidate c = best_within_level(e.index);
      if (c.to == kNone) continue;  // fits nowhere any more, and rooms only shrink
      if (c.score < e.score) {
        heap.push({c.score, e.load, e.index, ++stamp_[e.index]});
        continue;
      }
      move(e.index, c.to);
      ++stamp_[e.index];
      update_receiver(static_cast<std::size_t>(c.to));
      for (const CommGraph::Neighbour* n = graph_.begin(e.index); n != graph_.end(e.index); ++n) {
        const std::uint32_t j = n->object;
        if (static_cast<std::size_t>(assignment_.pe[j]) != donor || !candidate_object(j)) continue;
        ++stamp_[j];
        push(heap, j);
      }
    }
  }

  // Phase 2: moves off the heaviest PE while it is above the level and some object finishes
  // strictly earlier elsewhere.
  void settle() {
    std::set<std::pair<double, PeId>> by_time;
    std::vector<double> key(instance_.pes.size());
    for (std::size_t p = 0; p < instance_.pes.size(); ++p) {
      key[p] = time(p);
      by_time.emplace(key[p], static_cast<PeId>(p));
    }
    const auto refresh = [&](std::size_t p) {
      by_time.erase({key[p], static_cast<PeId>(p)});
      key[p] = time(p);
      by_time.emplace(key[p], static_cast<PeId>(p));
    };
    const std::size_t cap = 4 * instance_.objects.size() + instance_.pes.size();
    for (std::size_t step = 0; step < cap; ++step) {
      const auto top = static_cast<std::size_t>(by_time.rbegin()->second);
      const double top_time = time(top);
      if (top_time <= level_) break;
      const PeId least = by_time.begin()->second;
      const double below = top_time - std::abs(top_time) * 1e-12;
      std::size_t pick = 0;
      Candidate best;
      double best_load = 0.0;
      double best_finish = 0.0;
      for (const std::uint32_t i : on_pe_[top]) {
        if (!candidate_object(i)) continue;
        const double load = instance_.objects[i].load;
        const double to_own = gather(i);
        const auto consider = [&](PeId q) {
          if (static_cast<std::size_t>(q) == top) return;
          const double f = finish(static_cast<std::size_t>(q), load);
          if (!(f < below)) return;
          const double score = bytes_at(q) - to_own;
          const bool better =
              best.to == kNone || score > best.score ||
              (score == best.score && (load > best_load || (load == best_load && f < best_finish)));
          if (better) {
            best = {score, q};
            pick = i;
            best_load = load;
            best_finish = f;
          }
        };
        for (const PeId q : touched_) consider(q);
        consider(least);
        clear_bytes();
      }
      if (best.to == kNone) break;
      move(pick, best.to);
      ++late_moves_;
      refresh(top);
      refresh(static_cast<std::size_t>(best.to));
    }
  }

  const Instance& instance_;
  CommGraph graph_;
  Assignment assignment_;
  std::vector<double> work_;
  double level_ = 0.0;
  std::vector<double> bytes_at_;  // scratch: bytes per PE of the object being scored
  std::vector<PeId> touched_;
  std::vector<std::uint32_t> position_;  // of each object in its PE's list
  std::vector<std::uint32_t> stamp_;     // heap entries with an older stamp are stale
  std::vector<std::vector<std::uint32_t>> on_pe_;
  std::vector<double> room_key_;
  std::set<std::pair<double, PeId>> receivers_;  // (room in work units, PE), room > 0
  std::size_t moves_ = 0;
  std::size_t late_moves_ = 0;
};

class RefineCommStrategy final : public Strategy {
 public:
  explicit RefineCommStrategy(double tolerance) : tolerance_(tolerance) {}

  Solution solve(const Instance& instance) override {
    if (instance.pes.empty() || instance.objects.empty()) {
      return {current_assignment(instance), {{"moves", 0.0}, {"late_moves", 0.0}}};
    }
    CommRefiner refiner(instance, tolerance_);
    Assignment a = refiner.run();
    StrategyStats stats = {{"moves", count_moves(current_assignment(instance), a)},
                           {"late_moves", static_cast<double>(refiner.late_moves())}};
    return {std::move(a), std::move(stats)};
  }

 private:
  double tolerance_;
};

}  // namespace

StrategyInfo refine_comm() {
  return {"refine-comm",
          "refine that prefers moves keeping communicating objects on the same PE",
          {{"tolerance", "PEs above (1 + tolerance) * ideal time are unloaded", 0.05, 0.0, 10.0,
            false}},
          [](const ParamValues& p) {
            return std::make_unique<RefineCommStrategy>(p.get("tolerance"));
          }};
}

}  // namespace vela::lb::builtin
