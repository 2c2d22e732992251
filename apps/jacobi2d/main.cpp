// Jacobi2D: an N x N mesh in M x M blocks, a 5-point stencil with halo exchange, and an
// optional heavy region where each cell does extra real arithmetic. The checksum is a hash of
// every cell's bits combined by exact integer sums, so it is the same for any PE count, block
// count and balancer — if and only if every cell's value is. How to run it: docs/user-guide.md,
// *Jacobi2D*.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <array>
#include <bit>
#include <chrono>
#include <cstdint>
#include <map>
#include <vector>

#include "../common/memory.hpp"
#include "ranks.h"
#include "vela/mpi/run.hpp"
#include "vela/progress/reporter.hpp"
#include "vela/rt/runtime.hpp"
#include "vela/vp/vp.hpp"

namespace {

using vela::rt::Index;

// The progress line of this process's run, when it draws one (process 0, stderr a terminal, no
// --quiet). Block (0, 0) reports its step: the blocks are made and moved by the runtime, and a
// pointer cannot travel in their state to another process, so they find it here; on another
// process (after a migration) it is null and the line waits for the block to come back.
vela::progress::Reporter* step_progress = nullptr;

struct Problem {
  std::int32_t mesh = 512;
  std::int32_t objects = 8;  // per side
  std::int32_t steps = 100;
  std::int32_t heavy = 1;  // work factor in the heavy region; 1 = none
  std::int32_t sync_every = 10;
  vela::rt::Callback done;  // receives the checksum lanes
  void pup(vela::pup::Archive& ar) { ar | mesh | objects | steps | heavy | sync_every | done; }
};

// First cell and cell count of block b of `blocks` over `cells` (sizes differ by at most one).
std::int32_t range_start(std::int32_t cells, std::int32_t blocks, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::int64_t>(cells) * b / blocks);
}

