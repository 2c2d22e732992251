// Optimal reference: the exact minimum of the maximum PE time. Meant for small
// instances, to measure how far the heuristics are from optimal. Two methods:
//   - PEs of one speed and no communication term (comm_weight = 0), up to kMaxPartitionItems
//     loaded objects: an exact number-partitioning search (number_partition.hpp), which proves
//     40 real-valued loads on 4 PEs optimal in well under a second, where GLPK's bound (the
//     average load) leaves it searching for minutes;
//   - otherwise a mixed-integer linear program solved with GLPK's branch and cut (glp_intopt,
//     presolver on), below.
// Parameter method = auto (the search where it applies), search (an error naming what stops
// it otherwise) or milp. The stats say which ran: exact_search = 1 or 0.
//
// Formulation. M = migratable objects, P = PEs, l_o = load of object o, s_p = speed of PE p,
// f_p = background_p + (load of the non-migratable objects on p) / s_p (they stay where they are).
//   x[o][p] in {0, 1}   object o in M goes to PE p
//   T >= 0              maximum PE time
//   minimize   T + w * (bytes cut between PEs)
//   subject to sum_p x[o][p] = 1                          for every o in M
//              f_p + sum_o (l_o / s_p) x[o][p] <= T       for every PE p
// The communication term (w = comm_weight > 0) uses the undirected edges, bytes of both
// directions summed. For an edge {a, b}:
//   - both endpoints pinned: its cut is a constant (added to the objective's constant);
//   - a pinned on PE q, b migratable: cut = 1 - x[b][q], linear as it stands;
//   - both migratable: a continuous z_e in [0, 1] with z_e >= x[a][p] - x[b][p] for every p.
//     Because both rows of x sum to 1, some p has x[a][p] - x[b][p] = 1 exactly when a and b
//     are apart, and minimizing drives z_e to 0 when they are together, so z_e is the cut.
// Helps for the solver:
//   - an upper bound from the greedy (LPT) assignment: T <= greedy's max PE time when w = 0,
//     objective <= greedy's objective otherwise; greedy is also the fallback answer;
//   - symmetry breaking: PEs that are interchangeable (same speed, same fixed time, and, when
//     w > 0, no pinned objects whose edges would tell them apart) are kept in non-increasing
//     order of work, one row per neighbouring pair of such PEs;
//   - T >= max over objects of its earliest finish on any PE (a valid lower bound).
// When the time limit ends the search first, the best assignment found (or greedy's, when
// better) is returned and the stats say optimal = 0 with the remaining relative gap.
#include <glpk.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "kernels/number_partition.hpp"
#include "kernels/pe_times.hpp"
#include "strategies.hpp"

