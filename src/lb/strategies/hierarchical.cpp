// Hierarchical: PEs are split into groups; every call balances inside each group with
// the `inner` strategy, and every `outer_every`-th call first balances across groups with the
// `outer` strategy, which sees only the objects overloaded groups offer: with more than one
// group, no single solve needs the whole instance (the central gather a flat strategy needs).
//
// Groups: `group_size` consecutive PEs; with group_size = 0, one group per cluster when the
// instance has several clusters, else groups of about sqrt(P) PEs.
// Across groups (when due): each group is summarised by its work, capacity (sum of speeds) and
// background; a group whose time exceeds (1 + outer_tolerance) times the mean offers migratable
// objects covering its excess work over the mean, those talking to other groups first. The
// `outer` strategy places these candidates on a coarse instance with one PE per group (speed =
// the group's capacity, background = the time of the work it does not offer); a candidate sent
// to another group lands on that group's lightest PE.
// Inside groups: the `inner` strategy solves each group's objects (arrivals included) on its
// PEs, with the edges inside the group; one inner strategy object per group keeps its state
// (a curve cache, say) from call to call.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/pe_times.hpp"
#include "strategies.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::lb::builtin {

namespace {

constexpr const char* kName = "hierarchical";

// Items 0..n-1 sorted by their key (keys[i]; keys of `count` or more are left out): bucket b
// holds items[begin[b] .. begin[b + 1]), ascending.
struct Buckets {
  std::vector<std::size_t> begin;
  std::vector<std::uint32_t> items;

  Buckets(const std::vector<std::uint32_t>& keys, std::size_t count) : begin(count + 1, 0) {
    for (const std::uint32_t k : keys) {
      if (k < count) ++begin[k + 1];
    }
    for (std::size_t k = 0; k < count; ++k) begin[k + 1] += begin[k];
    items.resize(begin[count]);
    std::vector<std::size_t> next(begin.begin(), begin.end() - 1);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] < count) items[next[keys[i]]++] = static_cast<std::uint32_t>(i);
    }
  }

  std::size_t size(std::size_t b) const { return begin[b + 1] - begin[b]; }
};

struct Groups {
  std::vector<std::uint32_t> of_pe;    // group of each PE
  std::vector<std::vector<PeId>> pes;  // PEs of each group, ascending
  std::vector<PeId> local;             // position of each PE in its group
};

// The group of each object under `a`.
std::vector<std::uint32_t> object_groups(const Groups& groups, const Assignment& a) {
  std::vector<std::uint32_t> of(a.pe.size());
  for (std::size_t i = 0; i < of.size(); ++i) {
    of[i] = groups.of_pe[static_cast<std::size_t>(a.pe[i])];
  }
  return of;
}

Groups make_groups(const std::vector<Pe>& pes, std::size_t group_size) {
  Groups g;
  g.of_pe.resize(pes.size());
  std::vector<std::int32_t> clusters;
  if (group_size == 0) {
    for (const Pe& pe : pes) clusters.push_back(pe.cluster);
    std::sort(clusters.begin(), clusters.end());
    clusters.erase(std::unique(clusters.begin(), clusters.end()), clusters.end());
    if (clusters.size() < 2) {
      const double root = std::round(std::sqrt(static_cast<double>(pes.size())));
      group_size = std::max<std::size_t>(1, static_cast<std::size_t>(root));
    }
  }
  for (std::size_t p = 0; p < pes.size(); ++p) {
    g.of_pe[p] = group_size != 0
                     ? static_cast<std::uint32_t>(p / group_size)
                     : static_cast<std::uint32_t>(
                           std::lower_bound(clusters.begin(), clusters.end(), pes[p].cluster) -
                           clusters.begin());
  }
  const std::uint32_t count = pes.empty() ? 0 : *std::max_element(g.of_pe.begin(), g.of_pe.end());
  g.pes.resize(pes.empty() ? 0 : count + 1);
  g.local.resize(pes.size());
  for (std::size_t p = 0; p < pes.size(); ++p) {
    std::vector<PeId>& members = g.pes[g.of_pe[p]];
    g.local[p] = static_cast<PeId>(members.size());
    members.push_back(static_cast<PeId>(p));
  }
  return g;
}

