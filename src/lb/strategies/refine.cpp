// Refine: moves objects off PEs above (1 + tolerance) * ideal time onto PEs below it,
// leaving everything else in place. Overloaded PEs are unloaded heaviest PE first; each takes
// the lightest of its objects that alone brings it within the level, else its heaviest object
// that fits anywhere, and gives it to the receiver it fits most tightly (best fit). PEs that
// cannot get within the level ("stuck": their objects are too big) are retried in further
// rounds at a raised level, as long as a move still lowers them without creating a new maximum.
// Receivers never exceed the level, which stays below the current maximum, so the maximum
// never rises. O(n + m log m + moves * (log m + log P) + rounds * P log P), m = objects on
// overloaded PEs.
#include <limits>
#include <set>
#include <utility>

#include "kernels/pe_times.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

constexpr std::size_t kMaxRounds = 256;

// The objects of the overloaded PEs in one array, each PE's slice heaviest first. Objects that
// left are skipped in near-constant time by path-compressed links to the next free entry in
// either direction.
class DonorObjects {
 public:
  struct Slice {
    std::size_t begin = 0;
    std::size_t end = 0;
  };

  // `donor_of[p]` is the donor number of PE p, or -1.
  DonorObjects(const Instance& instance, const std::vector<std::int32_t>& donor_of,
               std::size_t donors)
      : slices_(donors) {
    std::vector<std::size_t> count(donors + 1, 0);
    for (const Object& o : instance.objects) {
      const std::int32_t d = donor_of[static_cast<std::size_t>(o.pe)];
      if (d >= 0 && movable(o)) ++count[static_cast<std::size_t>(d) + 1];
    }
    for (std::size_t d = 0; d < donors; ++d) count[d + 1] += count[d];
    entries_.resize(count[donors]);
    for (std::size_t d = 0; d < donors; ++d) slices_[d] = {count[d], count[d + 1]};
    for (std::size_t i = 0; i < instance.objects.size(); ++i) {
      const Object& o = instance.objects[i];
      const std::int32_t d = donor_of[static_cast<std::size_t>(o.pe)];
      if (d >= 0 && movable(o)) {
        entries_[count[static_cast<std::size_t>(d)]++] = {o.load, static_cast<std::uint32_t>(i)};
      }
    }
    for (const Slice& s : slices_) {
      std::sort(entries_.begin() + static_cast<std::ptrdiff_t>(s.begin),
                entries_.begin() + static_cast<std::ptrdiff_t>(s.end), heavier);
    }
    next_.resize(entries_.size() + 1);
    previous_.resize(entries_.size() + 1);
    for (std::size_t i = 0; i <= entries_.size(); ++i) {
      next_[i] = static_cast<std::uint32_t>(i);
      previous_[i] = static_cast<std::uint32_t>(i);
    }
  }

  const Slice& slice(std::size_t donor) const { return slices_[donor]; }
  const LoadedObject& at(std::size_t entry) const { return entries_[entry]; }

  // First entry of the slice whose load is <= `load` (slices are sorted heaviest first).
  std::size_t first_at_most(const Slice& s, double load) const {
    return first_where(s, [load](const LoadedObject& o) { return o.load > load; });
  }
  // First entry of the slice whose load is < `load`.
  std::size_t first_below(const Slice& s, double load) const {
    return first_where(s, [load](const LoadedObject& o) { return o.load >= load; });
  }

  // The first entry still present at or after `from`, or s.end.
  std::size_t first_present(const Slice& s, std::size_t from) {
    return std::min(find(next_, from), s.end);
  }
  // The last entry still present before `to`, or s.end when there is none from s.begin on.
  std::size_t last_present(const Slice& s, std::size_t to) {
    const std::size_t link = find(previous_, to);  // link k stands for entry k - 1
    return link > s.begin ? link - 1 : s.end;
  }

  void remove(std::size_t entry) {
    next_[entry] = static_cast<std::uint32_t>(entry + 1);
    previous_[entry + 1] = static_cast<std::uint32_t>(entry);
  }

 private:
  template <typename Before>
  std::size_t first_where(const Slice& s, Before before) const {
    const auto begin = entries_.begin();
    const auto at = std::partition_point(begin + static_cast<std::ptrdiff_t>(s.begin),
                                         begin + static_cast<std::ptrdiff_t>(s.end), before);
    return static_cast<std::size_t>(at - begin);
  }

  // Zero-load objects never help a PE, so they are not candidates.
  static bool movable(const Object& o) { return o.migratable && o.load > 0.0; }