namespace vela::lb::builtin {

namespace {

constexpr std::size_t kMaxPes = 8;

// Undirected communication, bytes of both directions summed, self edges dropped.
std::map<std::pair<std::uint32_t, std::uint32_t>, double> undirected_bytes(const Instance& in) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, double> bytes;
  for (const Edge& e : in.edges) {
    if (e.from == e.to || e.bytes == 0) continue;
    bytes[{std::min(e.from, e.to), std::max(e.from, e.to)}] += static_cast<double>(e.bytes);
  }
  return bytes;
}

// Max PE time plus w times the bytes cut, the quantity the program minimizes.
double objective_of(const Instance& in, const Assignment& a, double w) {
  const std::vector<double> loads = pe_loads(in, a);
  double value = loads.empty() ? 0.0 : *std::max_element(loads.begin(), loads.end());
  if (w > 0.0) value += w * static_cast<double>(comm_cut(in, a).bytes);
  return value;
}

// Greedy LPT: heaviest migratable object first, onto the PE where it finishes earliest.
Assignment lpt(const Instance& in) {
  const Assignment current = current_assignment(in);
  Assignment a = current;
  EarliestFinish pes(in, pe_work(in, current, true));
  for (const LoadedObject& o : migratable_heaviest_first(in)) {
    const PeId pe = pes.best(o.load);
    pes.add(pe, o.load);
    a.pe[o.index] = pe;
  }
  return a;
}

// The exact search's answer, with its proven lower bound on the maximum PE time.
struct ExactSearch {
  Assignment assignment;
  bool proven = false;
  double bound = 0.0;
  std::uint64_t candidates = 0;
};

// Why the exact search cannot take this instance, or "" when it can.
std::string search_refusal(const Instance& in, double w) {
  if (w > 0.0) return "comm_weight > 0 (the search minimizes the maximum PE time alone)";
  for (std::size_t p = 1; p < in.pes.size(); ++p) {
    if (in.pes[p].speed != in.pes[0].speed) {
      return "PEs of one speed (PE " + std::to_string(p) + " has speed " +
             std::to_string(in.pes[p].speed) + ", PE 0 has " + std::to_string(in.pes[0].speed) +
             ")";
    }
  }
  const auto loaded = static_cast<std::size_t>(
      std::count_if(in.objects.begin(), in.objects.end(),
                    [](const Object& o) { return o.migratable && o.load > 0.0; }));
  if (loaded > kMaxPartitionItems) {
    return "at most " + std::to_string(kMaxPartitionItems) +
           " migratable objects with load > 0 (the instance has " + std::to_string(loaded) + ")";
  }
  return "";
}

// Without a communication term and with PEs of one speed, the problem is multiway number
// partitioning with offsets (each PE's background and pinned work), solved exactly by
// min_max_partition on the loads scaled to integers. Scaling puts the total below 2^55, so each
// load is rounded by at most 2^-56 of the total: below what a double sum of the loads resolves.
// Objects of load 0 stay where they are. Bins of equal offset are interchangeable, so their
// contents are then matched to those PEs so as to keep the most load in place. Only for
// instances search_refusal() accepts.
ExactSearch exact_search(const Instance& in, const Assignment& current, const Assignment& start,
                         std::chrono::steady_clock::time_point deadline) {
  const std::size_t n_pes = in.pes.size();
  const double speed = in.pes[0].speed;
  std::vector<std::uint32_t> loaded;  // migratable objects with load > 0 after scaling
  const std::vector<double> pinned = pe_work(in, current, true);
  std::vector<double> offset(n_pes);
  double total = 0.0;
  for (std::size_t p = 0; p < n_pes; ++p) offset[p] = in.pes[p].background * speed + pinned[p];
  for (const Object& o : in.objects) total += o.migratable ? o.load : 0.0;
  total += *std::max_element(offset.begin(), offset.end());
  if (!(total > 0.0)) return {start, true, 0.0, 0};  // nothing weighs anything
  int exponent = 0;
  std::frexp(total, &exponent);  // total < 2^exponent
  const int shift = 55 - exponent;
  const auto scaled = [&](double v) {
    return static_cast<std::uint64_t>(std::llround(std::ldexp(v, shift)));
  };
  std::vector<std::uint64_t> items;
  std::vector<std::uint32_t> first_bin;
  for (std::size_t i = 0; i < in.objects.size(); ++i) {
    const Object& o = in.objects[i];
    if (!o.migratable || scaled(o.load) == 0) continue;
    loaded.push_back(static_cast<std::uint32_t>(i));
    items.push_back(scaled(o.load));
    first_bin.push_back(static_cast<std::uint32_t>(start.pe[i]));
  }
  std::vector<std::uint64_t> offsets(n_pes);
  for (std::size_t p = 0; p < n_pes; ++p) offsets[p] = scaled(offset[p]);

  const NumberPartition part = min_max_partition(items, offsets, first_bin, deadline);
  ExactSearch result;
  result.proven = part.proven;
  result.bound = std::ldexp(static_cast<double>(part.lower_bound), -shift) / speed;
  result.candidates = part.candidates;
  result.assignment = current;
  for (std::size_t j = 0; j < loaded.size(); ++j) {
    result.assignment.pe[loaded[j]] = static_cast<PeId>(part.bin[j]);
  }

  // Within each group of PEs of equal offset, the permutation of contents that keeps the most
  // load (then the most objects) where it is now.
  std::vector<std::vector<double>> kept(n_pes, std::vector<double>(n_pes, 0.0));  // [bin][pe]
  std::vector<std::vector<int>> stay(n_pes, std::vector<int>(n_pes, 0));
  for (const std::uint32_t i : loaded) {
    const auto b = static_cast<std::size_t>(result.assignment.pe[i]);
    const auto p = static_cast<std::size_t>(current.pe[i]);
    kept[b][p] += in.objects[i].load;
    ++stay[b][p];
  }
  std::vector<PeId> target(n_pes);
  std::iota(target.begin(), target.end(), 0);
  std::vector<bool> grouped(n_pes, false);
  for (std::size_t p = 0; p < n_pes; ++p) {
    if (grouped[p]) continue;
    std::vector<std::size_t> group;
    for (std::size_t q = p; q < n_pes; ++q) {
      if (offsets[q] == offsets[p]) {
        group.push_back(q);
        grouped[q] = true;
      }
    }
    std::vector<std::size_t> perm = group;  // perm[j]: the PE that gets bin group[j]
    std::vector<std::size_t> best_perm = perm;
    std::pair<double, int> best_keep{-1.0, -1};
    do {
      std::pair<double, int> keep{0.0, 0};
      for (std::size_t j = 0; j < group.size(); ++j) {
        keep.first += kept[group[j]][perm[j]];
        keep.second += stay[group[j]][perm[j]];
      }
      if (keep > best_keep) {
        best_keep = keep;
        best_perm = perm;
      }
    } while (std::next_permutation(perm.begin(), perm.end()));
    for (std::size_t j = 0; j < group.size(); ++j) {
      target[group[j]] = static_cast<PeId>(best_perm[j]);
    }
  }
  for (const std::uint32_t i : loaded) {
    result.assignment.pe[i] = target[static_cast<std::size_t>(result.assignment.pe[i])];
  }
  return result;
}

// Silences GLPK's terminal output for the lifetime of the guard.
// GLPK's environment on this thread, made here if the thread has none and freed again at the
// end: GLPK keeps one per thread, which a thread that ends (the asynchronous balancer's,
// docs/architecture.md) would otherwise leak.
class GlpkEnvironment {
 public:
  GlpkEnvironment() : made_(glp_init_env() == 0) {}
  ~GlpkEnvironment() {
    if (made_) glp_free_env();
  }
  GlpkEnvironment(const GlpkEnvironment&) = delete;
  GlpkEnvironment& operator=(const GlpkEnvironment&) = delete;

