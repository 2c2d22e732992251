// The BRAMS proxy on Vela: model.cpp, a plain MPI program, run as --ranks migratable
// ranks over the runtime's PEs, with the privatization method of --privatize. The model's
// options are checked here (so --help lists them) and handed to every rank unchanged.
// How to run it: docs/user-guide.md, *The BRAMS proxy*.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model.hpp"
#include "vela/mpi/run.hpp"
#include "vela/rt/runtime.hpp"
#include "vela/vp/vp.hpp"

namespace {

enum class Privatize { privatized, tls, copy };

// The model's options: checked here, handed to the ranks only when given (model.cpp holds the
// defaults, which the help texts repeat).
struct ModelOption {
  const char* name;
  const char* help;
  int min, max;
};
constexpr ModelOption model_int_options[] = {
    {"--nx", "Columns along x (default 64)", 1, 1 << 20},
    {"--ny", "Columns along y (default 64)", 1, 1 << 20},
    {"--nz", "Levels per column (default 20)", 1, 4096},
    {"--steps", "Time steps (default 240)", 1, 1 << 30},
    {"--lb-every",
     "Steps between MPI_Migrate() calls (default 60; 0: never); the runtime's --lb or "
     "--lb-policy decides what happens there",
     0, 1 << 30},
    {"--storm-work",
     "Newton iterations of the saturation adjustment on a saturated level: the storm's extra "
     "cost (default 128)",
     1, 1 << 20},
    {"--storm-radius", "Storm radius in columns (default 0: nx / 10)", 0, 1 << 20},
    {"--storm-drift",
     "How far north the storm drifts over the run, in percent of the domain (default 55; it "
     "drifts a third of that east)",
     0, 70},
    {"--radiation-every", "Steps between radiation steps (default 100; 0: none)", 0, 1 << 30},
    {"--radiation-work", "Extra radiation passes per level under the sun (default 6)", 0, 1 << 20},
    {"--topography",
     "Static extra cost: drag passes on the lowest levels at the ridge's top (default 0: none)", 0,
     1 << 20},
    {"--record-pes", "PEs of the --record trace, the ranks placed on them in blocks (default 64)",
     1, 1 << 20},
    {"--explicit-moves",
     "At the first MPI_Migrate() (--lb-every), move the N busiest ranks of the busiest PE by "
     "hand (MPI_Migrate_to_pe), each to the least loaded PE: seed 000's Table 4.2 (default 0)",
     0, 1 << 20},
};
constexpr ModelOption model_path_options[] = {
    {"--step-log", "Write rank 0's time per step (CSV: step,seconds,migrate_seconds) to FILE", 0,
     0},
    {"--record",
     "Write the ranks' measured compute time per step as a vela-lb trace (JSON) to FILE, for "
     "`vela-lb replay` at scale",
     0, 0},
    {"--output",
     "Write the final fields to FILE as netCDF with CF conventions (for xarray, ncview, Panoply)",
     0, 0},
};

struct ModelArguments {
  std::map<std::string, int> ints;
  std::map<std::string, std::string> paths;
  bool quiet = false;
};

void add_model_options(CLI::App& app, ModelArguments& m) {
  for (const ModelOption& o : model_int_options) {
    app.add_option(o.name, m.ints[o.name], o.help)
        ->check(CLI::Range(o.min, o.max))
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)  // the last one given counts
        ->group("Model");
  }
  for (const ModelOption& o : model_path_options) {
    app.add_option(o.name, m.paths[o.name], o.help)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
        ->group("Model");
  }
  app.add_flag("--quiet", m.quiet,
               "No progress line on stderr (rank 0 draws one when stderr is a terminal and the "
               "run takes more than a second)")
      ->group("Model");
}