  static std::size_t find(std::vector<std::uint32_t>& link, std::size_t i) {
    while (link[i] != i) {
      link[i] = link[link[i]];
      i = link[i];
    }
    return i;
  }

  std::vector<Slice> slices_;
  std::vector<LoadedObject> entries_;
  std::vector<std::uint32_t> next_;
  std::vector<std::uint32_t> previous_;
};

class Refiner {
 public:
  Refiner(const Instance& instance, double tolerance)
      : instance_(instance), assignment_(current_assignment(instance)) {
    work_ = pe_work(instance, assignment_, false);
    target_ = ideal_time(instance);
    level_ = (1.0 + tolerance) * target_;
    step_ = target_ / 1024.0;
  }

  RefineOutcome run() {
    const std::size_t pe_count = instance_.pes.size();
    std::vector<std::int32_t> donor_of(pe_count, -1);
    for (std::size_t p = 0; p < pe_count; ++p) {
      if (time(p) > level_) {
        donor_of[p] = static_cast<std::int32_t>(donor_pe_.size());
        donor_pe_.push_back(p);
      }
    }
    std::size_t rounds = 0;
    if (!donor_pe_.empty()) {
      DonorObjects objects(instance_, donor_of, donor_pe_.size());
      double heaviest = 0.0;  // of the objects that may move
      for (std::size_t d = 0; d < donor_pe_.size(); ++d) {
        const DonorObjects::Slice& s = objects.slice(d);
        if (s.begin != s.end) heaviest = std::max(heaviest, objects.at(s.begin).load);
      }
      double slowest = instance_.pes[0].speed;
      for (const Pe& pe : instance_.pes) slowest = std::min(slowest, pe.speed);
      level_cap_ = level_ + heaviest / slowest;
      std::vector<std::size_t> active(donor_pe_.size());
      for (std::size_t d = 0; d < active.size(); ++d) active[d] = d;
      while (!active.empty() && rounds < kMaxRounds) {
        ++rounds;
        const std::size_t moves_before = moves_;
        active = unload_round(objects, std::move(active));
        if (!active.empty() && !raise_level(objects, active, moves_ != moves_before)) break;
      }
    }
    return {std::move(assignment_), std::move(work_), target_, rounds};
  }

 private:
  using Receivers = std::set<std::pair<double, PeId>>;  // (room, PE), room in work units

  double time(std::size_t p) const { return pe_time(instance_.pes[p], work_[p]); }
  double room(std::size_t p) const { return (level_ - time(p)) * instance_.pes[p].speed; }

  // Unloads the `active` donors, heaviest first, down to the level; returns those left above.
  std::vector<std::size_t> unload_round(DonorObjects& objects, std::vector<std::size_t> active) {
    Receivers receivers;
    for (std::size_t p = 0; p < instance_.pes.size(); ++p) {
      const double r = room(p);
      if (r > 0.0) receivers.emplace(r, static_cast<PeId>(p));
    }
    std::sort(active.begin(), active.end(), [&](std::size_t a, std::size_t b) {
      const double ta = time(donor_pe_[a]);
      const double tb = time(donor_pe_[b]);
      return ta > tb || (ta == tb && a < b);
    });
    std::vector<std::size_t> stuck;
    for (const std::size_t d : active) {
      if (time(donor_pe_[d]) <= level_) continue;
      unload(objects, d, receivers);
      if (time(donor_pe_[d]) > level_) stuck.push_back(d);
    }
    return stuck;
  }

  void unload(DonorObjects& objects, std::size_t donor, Receivers& receivers) {
    const std::size_t pe = donor_pe_[donor];
    const DonorObjects::Slice& s = objects.slice(donor);
    while (!receivers.empty()) {
      const double excess = (time(pe) - level_) * instance_.pes[pe].speed;
      if (excess <= 0.0) return;
      const double most_room = receivers.rbegin()->first;
      const std::size_t fits = objects.first_at_most(s, most_room);
      const std::size_t enough_end = objects.first_below(s, excess);
      // Lightest object that alone brings the PE within the level, else heaviest that fits.
      std::size_t pick = s.end;
      if (fits < enough_end) {
        pick = objects.last_present(s, enough_end);
        if (pick != s.end && pick < fits) pick = s.end;
      }
      if (pick == s.end) pick = objects.first_present(s, std::max(fits, enough_end));
      if (pick == s.end) return;
      const LoadedObject o = objects.at(pick);
      const auto tightest = receivers.lower_bound({o.load, std::numeric_limits<PeId>::min()});
      const auto to = static_cast<std::size_t>(tightest->second);
      receivers.erase(tightest);
      work_[to] += o.load;
      work_[pe] -= o.load;
      if (const double left = room(to); left > 0.0) receivers.emplace(left, static_cast<PeId>(to));
      assignment_.pe[o.index] = static_cast<PeId>(to);
      objects.remove(pick);
      ++moves_;
    }
  }