 private:
  bool made_;
};

class QuietGlpk {
 public:
  QuietGlpk() : previous_(glp_term_out(GLP_OFF)) {}
  ~QuietGlpk() { glp_term_out(previous_); }
  QuietGlpk(const QuietGlpk&) = delete;
  QuietGlpk& operator=(const QuietGlpk&) = delete;

 private:
  int previous_;
};

// Owns a GLPK problem object.
class Problem {
 public:
  Problem() : lp_(glp_create_prob()) {}
  ~Problem() { glp_delete_prob(lp_); }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;
  glp_prob* get() const { return lp_; }

 private:
  glp_prob* lp_;
};

// Sparse rows collected before they are handed to GLPK in one call.
struct Rows {
  std::vector<int> ia{0};  // GLPK arrays are 1-based
  std::vector<int> ja{0};
  std::vector<double> ar{0.0};

  void add(int row, int col, double value) {
    ia.push_back(row);
    ja.push_back(col);
    ar.push_back(value);
  }
};

// The best bound the search has proven, read from the tree while it runs.
struct SearchBound {
  double bound = -std::numeric_limits<double>::infinity();
};

void track_bound(glp_tree* tree, void* info) {
  auto* sb = static_cast<SearchBound*>(info);
  const int node = glp_ios_best_node(tree);
  if (node != 0) sb->bound = glp_ios_node_bound(tree, node);
}

class OptimalStrategy final : public Strategy {
 public:
  OptimalStrategy(double time_limit, double comm_weight, double max_objects, std::string method)
      : time_limit_(time_limit),
        w_(comm_weight),
        max_objects_(static_cast<std::size_t>(max_objects)),
        method_(std::move(method)) {}

  Solution solve(const Instance& in) override {
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(time_limit_));
    const auto elapsed_ms = [&] {
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
          .count();
    };
    const Assignment current = current_assignment(in);
    const std::size_t n_pes = in.pes.size();
    std::vector<std::uint32_t> movable;
    for (std::size_t i = 0; i < in.objects.size(); ++i) {
      if (in.objects[i].migratable) movable.push_back(static_cast<std::uint32_t>(i));
    }
    if (n_pes > kMaxPes) {
      throw ParamError("optimal: the instance has " + std::to_string(n_pes) +
                       " PEs, more than the limit of " + std::to_string(kMaxPes) + " PEs");
    }
    if (movable.size() > max_objects_) {
      throw ParamError(
          "optimal: the instance has " + std::to_string(movable.size()) +
          " migratable objects, more than max_objects = " + std::to_string(max_objects_));
    }
    if (n_pes == 0) {
      return {current, {{"optimal", 1.0}, {"gap", 0.0}, {"objective", 0.0}, {"time_ms", 0.0}}};
    }