// One PE per group (speed = the group's capacity, background = the time of its `fixed` work)
// and the candidates on their groups, with the edges between candidates.
template <class GroupOf>
Instance coarse_instance(const Instance& in, const Groups& groups,
                         const std::vector<double>& capacity, const std::vector<double>& fixed,
                         const std::vector<std::uint32_t>& candidates,
                         const std::vector<std::int64_t>& coarse_index, GroupOf group_of) {
  Instance coarse;
  coarse.dims = in.dims;
  coarse.pes.resize(groups.pes.size());
  for (std::size_t g = 0; g < groups.pes.size(); ++g) {
    Pe& pe = coarse.pes[g];
    pe.speed = capacity[g];
    pe.background = std::max(0.0, fixed[g]) / capacity[g];
    pe.cluster = in.pes[static_cast<std::size_t>(groups.pes[g][0])].cluster;
  }
  for (const std::uint32_t i : candidates) {
    coarse.objects.push_back(in.objects[i]);
    coarse.objects.back().pe = static_cast<PeId>(group_of(i));
  }
  for (const Edge& e : in.edges) {
    if (coarse_index[e.from] >= 0 && coarse_index[e.to] >= 0) {
      Edge copy = e;
      copy.from = static_cast<std::uint32_t>(coarse_index[e.from]);
      copy.to = static_cast<std::uint32_t>(coarse_index[e.to]);
      coarse.edges.push_back(copy);
    }
  }
  return coarse;
}

// What the across-groups level decided.
struct OuterResult {
  std::size_t candidates = 0;
  std::size_t cross_moves = 0;
};

class HierarchicalStrategy final : public Strategy {
 public:
  explicit HierarchicalStrategy(const ParamValues& p)
      : group_size_(static_cast<std::size_t>(p.get("group_size"))),
        outer_every_(static_cast<std::uint64_t>(p.get("outer_every"))),
        outer_tolerance_(p.get("outer_tolerance")),
        inner_name_(p.text("inner")),
        outer_(make_nested(p.text("outer"))) {
    make_nested(inner_name_);  // a bad name fails here, not at the first solve
  }

  Solution solve(const Instance& instance) override {
    ++calls_;
    const Assignment current = current_assignment(instance);
    Assignment a = current;
    const Groups groups = make_groups(instance.pes, group_size_);
    const std::size_t group_count = groups.pes.size();
    const bool outer_due = (calls_ - 1) % outer_every_ == 0 && group_count > 1;
    max_seen_ = 0;
    OuterResult outer;
    double outer_ms = 0.0;
    if (outer_due) {
      const auto start = std::chrono::steady_clock::now();
      outer = balance_groups(instance, groups, a);
      outer_ms = since(start);
    }
    double inner_ms = 0.0;
    double max_inner_ms = 0.0;
    balance_inside(instance, groups, a, inner_ms, max_inner_ms);
    StrategyStats stats = {{"moves", count_moves(current, a)},
                           {"groups", static_cast<double>(group_count)},
                           {"outer_ran", outer_due ? 1.0 : 0.0},
                           {"candidates", static_cast<double>(outer.candidates)},
                           {"cross_group_moves", static_cast<double>(outer.cross_moves)},
                           {"max_objects_seen", static_cast<double>(max_seen_)},
                           {"outer_ms", outer_ms},
                           {"inner_ms", inner_ms},
                           {"max_inner_ms", max_inner_ms}};
    return {std::move(a), std::move(stats)};
  }

 private:
  // The text parameters exclude this strategy already; this guards direct construction.
  static std::unique_ptr<Strategy> make_nested(const std::string& name) {
    if (name == kName) throw ParamError(std::string(kName) + ": cannot run itself inside itself");
    return make_strategy(name);
  }