  // Raises the level to where a stuck donor's lightest object fits on some PE while the donor
  // still ends lower than it was; false when no stuck donor can improve that way. For few
  // rounds the raise is at least `step_`, which doubles each round, but steps stop at the
  // initial level plus one object (so, with equal speeds, the maximum ends within one object
  // of the tolerance) and never reach that donor's time (so the round makes progress).
  bool raise_level(DonorObjects& objects, const std::vector<std::size_t>& stuck,
                   bool moved_this_round) {
    const std::vector<std::size_t> candidates = fastest_for_time(stuck);
    double need_min = std::numeric_limits<double>::infinity();
    double need_donor_time = 0.0;
    for (const std::size_t d : stuck) {
      const DonorObjects::Slice& s = objects.slice(d);
      const std::size_t lightest = objects.last_present(s, s.end);
      if (lightest == s.end) continue;
      const double load = objects.at(lightest).load;
      double need = std::numeric_limits<double>::infinity();
      for (const std::size_t r : candidates) need = std::min(need, time(r) + load / speed(r));
      need += need * 1e-12;  // a hair above, so that rounding cannot make the object miss
      const double donor_time = time(donor_pe_[d]);
      if (need < donor_time && need < need_min) {
        need_min = need;
        need_donor_time = donor_time;
      }
    }
    if (need_min == std::numeric_limits<double>::infinity()) return false;
    const double stepped = std::min(level_ + step_, level_cap_);
    const double raised = stepped < need_donor_time ? std::max(need_min, stepped) : need_min;
    if (raised <= level_ && !moved_this_round) return false;  // the same level again: stalled
    level_ = std::max(level_, raised);
    step_ *= 2.0;
    return true;
  }

  // The PEs, other than `stuck` donors, that no other such PE beats on both time and speed:
  // the only ones that can finish an object earliest.
  std::vector<std::size_t> fastest_for_time(const std::vector<std::size_t>& stuck) const {
    std::vector<char> excluded(instance_.pes.size(), 0);
    for (const std::size_t d : stuck) excluded[donor_pe_[d]] = 1;
    std::vector<std::size_t> order;
    for (std::size_t p = 0; p < instance_.pes.size(); ++p) {
      if (!excluded[p]) order.push_back(p);
    }
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const double ta = time(a);
      const double tb = time(b);
      return ta < tb || (ta == tb && (speed(a) > speed(b) || (speed(a) == speed(b) && a < b)));
    });
    std::vector<std::size_t> frontier;
    double fastest = 0.0;
    for (const std::size_t p : order) {
      if (speed(p) > fastest) {
        frontier.push_back(p);
        fastest = speed(p);
      }
    }
    return frontier;
  }

  double speed(std::size_t p) const { return instance_.pes[p].speed; }

  const Instance& instance_;
  Assignment assignment_;
  std::vector<double> work_;
  double target_ = 0.0;
  double level_ = 0.0;
  double step_ = 0.0;
  double level_cap_ = 0.0;
  std::size_t moves_ = 0;
  std::vector<std::size_t> donor_pe_;
};

class RefineStrategy final : public Strategy {
 public:
  explicit RefineStrategy(double tolerance) : tolerance_(tolerance) {}

  Solution solve(const Instance& instance) override {
    RefineOutcome outcome = refine_placement(instance, tolerance_);
    StrategyStats stats = {{"moves", count_moves(current_assignment(instance), outcome.assignment)},
                           {"rounds", static_cast<double>(outcome.rounds)}};
    return {std::move(outcome.assignment), std::move(stats)};
  }

 private:
  double tolerance_;
};

}  // namespace

RefineOutcome refine_placement(const Instance& instance, double tolerance) {
  return Refiner(instance, tolerance).run();
}

StrategyInfo refine() {
  return {
      "refine",
      "moves objects off PEs above (1 + tolerance) * ideal time; few migrations",
      {{"tolerance", "PEs above (1 + tolerance) * ideal time are unloaded", 0.05, 0.0, 10.0,
        false}},
      [](const ParamValues& p) { return std::make_unique<RefineStrategy>(p.get("tolerance")); }};
}

}  // namespace vela::lb::builtin