    Assignment best = lpt(in);
    double best_value = objective_of(in, best, w_);
    if (movable.empty() || n_pes == 1) {
      return {
          best,
          {{"optimal", 1.0}, {"gap", 0.0}, {"objective", best_value}, {"time_ms", elapsed_ms()}}};
    }

    const std::string refusal = method_ == "milp" ? "" : search_refusal(in, w_);
    if (method_ == "search" && !refusal.empty()) {
      throw ParamError("optimal: method=search needs " + refusal + "; method=milp or auto " +
                       "solve this instance with GLPK");
    }
    if (method_ != "milp" && refusal.empty()) {
      const ExactSearch exact = exact_search(in, current, best, deadline);
      Assignment found = exact.assignment;
      double value = objective_of(in, found, w_);
      if (value > best_value) {  // equal up to rounding the exact search cannot see
        found = best;
        value = best_value;
      }
      const double gap = exact.proven ? 0.0
                                      : std::max(0.0, value - exact.bound) /
                                            (value + std::numeric_limits<double>::epsilon());
      StrategyStats stats = {{"optimal", exact.proven ? 1.0 : 0.0},
                             {"gap", gap},
                             {"objective", value},
                             {"time_ms", elapsed_ms()},
                             {"moves", count_moves(current, found)},
                             {"exact_search", 1.0},
                             {"candidates", static_cast<double>(exact.candidates)}};
      return {std::move(found), std::move(stats)};
    }

    const GlpkEnvironment environment;  // destroyed last, after the problem
    const QuietGlpk quiet;
    const Problem problem;
    glp_prob* lp = problem.get();
    glp_set_obj_dir(lp, GLP_MIN);

    // Columns: T, then x[k][p] for the k-th movable object, then one z per movable edge.
    const int col_t = glp_add_cols(lp, 1);
    const auto m = static_cast<int>(movable.size());
    const auto np = static_cast<int>(n_pes);
    const int col_x0 = glp_add_cols(lp, m * np);
    const auto x_col = [&](int k, int p) { return col_x0 + k * np + p; };
    for (int c = col_x0; c < col_x0 + m * np; ++c) glp_set_col_kind(lp, c, GLP_BV);

    const std::vector<double> work = pe_work(in, current, true);
    std::vector<double> fixed(n_pes);
    std::vector<bool> has_pinned(n_pes, false);
    for (std::size_t p = 0; p < n_pes; ++p) fixed[p] = pe_time(in.pes[p], work[p]);
    for (const Object& o : in.objects) {
      if (!o.migratable) has_pinned[static_cast<std::size_t>(o.pe)] = true;
    }
    std::vector<int> index_of(in.objects.size(), -1);
    for (int k = 0; k < m; ++k) index_of[movable[static_cast<std::size_t>(k)]] = k;

    // Objective: T + w * cut; cuts with pinned endpoints are constants or linear in x.
    glp_set_obj_coef(lp, col_t, 1.0);
    double constant = 0.0;
    std::vector<std::pair<std::pair<int, int>, double>> movable_edges;
    std::vector<double> x_cost(static_cast<std::size_t>(m * np), 0.0);
    if (w_ > 0.0) {
      for (const auto& [ends, bytes] : undirected_bytes(in)) {
        const int ka = index_of[ends.first];
        const int kb = index_of[ends.second];
        if (ka < 0 && kb < 0) {
          if (in.objects[ends.first].pe != in.objects[ends.second].pe) constant += w_ * bytes;
        } else if (ka < 0 || kb < 0) {
          const int k = ka < 0 ? kb : ka;
          const PeId q = in.objects[ka < 0 ? ends.first : ends.second].pe;
          constant += w_ * bytes;
          x_cost[static_cast<std::size_t>(k * np + q)] -= w_ * bytes;
        } else {
          movable_edges.push_back({{ka, kb}, bytes});
        }
      }
    }
    glp_set_obj_coef(lp, 0, constant);
    for (int k = 0; k < m; ++k) {
      for (int p = 0; p < np; ++p) {
        glp_set_obj_coef(lp, x_col(k, p), x_cost[static_cast<std::size_t>(k * np + p)]);
      }
    }
    const auto n_edges = static_cast<int>(movable_edges.size());
    const int col_z0 = n_edges > 0 ? glp_add_cols(lp, n_edges) : 0;
    for (int e = 0; e < n_edges; ++e) {
      glp_set_col_bnds(lp, col_z0 + e, GLP_DB, 0.0, 1.0);
      glp_set_obj_coef(lp, col_z0 + e, w_ * movable_edges[static_cast<std::size_t>(e)].second);
    }