  static double since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  }

  // The across-groups level: picks candidates, solves the coarse instance and moves each
  // candidate sent elsewhere to the lightest PE of its new group (in `a`).
  OuterResult balance_groups(const Instance& in, const Groups& groups, Assignment& a) {
    const std::size_t group_count = groups.pes.size();
    const std::vector<std::uint32_t> group_of_object = object_groups(groups, a);
    const auto group_of = [&](std::size_t object) {
      return static_cast<std::size_t>(group_of_object[object]);
    };
    // Summaries: work (load at speed 1), capacity (speeds) and background as work.
    std::vector<double> work(group_count, 0.0), capacity(group_count, 0.0), busy(group_count, 0.0);
    for (std::size_t p = 0; p < in.pes.size(); ++p) {
      capacity[groups.of_pe[p]] += in.pes[p].speed;
      busy[groups.of_pe[p]] += in.pes[p].speed * in.pes[p].background;
    }
    double total = 0.0;
    double total_capacity = 0.0;
    for (std::size_t i = 0; i < in.objects.size(); ++i) work[group_of(i)] += in.objects[i].load;
    for (std::size_t g = 0; g < group_count; ++g) {
      total += work[g] + busy[g];
      total_capacity += capacity[g];
    }
    const double mean_time = total / total_capacity;
    std::vector<std::uint8_t> border(in.objects.size(), 0);
    for (const Edge& e : in.edges) {
      if (group_of(e.from) != group_of(e.to)) border[e.from] = border[e.to] = 1;
    }
    const Buckets members(group_of_object, group_count);
    std::vector<std::uint32_t> candidates;
    std::vector<double> offered(group_count, 0.0);
    for (std::size_t g = 0; g < group_count; ++g) {
      const double time = (work[g] + busy[g]) / capacity[g];
      if (time <= (1.0 + outer_tolerance_) * mean_time) continue;
      offered[g] =
          offer(in, members, g, work[g] + busy[g] - mean_time * capacity[g], border, candidates);
    }
    OuterResult result;
    result.candidates = candidates.size();
    if (candidates.empty()) return result;
    max_seen_ = std::max(max_seen_, candidates.size());

    std::vector<std::int64_t> coarse_index(in.objects.size(), -1);
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      coarse_index[candidates[c]] = static_cast<std::int64_t>(c);
    }
    std::vector<double> fixed(group_count);
    for (std::size_t g = 0; g < group_count; ++g) fixed[g] = work[g] + busy[g] - offered[g];
    const Instance coarse =
        coarse_instance(in, groups, capacity, fixed, candidates, coarse_index, group_of);
    const Assignment decided = checked(outer_->solve(coarse), coarse, "outer");

    // Arrivals, heaviest first, each to the group's PE with the lowest time so far.
    std::vector<std::vector<std::uint32_t>> arrivals(group_count);
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      const auto to = static_cast<std::size_t>(decided.pe[c]);
      if (to != group_of(candidates[c])) arrivals[to].push_back(candidates[c]);
    }
    std::vector<double> pe_work_now(in.pes.size(), 0.0);
    for (std::size_t i = 0; i < in.objects.size(); ++i) {
      if (coarse_index[i] < 0 ||
          decided.pe[static_cast<std::size_t>(coarse_index[i])] == static_cast<PeId>(group_of(i))) {
        pe_work_now[static_cast<std::size_t>(a.pe[i])] += in.objects[i].load;
      }
    }
    for (std::size_t g = 0; g < group_count; ++g) {
      result.cross_moves += arrivals[g].size();
      place_arrivals(in, groups.pes[g], arrivals[g], pe_work_now, a);
    }
    return result;
  }

  // Adds to `out` migratable objects of group g whose loads cover `excess`. Objects that talk to
  // other groups come first (moving them need not cut more edges), then the others; within each
  // kind, heaviest first (few objects to send), each taken while it fits in what is left, then
  // the lightest one skipped if that covers the rest. Returns the load offered.
  static double offer(const Instance& in, const Buckets& members, std::size_t g, double excess,
                      const std::vector<std::uint8_t>& border, std::vector<std::uint32_t>& out) {
    std::array<std::vector<LoadedObject>, 2> kinds;  // talking to other groups, the rest
    for (std::size_t k = members.begin[g]; k < members.begin[g + 1]; ++k) {
      const std::uint32_t i = members.items[k];
      const Object& o = in.objects[i];
      if (o.migratable && o.load > 0.0) kinds[border[i] != 0 ? 0 : 1].push_back({o.load, i});
    }
    double left = excess;
    double offered = 0.0;
    const auto take = [&](const LoadedObject& o) {
      out.push_back(o.index);
      left -= o.load;
      offered += o.load;
    };
    for (std::vector<LoadedObject>& objects : kinds) {
      sort_heaviest_first(objects);
      const LoadedObject* lightest_skipped = nullptr;
      for (const LoadedObject& o : objects) {
        if (left <= 0.0) return offered;
        if (o.load <= left) {
          take(o);
        } else {
          lightest_skipped = &o;
        }
      }
      if (left > 0.0 && lightest_skipped != nullptr) {
        take(*lightest_skipped);
        return offered;
      }
    }
    return offered;
  }

  static void place_arrivals(const Instance& in, const std::vector<PeId>& pes,
                             std::vector<std::uint32_t>& arrivals, std::vector<double>& work,
                             Assignment& a) {
    if (arrivals.empty()) return;
    std::sort(arrivals.begin(), arrivals.end(), [&](std::uint32_t x, std::uint32_t y) {
      return heavier({in.objects[x].load, x}, {in.objects[y].load, y});
    });
    using Entry = std::pair<double, PeId>;  // (time, PE): the lowest time, then the lowest id
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> lightest;
    for (const PeId p : pes) {
      const auto q = static_cast<std::size_t>(p);
      lightest.emplace(pe_time(in.pes[q], work[q]), p);
    }
    for (const std::uint32_t i : arrivals) {
      const PeId p = lightest.top().second;
      lightest.pop();
      const auto q = static_cast<std::size_t>(p);
      work[q] += in.objects[i].load;
      a.pe[i] = p;
      lightest.emplace(pe_time(in.pes[q], work[q]), p);
    }
  }

  // Every group's objects and internal edges, solved on its PEs by its inner strategy.
  void balance_inside(const Instance& in, const Groups& groups, Assignment& a, double& total_ms,
                      double& max_ms) {
    const std::size_t group_count = groups.pes.size();
    if (inner_.size() != group_count) {
      inner_.clear();
      for (std::size_t g = 0; g < group_count; ++g) inner_.push_back(make_strategy(inner_name_));
    }
    const std::vector<std::uint32_t> group_of = object_groups(groups, a);
    std::vector<std::uint32_t> edge_group(in.edges.size());
    for (std::size_t e = 0; e < in.edges.size(); ++e) {
      const std::uint32_t g = group_of[in.edges[e].from];
      edge_group[e] = g == group_of[in.edges[e].to] ? g : static_cast<std::uint32_t>(group_count);
    }
    const Buckets members(group_of, group_count);
    const Buckets edges(edge_group, group_count);
    std::vector<std::uint32_t> local(in.objects.size(), 0);
    Instance sub;
    sub.dims = in.dims;
    for (std::size_t g = 0; g < group_count; ++g) {
      if (members.size(g) == 0) continue;
      sub.pes.clear();
      for (const PeId p : groups.pes[g]) sub.pes.push_back(in.pes[static_cast<std::size_t>(p)]);
      sub.objects.resize(members.size(g));
      for (std::size_t k = 0; k < sub.objects.size(); ++k) {
        const std::uint32_t i = members.items[members.begin[g] + k];
        local[i] = static_cast<std::uint32_t>(k);
        sub.objects[k] = in.objects[i];
        sub.objects[k].pe = groups.local[static_cast<std::size_t>(a.pe[i])];
      }
      sub.edges.resize(edges.size(g));
      for (std::size_t k = 0; k < sub.edges.size(); ++k) {
        Edge& e = sub.edges[k];
        e = in.edges[edges.items[edges.begin[g] + k]];
        e.from = local[e.from];
        e.to = local[e.to];
      }
      max_seen_ = std::max(max_seen_, sub.objects.size());
      const auto start = std::chrono::steady_clock::now();
      const Assignment solved = checked(inner_[g]->solve(sub), sub, "inner");
      const double ms = since(start);
      total_ms += ms;
      max_ms = std::max(max_ms, ms);
      for (std::size_t k = 0; k < solved.pe.size(); ++k) {
        const auto pe = static_cast<std::size_t>(solved.pe[k]);
        a.pe[members.items[members.begin[g] + k]] = groups.pes[g][pe];
      }
    }
  }

  // A sub-solve's answer, after checking that it places every object on a PE of `instance`.
  Assignment checked(Solution solution, const Instance& instance, const char* level) const {
    bool valid = solution.assignment.pe.size() == instance.objects.size();
    for (std::size_t i = 0; valid && i < solution.assignment.pe.size(); ++i) {
      const PeId pe = solution.assignment.pe[i];
      valid = pe >= 0 && static_cast<std::size_t>(pe) < instance.pes.size() &&
              (instance.objects[i].migratable || pe == instance.objects[i].pe);
    }
    if (!valid) {
      throw std::logic_error(std::string(kName) + ": the " + level +
                             " strategy returned an invalid assignment");
    }
    return std::move(solution.assignment);
  }

  std::size_t group_size_;
  std::uint64_t outer_every_;
  double outer_tolerance_;
  std::string inner_name_;
  std::unique_ptr<Strategy> outer_;
  std::vector<std::unique_ptr<Strategy>> inner_;  // one per group, kept between calls
  std::uint64_t calls_ = 0;
  std::size_t max_seen_ = 0;  // objects in the largest sub-solve of this call
};

// Every registered strategy but this one (which may not nest itself).
std::vector<std::string> nestable_strategies() {
  std::vector<std::string> names;
  for (const StrategyInfo& info : strategies()) {
    if (info.name != kName) names.push_back(info.name);
  }
  return names;
}

}  // namespace

StrategyInfo hierarchical() {
  return {kName,
          "balances inside groups of PEs on every call, and across groups (only the surplus "
          "objects) on every outer_every-th call",
          {{"group_size",
            "consecutive PEs per group; 0: one group per cluster, or about sqrt(P) PEs if a "
            "single cluster",
            0.0, 0.0, 1048576.0, true},
           {"outer_every", "balance across groups on the first call and every k-th after it", 1.0,
            1.0, 1e9, true},
           {"outer_tolerance",
            "a group offers objects when its time exceeds (1 + outer_tolerance) * mean", 0.0, 0.0,
            10.0, false},
           text_param("inner", "strategy run inside each group", "refine", nestable_strategies),
           text_param("outer", "strategy that moves the offered objects between groups", "greedy",
                      nestable_strategies)},
          [](const ParamValues& p) { return std::make_unique<HierarchicalStrategy>(p); }};
}

}  // namespace vela::lb::builtin
