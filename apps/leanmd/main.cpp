// LeanMD: Lennard-Jones molecular dynamics in a periodic box of C x C x C cells, with one
// compute element per pair of neighbouring cells (each cell with itself included). Cells send
// positions to their 27 computes, computes return forces, cells sum them in a fixed slot order
// and integrate by velocity Verlet; every K steps atoms that left a cell move to its neighbour.
// The checksum hashes every atom's id, position and velocity bits and combines the hashes by
// exact integer sums, so it is the same for any PE count and balancer if and only if every
// atom's state is. How to run it: docs/user-guide.md, *LeanMD*.
//
// Cells and computes are elements of one collection (elements 0 .. C³−1 are the cells, in the
// order of Shape::box(C, C, C); element C³ + k is compute k), because the runtime measures the
// communication between elements of the same collection: so balancers, --lb-dump and the grid
// strategies see every cell-compute message. --dense-atoms puts more atoms in the cells of one
// corner octant, which makes their computes dearer (the imbalance that balancing removes).
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "../common/memory.hpp"
#include "vela/progress/reporter.hpp"
#include "vela/rt/runtime.hpp"

namespace {

using vela::rt::Index;

// The progress line of this process's run, when it draws one (process 0, stderr a terminal, no
// --quiet). Cell 0 reports its step: cells are made and moved by the runtime, and a pointer
// cannot travel in their state to another process, so they find it here; on another process
// (after a migration) it is null and the line waits for the cell to come back.
vela::progress::Reporter* step_progress = nullptr;

// When the last cell of this process resumed after a balancing point (steady-clock nanoseconds)
// and at which step: the step time after balancing is measured from there to the end.
std::atomic<std::int64_t> resumed_at{0};
std::atomic<std::int32_t> resumed_step{0};

constexpr double lattice = 1.2;  // lattice spacing, in sigma
constexpr double jitter = 0.1;   // largest displacement from a lattice site
constexpr double speed = 1.0;    // velocity components are uniform in [-speed/2, speed/2)
constexpr int pair_slots = 14;   // computes per cell: itself and 13 of its 26 neighbours
constexpr int centre = 13;       // the offset (0, 0, 0) among the 27
constexpr std::uint64_t seed = 0x1ea7d5eedull;

struct Problem {
  std::int32_t cells = 6;
  std::int32_t atoms = 40;  // per cell at the start
  std::int32_t dense = 0;   // per cell at the start in the corner octant; 0: `atoms`
  std::int32_t steps = 100;
  double dt = 0.005;
  std::int32_t sync_every = 10;
  std::int32_t migrate_every = 10;
  vela::rt::Callback started;  // receives {kinetic, potential} at step 0
  vela::rt::Callback done;     // receives {kinetic, potential, lanes..., moved, atoms}
  void pup(vela::pup::Archive& ar) {
    ar | cells | atoms | dense | steps | dt | sync_every | migrate_every | started | done;
  }