    // Bounds on T: at least every PE's fixed time and every object's earliest finish; at most
    // greedy's max PE time when that is the whole objective.
    const std::vector<double> greedy_loads = pe_loads(in, best);
    const double greedy_max = *std::max_element(greedy_loads.begin(), greedy_loads.end());
    double t_low = *std::max_element(fixed.begin(), fixed.end());
    for (const std::uint32_t i : movable) {
      double earliest = std::numeric_limits<double>::infinity();
      for (std::size_t p = 0; p < n_pes; ++p) {
        earliest = std::min(earliest, fixed[p] + in.objects[i].load / in.pes[p].speed);
      }
      t_low = std::max(t_low, earliest);
    }
    const auto slack = [](double v) { return v + 1e-9 * (1.0 + std::abs(v)); };
    if (w_ > 0.0) {
      glp_set_col_bnds(lp, col_t, GLP_LO, std::min(t_low, greedy_max), 0.0);
    } else {
      glp_set_col_bnds(lp, col_t, GLP_DB, std::min(t_low, greedy_max), slack(greedy_max));
    }

    Rows rows;
    // Each movable object on exactly one PE.
    const int row_assign = glp_add_rows(lp, m);
    for (int k = 0; k < m; ++k) {
      glp_set_row_bnds(lp, row_assign + k, GLP_FX, 1.0, 1.0);
      for (int p = 0; p < np; ++p) rows.add(row_assign + k, x_col(k, p), 1.0);
    }
    // PE time at most T: sum_o (l_o / s_p) x[o][p] - T <= -f_p.
    const int row_time = glp_add_rows(lp, np);
    for (int p = 0; p < np; ++p) {
      glp_set_row_bnds(lp, row_time + p, GLP_UP, 0.0, -fixed[static_cast<std::size_t>(p)]);
      rows.add(row_time + p, col_t, -1.0);
      for (int k = 0; k < m; ++k) {
        const double l = in.objects[movable[static_cast<std::size_t>(k)]].load;
        if (l > 0.0)
          rows.add(row_time + p, x_col(k, p), l / in.pes[static_cast<std::size_t>(p)].speed);
      }
    }
    // Cut edges: z_e - x[a][p] + x[b][p] >= 0.
    if (n_edges > 0) {
      const int row_cut = glp_add_rows(lp, n_edges * np);
      for (int e = 0; e < n_edges; ++e) {
        const auto [ka, kb] = movable_edges[static_cast<std::size_t>(e)].first;
        for (int p = 0; p < np; ++p) {
          const int r = row_cut + e * np + p;
          glp_set_row_bnds(lp, r, GLP_LO, 0.0, 0.0);
          rows.add(r, col_z0 + e, 1.0);
          rows.add(r, x_col(ka, p), -1.0);
          rows.add(r, x_col(kb, p), 1.0);
        }
      }
    }
    // With a communication term, greedy's objective bounds the program's.
    if (w_ > 0.0) {
      const int r = glp_add_rows(lp, 1);
      glp_set_row_bnds(lp, r, GLP_UP, 0.0, slack(best_value) - constant);
      rows.add(r, col_t, 1.0);
      for (int k = 0; k < m; ++k) {
        for (int p = 0; p < np; ++p) {
          const double c = x_cost[static_cast<std::size_t>(k * np + p)];
          if (c != 0.0) rows.add(r, x_col(k, p), c);
        }
      }
      for (int e = 0; e < n_edges; ++e) {
        rows.add(r, col_z0 + e, w_ * movable_edges[static_cast<std::size_t>(e)].second);
      }
    }
    // Symmetry: interchangeable PEs hold non-increasing work in id order.
    std::map<std::pair<double, double>, std::vector<int>> classes;
    for (int p = 0; p < np; ++p) {
      const auto q = static_cast<std::size_t>(p);
      if (w_ > 0.0 && has_pinned[q]) continue;
      classes[{in.pes[q].speed, fixed[q]}].push_back(p);
    }
    for (const auto& [key, members] : classes) {
      for (std::size_t i = 1; i < members.size(); ++i) {
        const int r = glp_add_rows(lp, 1);
        glp_set_row_bnds(lp, r, GLP_UP, 0.0, 0.0);
        for (int k = 0; k < m; ++k) {
          const double l = in.objects[movable[static_cast<std::size_t>(k)]].load;
          if (l <= 0.0) continue;
          rows.add(r, x_col(k, members[i]), l);
          rows.add(r, x_col(k, members[i - 1]), -l);
        }
      }
    }
    glp_load_matrix(lp, static_cast<int>(rows.ia.size()) - 1, rows.ia.data(), rows.ja.data(),
                    rows.ar.data());