// The model's argv: the options given on the command line, in a fixed order.
std::vector<std::string> model_arguments(const CLI::App& app, const ModelArguments& m) {
  std::vector<std::string> a = {"brams"};
  for (const ModelOption& o : model_int_options) {
    if (app.count(o.name) == 0) continue;
    a.emplace_back(o.name);
    a.push_back(std::to_string(m.ints.at(o.name)));
  }
  for (const ModelOption& o : model_path_options) {
    if (app.count(o.name) == 0) continue;
    a.emplace_back(o.name);
    a.push_back(m.paths.at(o.name));
  }
  if (m.quiet) a.emplace_back("--quiet");
  return a;
}

// The copy method's module globals, registered while a run lasts.
class CopiedGlobals {
 public:
  explicit CopiedGlobals(bool on) : on_(on) {
    if (on_) brams_globals_copy(true);
  }
  ~CopiedGlobals() {
    if (on_) brams_globals_copy(false);
  }
  CopiedGlobals(const CopiedGlobals&) = delete;
  CopiedGlobals& operator=(const CopiedGlobals&) = delete;

 private:
  bool on_;
};

}  // namespace

int main(int argc, char** argv) {
  vela::vp::prepare_ranks_across_processes(argc, argv);  // ranks may move between processes
  CLI::App app{
      "brams: a BRAMS-like weather proxy (plain MPI on vela/mpi.h) with a moving storm, run as "
      "migratable ranks"};
  ModelArguments model;
  vela::rt::Options options;
  vela::vp::Options ranks;
  int rank_count = 0;
  Privatize privatize = Privatize::privatized;
  add_model_options(app, model);
  app.add_option("--ranks", rank_count, "Ranks (virtual processors); 0: one per PE")
      ->check(CLI::Range(0, 1 << 24));
  app.add_option("--privatize", privatize,
                 "How each rank gets its own module state: privatized (vela::vp::privatized, "
                 "any PEs and processes), tls (thread_local, --vp-tls-globals) or copy "
                 "(copied in and out at every switch; --pes 1)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, Privatize>{{"privatized", Privatize::privatized},
                                           {"tls", Privatize::tls},
                                           {"copy", Privatize::copy}},
          CLI::ignore_case));
  vela::rt::add_runtime_options(app, options);
  vela::vp::add_vp_options(app, ranks);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // --help: 0; every bad option: 1
  }
  if (privatize == Privatize::tls) ranks.tls_globals = true;
  vela::mpi::Main entry = privatize == Privatize::tls    ? &brams_model_tls
                          : privatize == Privatize::copy ? &brams_model_copy
                                                         : &brams_model_privatized;
  try {
    vela::vp::set_program_ranks(ranks, rank_count);
    vela::rt::Runtime runtime(options);
    const int n = ranks.ranks > 0 ? ranks.ranks : runtime.pes();
    // The ranks' coordinates are the model's grid of blocks, for geometric strategies.
    int px = 1, py = 1;
    brams_rank_grid(n, &px, &py);
    vela::vp::set_program_grid(ranks, {px, py, 1});
    const int code = [&] {
      CopiedGlobals copied(privatize == Privatize::copy);
      return vela::mpi::run(runtime, ranks, entry, model_arguments(app, model));
    }();
    if (runtime.process() == 0) {
      const auto& s = runtime.stats();
      fmt::print("pes: {}  ranks: {}  lb steps: {}  migrations: {}\n", runtime.pes(), n, s.lb_steps,
                 s.migrations);
      fmt::print("{}", s.balancing_line());
      // What the user guide says every application prints of its checkpoints and restarts.
      if (s.restored > 0) {
        fmt::print("restart: {} ranks from sync point {}\n", s.restored, s.restored_sync);
      }
      if (s.checkpoints > 0) {
        fmt::print("checkpoints: {}  {} bytes each  {:.3f} ms each\n", s.checkpoints,
                   s.checkpoint_bytes / s.checkpoints, 1e3 * s.checkpoint_seconds / s.checkpoints);
      }
    }
    return code;
  } catch (const std::exception& e) {
    fmt::print(stderr, "brams: error: {}\n", e.what());
    return 1;
  }
}