  // The most atoms a cell starts with.
  std::int32_t most() const { return std::max(atoms, dense); }
  // Atoms cell c starts with: `dense` in the octant [0, C/2)^3 when set, else `atoms`.
  std::int32_t atoms_of(const Index& c) const {
    const std::int32_t h = cells / 2;
    return dense > 0 && c.x < h && c.y < h && c.z < h ? dense : atoms;
  }
  // Lattice sites per cell side: the smallest m with m^3 >= most().
  std::int32_t sites() const {
    std::int32_t m = 1;
    while (m * m * m < most()) ++m;
    return m;
  }
  std::uint64_t cell_count() const {
    return static_cast<std::uint64_t>(cells) * static_cast<std::uint64_t>(cells) *
           static_cast<std::uint64_t>(cells);
  }
  double cell_size() const { return sites() * lattice; }
  double cutoff() const { return std::min(2.5, cell_size()); }
  double box() const { return cells * cell_size(); }
};

std::uint64_t mix(std::uint64_t x) {  // a 64-bit finalizer (xorshift-multiply)
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A uniform double in [0, 1) from the hash of (cell, slot, what).
double uniform(std::uint64_t cell, std::uint64_t slot, std::uint64_t what) {
  const std::uint64_t h = mix(seed ^ mix(cell ^ mix(slot ^ mix(what))));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

// The 27 offsets, dz fastest: offset o is (o / 9 - 1, o / 3 % 3 - 1, o % 3 - 1); -o is 26 - o.
std::array<std::int32_t, 3> offset(int o) {
  return {o / 9 - 1, o / 3 % 3 - 1, o % 3 - 1};
}

std::int32_t wrap(std::int32_t i, std::int32_t n) {
  return ((i % n) + n) % n;
}

vela::rt::Shape cell_shape(const Problem& p) {
  return vela::rt::Shape::box(p.cells, p.cells, p.cells);
}

Index neighbour(const Problem& p, const Index& c, int o) {
  const auto d = offset(o);
  return {wrap(c.x + d[0], p.cells), wrap(c.y + d[1], p.cells), wrap(c.z + d[2], p.cells)};
}

// Compute k pairs cell A = k / 14 with cell B = A + offset(13 + k % 14) (itself when k % 14 is
// 0); A holds it in slot 13 + k % 14, B in slot 13 - k % 14.
struct Pair {
  std::uint64_t a = 0, b = 0;
  int slot_a = centre, slot_b = centre;
  std::array<double, 3> shift{};  // added to B's positions: B's image next to A
  bool self = true;
};

Pair pair_of(const Problem& p, std::uint64_t k) {
  const vela::rt::Shape shape = cell_shape(p);
  Pair r;
  r.a = k / pair_slots;
  const int j = static_cast<int>(k % pair_slots);
  r.slot_a = centre + j;
  r.slot_b = centre - j;
  r.self = j == 0;
  const Index a = shape.at(r.a);
  const Index b = neighbour(p, a, r.slot_a);
  r.b = shape.linear(b);
  const auto d = offset(r.slot_a);
  const std::array<std::int32_t, 3> ai{a.x, a.y, a.z}, bi{b.x, b.y, b.z};
  for (int c = 0; c < 3; ++c) {
    const auto u = static_cast<std::size_t>(c);
    r.shift[u] = static_cast<double>(ai[u] + d[u] - bi[u]) * p.cell_size();
  }
  return r;
}

// The compute that cell c meets in its slot o, and which side of it the cell is.
std::pair<std::uint64_t, std::int32_t> compute_of(const Problem& p, const Index& c, int o) {
  const vela::rt::Shape shape = cell_shape(p);
  if (o >= centre)
    return {shape.linear(c) * pair_slots + static_cast<std::uint64_t>(o - centre), 0};
  return {shape.linear(neighbour(p, c, o)) * pair_slots + static_cast<std::uint64_t>(centre - o),
          1};
}

// The element at position `linear` of the collection (a line).
Index element(std::uint64_t linear) {
  return {static_cast<std::int32_t>(linear), 0, 0};
}

// A cell (linear index below C³) or a compute (the rest): one element type, so that both are in
// one collection. A cell's fields are empty on a compute and the other way round.
class Piece : public vela::rt::ElementBase {
 public:
  Piece() = default;
  explicit Piece(Problem p) : p_(p) {
    if (!is_cell()) return;
    const Index c = cell_index();
    const std::uint64_t linear = linear_index();
    const std::int32_t m = p_.sites();
    const std::int32_t sites = m * m * m;
    const std::int32_t atoms = p_.atoms_of(c);
    const double cs = p_.cell_size();
    const std::array<std::int32_t, 3> ci{c.x, c.y, c.z};
    for (std::int32_t s = 0; s < atoms; ++s) {
      const auto slot = static_cast<std::uint64_t>(s);
      const std::int32_t t =
          static_cast<std::int32_t>(static_cast<std::int64_t>(s) * sites / atoms);
      const std::array<std::int32_t, 3> ti{t % m, t / m % m, t / (m * m)};
      ids_.push_back(linear * static_cast<std::uint64_t>(p_.most()) + slot);
      for (std::size_t u = 0; u < 3; ++u) {
        x_.push_back(ci[u] * cs + (ti[u] + 0.5) * lattice +
                     (2.0 * uniform(linear, slot, u) - 1.0) * jitter);
        v_.push_back((uniform(linear, slot, 3 + u) - 0.5) * speed);
      }
    }
  }

  void pup(vela::pup::Archive& ar) override {
    ar | p_ | step_ | sent_ | migrating_ | moved_ | ids_ | x_ | v_ | forces_ | energies_ |
        received_ | arrived_ids_ | arrived_x_ | arrived_v_ | arrivals_ | inputs_ | count_;
  }

  void start() {
    if (is_cell()) send_positions();
  }

  // Cell: the forces of the compute in `slot` for `step`.
  void forces(std::int32_t step, std::int32_t slot, std::vector<double> f, double energy) {
    const auto par = static_cast<std::size_t>(step % 2);
    forces_[par][static_cast<std::size_t>(slot)] = std::move(f);
    energies_[par][static_cast<std::size_t>(slot)] = energy;
    ++received_[par];
    try_integrate();
  }

  // Cell: atoms that a neighbour sends after the move of `step`.
  void arrive(std::int32_t step, std::vector<std::uint64_t> ids, std::vector<double> x,
              std::vector<double> v) {
    const auto par = static_cast<std::size_t>(step % 2);
    arrived_ids_[par].insert(arrived_ids_[par].end(), ids.begin(), ids.end());
    arrived_x_[par].insert(arrived_x_[par].end(), x.begin(), x.end());
    arrived_v_[par].insert(arrived_v_[par].end(), v.begin(), v.end());
    ++arrivals_[par];
    try_merge();
  }

  // Compute: the positions of one of its cells (`side` 0: A, 1: B) for `step`.
  void positions(std::int32_t step, std::int32_t side, std::vector<double> x) {
    const Pair pair = pair_of(p_, compute_index());
    const auto par = static_cast<std::size_t>(step % 2);
    inputs_[par][static_cast<std::size_t>(side)] = std::move(x);
    if (++count_[par] < (pair.self ? 1 : 2)) return;
    count_[par] = 0;
    interact(step, pair, inputs_[par][0], inputs_[par][1]);
    inputs_[par][0].clear();
    inputs_[par][1].clear();
    // The reductions count every element of the collection: a compute adds zeros.
    if (step == 0) contribute({0.0, 0.0}, vela::rt::ReduceOp::sum, p_.started);
    if (step == p_.steps) {
      contribute(std::vector<double>(8, 0.0), vela::rt::ReduceOp::sum, p_.done);
      return;
    }
    if (p_.sync_every > 0 && (step + 1) % p_.sync_every == 0 && step + 1 < p_.steps) at_sync();
  }

  void resume_from_sync() override {
    if (!is_cell()) return;
    const std::int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
    std::int64_t seen = resumed_at.load();
    while (seen < now && !resumed_at.compare_exchange_weak(seen, now)) {
    }
    resumed_step.store(step_);
    send_positions();
  }

 private:
  bool is_cell() const { return linear_index() < p_.cell_count(); }
  Index cell_index() const { return cell_shape(p_).at(linear_index()); }
  std::uint64_t compute_index() const { return linear_index() - p_.cell_count(); }

  void send_positions() {
    sent_ = step_;
    const Index c = cell_index();
    for (int o = 0; o < 27; ++o) {
      const auto [k, side] = compute_of(p_, c, o);
      send<&Piece::positions>(element(p_.cell_count() + k), step_, side, x_);
    }
    try_integrate();
  }

  void try_integrate() {
    const auto par = static_cast<std::size_t>(step_ % 2);
    if (sent_ != step_ || received_[par] < 27) return;
    received_[par] = 0;
    const std::size_t n = x_.size();
    std::vector<double> f(n, 0.0);
    double potential = 0.0;
    for (std::size_t o = 0; o < 27; ++o) {
      const std::vector<double>& fo = forces_[par][o];
      if (fo.size() != n) throw std::logic_error("leanmd: a force array of the wrong size");
      for (std::size_t i = 0; i < n; ++i) f[i] += fo[i];
      potential += energies_[par][o];
      forces_[par][o].clear();
      energies_[par][o] = 0.0;
    }
    const double half = 0.5 * p_.dt;
    if (step_ > 0) {
      for (std::size_t i = 0; i < n; ++i) v_[i] += half * f[i];
    }
    if (step_ == 0) contribute({kinetic(), potential}, vela::rt::ReduceOp::sum, p_.started);
    if (step_ == p_.steps) {
      std::vector<double> result{kinetic(), potential};
      const std::vector<double> lanes = checksum();
      result.insert(result.end(), lanes.begin(), lanes.end());
      result.push_back(static_cast<double>(moved_));
      result.push_back(static_cast<double>(ids_.size()));
      contribute(std::move(result), vela::rt::ReduceOp::sum, p_.done);
      return;
    }
    for (std::size_t i = 0; i < n; ++i) {
      v_[i] += half * f[i];
      x_[i] += p_.dt * v_[i];
    }
    ++step_;
    if (step_progress != nullptr && linear_index() == 0) {
      step_progress->set(static_cast<std::uint64_t>(step_));
    }
    if (step_ % p_.migrate_every == 0) {
      move_atoms();
      return;
    }
    after_move();
  }

  void after_move() {
    if (p_.sync_every > 0 && step_ % p_.sync_every == 0 && step_ < p_.steps) {
      at_sync();
      return;
    }
    send_positions();
  }

  // Atoms whose position lies in a neighbour's cell go there (wrapped into the box).
  void move_atoms() {
    migrating_ = step_;
    const Index c = cell_index();
    const std::array<std::int32_t, 3> ci{c.x, c.y, c.z};
    const double cs = p_.cell_size(), box = p_.box();
    std::array<std::vector<std::uint64_t>, 27> out_ids;
    std::array<std::vector<double>, 27> out_x, out_v;
    std::vector<std::uint64_t> ids;
    std::vector<double> x, v;
    for (std::size_t a = 0; a < ids_.size(); ++a) {
      int o = 0;
      for (std::size_t u = 0; u < 3; ++u) {
        const auto cell = static_cast<std::int64_t>(std::floor(x_[3 * a + u] / cs));
        const std::int64_t d = cell - ci[u];
        if (d < -1 || d > 1) {
          throw std::runtime_error(fmt::format(
              "leanmd: atom {} moved more than one cell in {} steps (step {}); use a smaller --dt",
              ids_[a], p_.migrate_every, step_));
        }
        o = 3 * o + static_cast<int>(d + 1);
      }
      auto& to_ids = o == centre ? ids : out_ids[static_cast<std::size_t>(o)];
      auto& to_x = o == centre ? x : out_x[static_cast<std::size_t>(o)];
      auto& to_v = o == centre ? v : out_v[static_cast<std::size_t>(o)];
      to_ids.push_back(ids_[a]);
      for (std::size_t u = 0; u < 3; ++u) {
        double q = x_[3 * a + u];
        if (o != centre) {
          if (q < 0.0) q += box;
          if (q >= box) q -= box;
        }
        to_x.push_back(q);
        to_v.push_back(v_[3 * a + u]);
      }
      if (o != centre) ++moved_;
    }
    ids_ = std::move(ids);
    x_ = std::move(x);
    v_ = std::move(v);
    const vela::rt::Shape shape = cell_shape(p_);
    for (int o = 0; o < 27; ++o) {
      if (o == centre) continue;
      const auto u = static_cast<std::size_t>(o);
      send<&Piece::arrive>(element(shape.linear(neighbour(p_, c, o))), step_, out_ids[u], out_x[u],
                           out_v[u]);
    }
    try_merge();
  }

  void try_merge() {
    const auto par = static_cast<std::size_t>(step_ % 2);
    if (migrating_ != step_ || arrivals_[par] < 26) return;
    arrivals_[par] = 0;
    migrating_ = -1;
    ids_.insert(ids_.end(), arrived_ids_[par].begin(), arrived_ids_[par].end());
    x_.insert(x_.end(), arrived_x_[par].begin(), arrived_x_[par].end());
    v_.insert(v_.end(), arrived_v_[par].begin(), arrived_v_[par].end());
    arrived_ids_[par].clear();
    arrived_x_[par].clear();
    arrived_v_[par].clear();
    std::vector<std::size_t> order(ids_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return ids_[a] < ids_[b]; });
    std::vector<std::uint64_t> ids(ids_.size());
    std::vector<double> x(x_.size()), v(v_.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      ids[i] = ids_[order[i]];
      for (std::size_t u = 0; u < 3; ++u) {
        x[3 * i + u] = x_[3 * order[i] + u];
        v[3 * i + u] = v_[3 * order[i] + u];
      }
    }
    ids_ = std::move(ids);
    x_ = std::move(x);
    v_ = std::move(v);
    after_move();
  }

  double kinetic() const {
    double k = 0.0;
    for (const double vi : v_) k += 0.5 * vi * vi;
    return k;
  }

  // Per atom, a hash of its id, position and velocity bits; four 16-bit lanes summed exactly.
  std::vector<double> checksum() const {
    std::vector<double> lanes(4, 0.0);
    for (std::size_t a = 0; a < ids_.size(); ++a) {
      std::uint64_t h = mix(ids_[a]);
      for (std::size_t u = 0; u < 3; ++u) {
        h = mix(h ^ std::bit_cast<std::uint64_t>(x_[3 * a + u]));
        h = mix(h ^ std::bit_cast<std::uint64_t>(v_[3 * a + u]));
      }
      for (std::size_t l = 0; l < 4; ++l) lanes[l] += static_cast<double>((h >> (16 * l)) & 0xffff);
    }
    return lanes;
  }

  void interact(std::int32_t step, const Pair& pair, const std::vector<double>& xa,
                const std::vector<double>& xb_in) {
    const double rc2 = p_.cutoff() * p_.cutoff();
    const double irc6 = 1.0 / (rc2 * rc2 * rc2);
    const double shifted = 4.0 * irc6 * (irc6 - 1.0);  // V(rc), subtracted so V is continuous
    const std::size_t na = xa.size() / 3;
    std::vector<double> fa(xa.size(), 0.0);
    double energy = 0.0;
    auto lj = [&](const double* xi, const double* xj, double* fi, double* fj) {
      const double dx = xj[0] - xi[0], dy = xj[1] - xi[1], dz = xj[2] - xi[2];
      const double r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= rc2) return;
      const double i2 = 1.0 / r2;
      const double i6 = i2 * i2 * i2;
      const double s = 24.0 * i2 * i6 * (2.0 * i6 - 1.0);
      energy += 4.0 * i6 * (i6 - 1.0) - shifted;
      fi[0] -= s * dx;
      fi[1] -= s * dy;
      fi[2] -= s * dz;
      fj[0] += s * dx;
      fj[1] += s * dy;
      fj[2] += s * dz;
    };
    if (pair.self) {
      for (std::size_t i = 0; i < na; ++i) {
        for (std::size_t j = i + 1; j < na; ++j) lj(&xa[3 * i], &xa[3 * j], &fa[3 * i], &fa[3 * j]);
      }
      send<&Piece::forces>(element(pair.a), step, static_cast<std::int32_t>(pair.slot_a), fa,
                           energy);
      return;
    }
    std::vector<double> xb = xb_in;
    const std::size_t nb = xb.size() / 3;
    for (std::size_t j = 0; j < nb; ++j) {
      for (std::size_t u = 0; u < 3; ++u) xb[3 * j + u] += pair.shift[u];
    }
    std::vector<double> fb(xb.size(), 0.0);
    for (std::size_t i = 0; i < na; ++i) {
      for (std::size_t j = 0; j < nb; ++j) lj(&xa[3 * i], &xb[3 * j], &fa[3 * i], &fb[3 * j]);
    }
    send<&Piece::forces>(element(pair.a), step, static_cast<std::int32_t>(pair.slot_a), fa, energy);
    send<&Piece::forces>(element(pair.b), step, static_cast<std::int32_t>(pair.slot_b), fb, 0.0);
  }

  Problem p_;
  // A cell's state.
  std::int32_t step_ = 0;
  std::int32_t sent_ = -1;       // the last step whose positions this cell sent
  std::int32_t migrating_ = -1;  // the step whose atom exchange is under way
  std::int64_t moved_ = 0;       // atoms this cell sent to neighbours
  std::vector<std::uint64_t> ids_;
  std::vector<double> x_, v_;
  std::array<std::array<std::vector<double>, 27>, 2> forces_;
  std::array<std::array<double, 27>, 2> energies_{};
  std::array<std::int32_t, 2> received_{};
  std::array<std::vector<std::uint64_t>, 2> arrived_ids_;
  std::array<std::vector<double>, 2> arrived_x_, arrived_v_;
  std::array<std::int32_t, 2> arrivals_{};
  // A compute's state.
  std::array<std::array<std::vector<double>, 2>, 2> inputs_;
  std::array<std::int32_t, 2> count_{};
};

// A message naming the option when a value is out of range, else empty.
std::string check(const Problem& p) {
  if (p.cells < 3) {
    return fmt::format(
        "--cells {}: at least 3 cells per side are needed (each cell's 26 "
        "neighbours must be distinct cells)",
        p.cells);
  }
  if (p.cells > 1024) return fmt::format("--cells {}: at most 1024", p.cells);
  if (p.atoms < 1) return fmt::format("--atoms-per-cell {}: at least 1 atom per cell", p.atoms);
  if (p.atoms > 1000000) return fmt::format("--atoms-per-cell {}: at most 1000000", p.atoms);
  if (p.dense < 0 || p.dense > 1000000)
    return fmt::format("--dense-atoms {}: must be 0 (as --atoms-per-cell) to 1000000", p.dense);
  if (p.steps < 1) return fmt::format("--steps {}: at least 1 step", p.steps);
  if (!(p.dt > 0.0) || !std::isfinite(p.dt))
    return fmt::format("--dt {}: the time step must be positive", p.dt);
  if (p.sync_every < 0)
    return fmt::format("--sync-every {}: must be 0 (none) or more", p.sync_every);
  if (p.migrate_every < 1) return fmt::format("--migrate-every {}: at least 1", p.migrate_every);
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"leanmd: Lennard-Jones molecular dynamics in C x C x C cells with pair computes"};
  Problem p;
  vela::rt::Options options;
  app.add_option("--cells", p.cells, "Cells per side of the periodic box (at least 3)");
  app.add_option("--atoms-per-cell", p.atoms, "Atoms per cell at the start");
  app.add_option("--dense-atoms", p.dense,
                 "Atoms per cell at the start in the corner octant [0, C/2)^3, whose computes "
                 "cost more (0: --atoms-per-cell)");
  app.add_option("--steps", p.steps, "Time steps");
  app.add_option("--dt", p.dt, "Time step, in reduced Lennard-Jones units");
  app.add_option("--sync-every", p.sync_every, "Steps between balancing points (0 = none)");
  app.add_option("--migrate-every", p.migrate_every,
                 "Steps between moves of atoms to the cells that now hold them");
  bool quiet = false;
  app.add_flag("--quiet", quiet,
               "No progress line on stderr (drawn only when stderr is a terminal and the run "
               "takes more than a second)");
  vela::rt::add_runtime_options(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // --help: 0; every bad option: 1
  }
  if (const std::string bad = check(p); !bad.empty()) {
    fmt::print(stderr, "leanmd: {}\n", bad);
    return 1;
  }
  // Every atom: its cell's id, position, velocity and force, and its position and force in
  // each of the about 14 computes per cell that pair its cell with a neighbour (estimated).
  const double c = p.cells, octant = (c / 2) * (c / 2) * (c / 2);
  const double atoms = (c * c * c - octant) * p.atoms + octant * (p.dense > 0 ? p.dense : p.atoms);
  if (!vela::apps::fits_in_memory(
          "leanmd", atoms * 1500,
          fmt::format("--cells {} with --atoms-per-cell {}", p.cells, p.atoms),
          "about 1.5 KiB per atom")) {
    return 1;
  }
  try {
    vela::rt::Runtime runtime(options);
    vela::progress::Reporter progress({"leanmd", "steps", static_cast<std::uint64_t>(p.steps)},
                                      quiet || runtime.process() != 0);
    if (progress.active()) step_progress = &progress;
    std::chrono::steady_clock::time_point begin, end;
    std::vector<double> first, last;
    const int code = runtime.run([&](vela::rt::Context& ctx) {
      p.started = ctx.callback([&](const std::vector<double>& result) { first = result; });
      p.done = ctx.callback([&](const std::vector<double>& result) {
        end = std::chrono::steady_clock::now();
        last = result;
      });
      // Cells in contiguous ranges over the PEs; each compute on the PE of its cell A.
      const std::uint64_t ncells = p.cell_count();
      const vela::rt::UserMap map = [ncells](const Index& i, const vela::rt::Shape&,
                                             vela::rt::PeId pes) {
        auto linear = static_cast<std::uint64_t>(i.x);
        if (linear >= ncells) linear = (linear - ncells) / pair_slots;
        return static_cast<vela::rt::PeId>(linear * static_cast<std::uint64_t>(pes) / ncells);
      };
      auto pieces = ctx.create<Piece>(
          "leanmd", vela::rt::Shape::line(static_cast<std::int32_t>(ncells * (1 + pair_slots))),
          map, p);
      begin = std::chrono::steady_clock::now();
      pieces.broadcast<&Piece::start>();
    });
    step_progress = nullptr;
    progress.finish();
    if (runtime.process() != 0) return code;
    if (first.size() != 2 || last.size() != 8) {
      fmt::print(stderr, "leanmd: the run ended before the results were computed\n");
      return 1;
    }
    std::uint64_t sum = 0;
    for (std::size_t l = 0; l < 4; ++l) sum = mix(sum ^ static_cast<std::uint64_t>(last[2 + l]));
    const double e0 = first[0] + first[1], e1 = last[0] + last[1];
    fmt::print("checksum: {:016x}\n", sum);
    fmt::print("energy: start {:.12g} end {:.12g} drift {:.6e}\n", e0, e1,
               (e1 - e0) / std::abs(e0));
    fmt::print("atoms: {}  cells: {}  computes: {}  cutoff: {:.6g}  cell size: {:.6g}\n",
               static_cast<std::uint64_t>(last[7]), cell_shape(p).size(),
               cell_shape(p).size() * pair_slots, p.cutoff(), p.cell_size());
    fmt::print("moved: {}\n", static_cast<std::uint64_t>(last[6]));
    const double seconds = std::chrono::duration<double>(end - begin).count();
    fmt::print("time: {:.6f}\n", seconds);
    fmt::print("step: {:.6f}\n", seconds / p.steps);
    // The steps after the last balancing point, when this process saw one (its cells resumed).
    const std::int32_t from = resumed_step.load();
    if (from > 0 && from < p.steps) {
      const std::chrono::steady_clock::time_point resumed{
          std::chrono::steady_clock::duration{resumed_at.load()}};
      fmt::print("steady step: {:.6f} (steps {} to {}, after the last balancing point)\n",
                 std::chrono::duration<double>(end - resumed).count() / (p.steps - from), from,
                 p.steps);
    }
    const auto& s = runtime.stats();
    fmt::print("pes: {}  lb steps: {}  migrations: {}  forwarded: {}\n", runtime.pes(), s.lb_steps,
               s.migrations, s.forwarded);
    if (s.wan_messages > 0) {
      fmt::print("wan: {} messages  {} bytes  ({:.0f} bytes/step)\n", s.wan_messages, s.wan_bytes,
                 static_cast<double>(s.wan_bytes) / p.steps);
    }
    fmt::print("{}", s.balancing_line());
    return code;
  } catch (const std::exception& e) {
    fmt::print(stderr, "leanmd: error: {}\n", e.what());
    return 1;
  }
}