std::uint64_t mix(std::uint64_t x) {  // a 64-bit finalizer (xorshift-multiply)
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

enum Side { left, right, down, up };

class Block : public vela::rt::ElementBase {
 public:
  Block() = default;
  explicit Block(Problem p) : p_(p) {
    x0_ = range_start(p_.mesh, p_.objects, index().x);
    y0_ = range_start(p_.mesh, p_.objects, index().y);
    nx_ = range_start(p_.mesh, p_.objects, index().x + 1) - x0_;
    ny_ = range_start(p_.mesh, p_.objects, index().y + 1) - y0_;
    u_.assign(static_cast<std::size_t>((nx_ + 2) * (ny_ + 2)), 0.0);
    next_ = u_;
    apply_boundary(u_);
    apply_boundary(next_);
  }

  void pup(vela::pup::Archive& ar) override {
    ar | p_ | x0_ | y0_ | nx_ | ny_ | step_ | sent_ | u_ | next_ | halos_ | arrived_;
  }

  void start() { exchange(); }

  void halo(std::int32_t step, std::int32_t side, std::vector<double> values) {
    const auto slot = static_cast<std::size_t>(step % 2);
    halos_[slot][static_cast<std::size_t>(side)] = std::move(values);
    ++arrived_[slot];
    try_compute();
  }

  void resume_from_sync() override { exchange(); }

 private:
  double& at(std::vector<double>& a, std::int32_t i, std::int32_t j) {
    return a[static_cast<std::size_t>(j * (nx_ + 2) + i)];
  }

  // Dirichlet boundary: the mesh's top row is held at 1, the other edges at 0.
  void apply_boundary(std::vector<double>& a) {
    if (y0_ + ny_ == p_.mesh) {
      for (std::int32_t i = 0; i < nx_ + 2; ++i) at(a, i, ny_ + 1) = 1.0;
    }
  }

  std::int32_t neighbours() const {
    const Index i = index();
    return (i.x > 0) + (i.x + 1 < p_.objects) + (i.y > 0) + (i.y + 1 < p_.objects);
  }

  void exchange() {
    const Index i = index();
    sent_ = step_;
    std::vector<double> edge;
    if (i.x > 0) {
      edge.resize(static_cast<std::size_t>(ny_));
      for (std::int32_t j = 0; j < ny_; ++j) edge[static_cast<std::size_t>(j)] = at(u_, 1, j + 1);
      send<&Block::halo>(Index{i.x - 1, i.y, 0}, step_, static_cast<std::int32_t>(right), edge);
    }
    if (i.x + 1 < p_.objects) {
      edge.resize(static_cast<std::size_t>(ny_));
      for (std::int32_t j = 0; j < ny_; ++j) edge[static_cast<std::size_t>(j)] = at(u_, nx_, j + 1);
      send<&Block::halo>(Index{i.x + 1, i.y, 0}, step_, static_cast<std::int32_t>(left), edge);
    }
    if (i.y > 0) {
      edge.assign(u_.begin() + (nx_ + 2) + 1, u_.begin() + (nx_ + 2) + 1 + nx_);
      send<&Block::halo>(Index{i.x, i.y - 1, 0}, step_, static_cast<std::int32_t>(up), edge);
    }
    if (i.y + 1 < p_.objects) {
      const auto row = static_cast<std::ptrdiff_t>(ny_ * (nx_ + 2) + 1);
      edge.assign(u_.begin() + row, u_.begin() + row + nx_);
      send<&Block::halo>(Index{i.x, i.y + 1, 0}, step_, static_cast<std::int32_t>(down), edge);
    }
    try_compute();
  }

  void try_compute() {
    const auto slot = static_cast<std::size_t>(step_ % 2);
    // A block computes a step only after sending its own halos of that step: a neighbour's
    // halo can arrive before this block's start() or resume_from_sync().
    if (step_ >= p_.steps || sent_ != step_ || arrived_[slot] < neighbours()) return;
    arrived_[slot] = 0;
    unpack_halos(halos_[slot]);
    compute();
    ++step_;
    if (step_progress != nullptr && linear_index() == 0) {
      step_progress->set(static_cast<std::uint64_t>(step_));
    }
    if (step_ == p_.steps) {
      contribute(checksum(), vela::rt::ReduceOp::sum, p_.done);
      return;
    }
    if (p_.sync_every > 0 && step_ % p_.sync_every == 0) {
      at_sync();
      return;
    }
    exchange();
  }

  void unpack_halos(std::array<std::vector<double>, 4>& h) {
    const Index i = index();
    if (i.x > 0) {
      for (std::int32_t j = 0; j < ny_; ++j)
        at(u_, 0, j + 1) = h[left][static_cast<std::size_t>(j)];
    }
    if (i.x + 1 < p_.objects) {
      for (std::int32_t j = 0; j < ny_; ++j) {
        at(u_, nx_ + 1, j + 1) = h[right][static_cast<std::size_t>(j)];
      }
    }
    if (i.y > 0) {
      for (std::int32_t k = 0; k < nx_; ++k)
        at(u_, k + 1, 0) = h[down][static_cast<std::size_t>(k)];
    }
    if (i.y + 1 < p_.objects) {
      for (std::int32_t k = 0; k < nx_; ++k) {
        at(u_, k + 1, ny_ + 1) = h[up][static_cast<std::size_t>(k)];
      }
    }
  }

  bool heavy(std::int32_t gx, std::int32_t gy) const {
    const std::int32_t lo = p_.mesh / 8, hi = 3 * p_.mesh / 8;
    return p_.heavy > 1 && gx >= lo && gx < hi && gy >= lo && gy < hi;
  }

  void compute() {
    for (std::int32_t j = 1; j <= ny_; ++j) {
      for (std::int32_t i = 1; i <= nx_; ++i) {
        double v =
            0.25 * (at(u_, i - 1, j) + at(u_, i + 1, j) + at(u_, i, j - 1) + at(u_, i, j + 1));
        if (heavy(x0_ + i - 1, y0_ + j - 1)) {
          // Extra physics-like work: a damped fixed-point iteration that nudges the value.
          double s = v;
          for (std::int32_t k = 1; k < p_.heavy; ++k) s = 0.5 * s + 0.5 * v * (1.0 - 1e-3 * s * s);
          v += 1e-6 * (s - v);
        }
        at(next_, i, j) = v;
      }
    }
    std::swap(u_, next_);
  }

  // Per cell, a hash of its global position and value bits; four 16-bit lanes summed exactly.
  std::vector<double> checksum() {
    std::vector<double> lanes(4, 0.0);
    for (std::int32_t j = 1; j <= ny_; ++j) {
      for (std::int32_t i = 1; i <= nx_; ++i) {
        const auto cell =
            static_cast<std::uint64_t>(y0_ + j - 1) * static_cast<std::uint64_t>(p_.mesh) +
            static_cast<std::uint64_t>(x0_ + i - 1);
        const std::uint64_t h = mix(cell ^ mix(std::bit_cast<std::uint64_t>(at(u_, i, j))));
        for (int l = 0; l < 4; ++l)
          lanes[static_cast<std::size_t>(l)] += static_cast<double>((h >> (16 * l)) & 0xffff);
      }
    }
    return lanes;
  }

 private:
  Problem p_;
  std::int32_t x0_ = 0, y0_ = 0, nx_ = 0, ny_ = 0, step_ = 0;
  std::int32_t sent_ = -1;  // the last step whose halos this block sent
  std::vector<double> u_, next_;
  std::array<std::array<std::vector<double>, 4>, 2> halos_;
  std::array<std::int32_t, 2> arrived_{};
};

// The MPI version: the same problem as a plain MPI program on `ranks` ranks.
// The mesh's two arrays of 8-byte cells (and a halo per block side) must fit in this
// machine's memory: refused up front, naming the options (apps/common/memory.hpp).
bool fits_in_memory(const Problem& p) {
  const double side = static_cast<double>(p.mesh) / p.objects + 2;
  const double blocks = static_cast<double>(p.objects) * p.objects;
  return vela::apps::fits_in_memory("jacobi2d", blocks * side * side * 8 * 2,
                                    fmt::format("--mesh {} in --objects {}", p.mesh, p.objects),
                                    "two arrays of 8-byte cells");
}

int run_ranks(const Problem& p, const vela::rt::Options& options, int ranks, bool quiet) {
  std::vector<std::string> args = {"jacobi2d",
                                   "--mesh",
                                   std::to_string(p.mesh),
                                   "--steps",
                                   std::to_string(p.steps),
                                   "--heavy",
                                   std::to_string(p.heavy),
                                   "--sync-every",
                                   std::to_string(p.sync_every)};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  try {
    vela::rt::Runtime runtime(options);
    vela::vp::Options vp;
    vp.ranks = ranks;
    vela::progress::Reporter progress({"jacobi2d", "steps", static_cast<std::uint64_t>(p.steps)},
                                      quiet || runtime.process() != 0);
    if (progress.active()) {
      step_progress = &progress;
      jacobi2d_after_step = [](int step, int) {
        if (step_progress != nullptr) step_progress->set(static_cast<std::uint64_t>(step));
      };
    }
    const int code =
        vela::mpi::run(runtime, vp, &jacobi2d_ranks, static_cast<int>(args.size()), argv.data());
    jacobi2d_after_step = nullptr;
    step_progress = nullptr;
    progress.finish();
    const auto& s = runtime.stats();
    fmt::print("pes: {}  ranks: {}  lb steps: {}  migrations: {}  forwarded: {}\n", runtime.pes(),
               ranks, s.lb_steps, s.migrations, s.forwarded);
    return code;
  } catch (const std::exception& e) {
    fmt::print(stderr, "jacobi2d: error: {}\n", e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  vela::vp::prepare_ranks_across_processes(argc, argv);  // --ranks may move between processes
  CLI::App app{"jacobi2d: 5-point stencil on an N x N mesh in M x M migratable blocks"};
  Problem p;
  vela::rt::Options options;
  int ranks = 0;
  vela::rt::InitialMap map = vela::rt::InitialMap::block;
  app.add_option("--map", map,
                 "Initial placement: block (2-D blocks of blocks per PE), naive (consecutive "
                 "row-major ranges, seed 002's Naive map) or round-robin")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, vela::rt::InitialMap>{
              {"block", vela::rt::InitialMap::block},
              {"naive", vela::rt::InitialMap::ranges},
              {"round-robin", vela::rt::InitialMap::round_robin}},
          CLI::ignore_case));
  app.add_option("--ranks", ranks,
                 "Run the MPI version (ranks.c) on this many ranks, one block each, instead of "
                 "--objects migratable blocks")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--mesh", p.mesh, "Mesh side N (cells)")->check(CLI::Range(2, 1 << 20));
  app.add_option("--objects", p.objects, "Blocks per side M")->check(CLI::Range(1, 4096));
  app.add_option("--steps", p.steps, "Iterations")->check(CLI::Range(1, 1 << 30));
  app.add_option("--heavy", p.heavy, "Work factor in the heavy region (1 = none)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--sync-every", p.sync_every, "Steps between balancing points (0 = none)")
      ->check(CLI::Range(0, 1 << 30));
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
  if (p.objects > p.mesh) {
    fmt::print(stderr, "jacobi2d: --objects {} exceeds --mesh {}: every block needs a cell\n",
               p.objects, p.mesh);
    return 1;
  }
  if (!fits_in_memory(p)) return 1;
  if (ranks > 0) return run_ranks(p, options, ranks, quiet);
  try {
    vela::rt::Runtime runtime(options);
    vela::progress::Reporter progress({"jacobi2d", "steps", static_cast<std::uint64_t>(p.steps)},
                                      quiet || runtime.process() != 0);
    if (progress.active()) step_progress = &progress;
    std::chrono::steady_clock::time_point begin, end;
    std::vector<double> lanes;
    const int code = runtime.run([&](vela::rt::Context& ctx) {
      p.done = ctx.callback([&](const std::vector<double>& result) {
        end = std::chrono::steady_clock::now();
        lanes = result;
      });
      auto blocks =
          ctx.create<Block>("jacobi", vela::rt::Shape::grid(p.objects, p.objects), map, p);
      begin = std::chrono::steady_clock::now();
      // On --restart the blocks come back from the checkpoint and resume by themselves.
      if (!ctx.restarted()) blocks.broadcast<&Block::start>();
    });
    step_progress = nullptr;
    progress.finish();
    if (runtime.process() != 0) return code;  // under mpirun, process 0 reports
    if (lanes.size() != 4) {
      fmt::print(stderr, "jacobi2d: the run ended before the checksum was computed\n");
      return 1;
    }
    std::uint64_t sum = 0;
    for (int l = 0; l < 4; ++l)
      sum = mix(sum ^ static_cast<std::uint64_t>(lanes[static_cast<std::size_t>(l)]));
    fmt::print("checksum: {:016x}\n", sum);
    const double seconds = std::chrono::duration<double>(end - begin).count();
    fmt::print("time: {:.6f}\n", seconds);
    fmt::print("step: {:.6f}\n", seconds / p.steps);
    const auto& s = runtime.stats();
    fmt::print("pes: {}  lb steps: {}  migrations: {}  forwarded: {}\n", runtime.pes(), s.lb_steps,
               s.migrations, s.forwarded);
    fmt::print("{}", s.balancing_line());
    if (s.restored > 0) {
      fmt::print("restart: {} blocks from sync point {}\n", s.restored, s.restored_sync);
    }
    if (s.checkpoints > 0) {
      fmt::print("checkpoints: {}  {} bytes each  {:.3f} ms each\n", s.checkpoints,
                 s.checkpoint_bytes / s.checkpoints, 1e3 * s.checkpoint_seconds / s.checkpoints);
    }
    if (s.wan_messages > 0) {
      fmt::print("wan: {} messages  {} bytes  ({:.0f} bytes/step)  grid queue: {} messages\n",
                 s.wan_messages, s.wan_bytes, static_cast<double>(s.wan_bytes) / p.steps,
                 s.grid_messages);
    }
    return code;
  } catch (const std::exception& e) {
    fmt::print(stderr, "jacobi2d: error: {}\n", e.what());
    return 1;
  }
}