    SearchBound search;
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    parm.mip_gap = 0.0;
    const double left_ms = time_limit_ * 1000.0 - elapsed_ms();
    parm.tm_lim = static_cast<int>(std::clamp(left_ms, 1.0, 3.6e6));
    parm.cb_func = track_bound;
    parm.cb_info = &search;
    const int ret = glp_intopt(lp, &parm);
    const int status = glp_mip_status(lp);
    bool proven = ret == 0 && status == GLP_OPT;

    if (status == GLP_OPT || status == GLP_FEAS) {
      Assignment found = current;
      for (int k = 0; k < m; ++k) {
        int at = 0;
        for (int p = 1; p < np; ++p) {
          if (glp_mip_col_val(lp, x_col(k, p)) > glp_mip_col_val(lp, x_col(k, at))) at = p;
        }
        found.pe[movable[static_cast<std::size_t>(k)]] = at;
      }
      const double value = objective_of(in, found, w_);
      if (value <= best_value) {
        best = std::move(found);
        best_value = value;
      }
    } else if (ret == GLP_ENOPFS || (ret == 0 && status == GLP_NOFEAS)) {
      // The bounds from greedy left no better solution: greedy is optimal.
      proven = true;
    }
    double gap = 0.0;
    if (!proven) {
      const double bound = search.bound;
      gap = std::isfinite(bound)
                ? std::max(0.0, best_value - bound) /
                      (std::abs(best_value) + std::numeric_limits<double>::epsilon())
                : 1.0;
    }
    StrategyStats stats = {{"optimal", proven ? 1.0 : 0.0},
                           {"gap", gap},
                           {"objective", best_value},
                           {"time_ms", elapsed_ms()},
                           {"moves", count_moves(current, best)},
                           {"exact_search", 0.0}};
    return {std::move(best), std::move(stats)};
  }

 private:
  double time_limit_;
  double w_;
  std::size_t max_objects_;
  std::string method_;
};

}  // namespace

StrategyInfo optimal() {
  return {
      "optimal",
      "exact minimum of the maximum PE time (plus comm_weight * bytes cut) by an exact "
      "number-partitioning search or a MILP with GLPK; small instances only",
      {{"time_limit", "seconds the solver may search, > 0", 10.0, 0.0, 3600.0, false},
       {"comm_weight", "weight w of the bytes cut between PEs in T + w * cut", 0.0, 0.0, 1e12,
        false},
       {"max_objects", "largest number of migratable objects accepted", 60.0, 1.0, 1000.0, true},
       text_param("method",
                  "search: exact number partitioning (PEs of one speed, comm_weight = 0, at "
                  "most 44 loaded objects); milp: GLPK; auto: search where it applies",
                  "auto", std::vector<std::string>{"auto", "search", "milp"})},
      [](const ParamValues& p) -> std::unique_ptr<Strategy> {
        if (!(p.get("time_limit") > 0.0)) {
          throw ParamError("optimal: time_limit must be > 0 seconds");
        }
        return std::make_unique<OptimalStrategy>(p.get("time_limit"), p.get("comm_weight"),
                                                 p.get("max_objects"), p.text("method"));
      },
      /*reference_only=*/true};
}

}  // namespace vela::lb::builtin
