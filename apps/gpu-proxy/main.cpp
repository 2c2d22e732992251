// The GPU proxy on Vela: model.cpp, a plain MPI program, run as --ranks migratable
// ranks over the runtime's PEs. The model's options are checked here (so --help lists them
// and a bad one is named before any rank starts) and handed to every rank.
// How to run it: docs/user-guide.md, *The GPU proxy*.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "../common/memory.hpp"
#include "backend.hpp"
#include "model.hpp"
#include "options.hpp"
#include "vela/mpi/run.hpp"
#include "vela/rt/runtime.hpp"
#include "vela/vp/vp.hpp"

namespace {

constexpr int int_count = sizeof gpu_proxy::int_options / sizeof gpu_proxy::int_options[0];
constexpr int choice_count = sizeof gpu_proxy::choice_options / sizeof gpu_proxy::choice_options[0];

struct ModelArguments {
  std::array<int, int_count> ints{};
  std::array<std::string, choice_count> choices;
  std::string step_log;
};

void add_model_options(CLI::App& app, ModelArguments& m) {
  for (int o = 0; o < int_count; ++o) {
    const gpu_proxy::IntOption& option = gpu_proxy::int_options[o];
    m.ints[o] = option.fallback;
    app.add_option(option.name, m.ints[o], option.help)
        ->check(CLI::Range(option.min, option.max))
        ->capture_default_str()
        ->group("Model");
  }
  for (int o = 0; o < choice_count; ++o) {
    const gpu_proxy::ChoiceOption& option = gpu_proxy::choice_options[o];
    m.choices[o] = option.values[0];
    std::vector<std::string> values(option.values, option.values + option.count);
    app.add_option(option.name, m.choices[o], option.help)
        ->check(CLI::IsMember(values))
        ->capture_default_str()
        ->group("Model");
  }
  app.add_option(gpu_proxy::step_log_option, m.step_log, gpu_proxy::step_log_help)->group("Model");
}

// The model's argv: every option with its value, in the table's order.
std::vector<std::string> model_arguments(const ModelArguments& m) {
  std::vector<std::string> a = {"gpu-proxy"};
  for (int o = 0; o < int_count; ++o) {
    a.emplace_back(gpu_proxy::int_options[o].name);
    a.push_back(std::to_string(m.ints[o]));
  }
  for (int o = 0; o < choice_count; ++o) {
    a.emplace_back(gpu_proxy::choice_options[o].name);
    a.push_back(m.choices[o]);
  }
  if (!m.step_log.empty()) {
    a.emplace_back(gpu_proxy::step_log_option);
    a.push_back(m.step_log);
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  vela::vp::prepare_ranks_across_processes(argc, argv);  // ranks may move between processes
  CLI::App app{
      "gpu-proxy: a BRAMS-like GPU proxy (plain MPI on vela/mpi.h): a 3-D Jacobi and a column "
      "physics with a heavy region, on the CPU or a CUDA device, run as migratable ranks"};
  ModelArguments model;
  vela::rt::Options options;
  vela::vp::Options ranks;
  int rank_count = 0;
  add_model_options(app, model);
  app.add_option("--ranks", rank_count, "Ranks (virtual processors); 0: one per PE")
      ->check(CLI::Range(0, 1 << 24));
  vela::rt::add_runtime_options(app, options);
  vela::vp::add_vp_options(app, ranks);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // --help: 0; every bad option: 1
  }
  // The fields of every column and level, with a copy being computed and one at the start.
  const double columns = (model.ints[0] + 2.0) * (model.ints[1] + 2.0);
  if (!vela::apps::fits_in_memory("gpu-proxy", columns * model.ints[2] * model.ints[3] * 8 * 3,
                                  fmt::format("--nx {} --ny {} --nz {} --fields {}", model.ints[0],
                                              model.ints[1], model.ints[2], model.ints[3]),
                                  "three copies of the fields, 8 bytes a value")) {
    return 1;
  }
  const bool cuda = model.choices[0] == "cuda";
  if (cuda) {
    const std::string why = gpu_proxy::cuda_unavailable();
    if (!why.empty()) {
      fmt::print(stderr, "gpu-proxy: --backend cuda: {}\n", why);
      return 1;
    }
  }

  try {
    vela::vp::set_program_ranks(ranks, rank_count);
    vela::rt::Runtime runtime(options);
    if (cuda && runtime.processes() > 1) {
      // Device memory stays in the process that allocated it: a rank holding some cannot move
      // to another process.
      fmt::print(stderr,
                 "gpu-proxy: --backend cuda runs in one process (its ranks share the process's "
                 "devices); under mpirun use --backend cpu\n");
      return 1;
    }
    const int n = ranks.ranks > 0 ? ranks.ranks : runtime.pes();
    int px = 1, py = 1;
    gpu_proxy_rank_grid(n, &px, &py);
    const int nx = model.ints[0], ny = model.ints[1];
    if (px > nx || py > ny) {
      fmt::print(stderr,
                 "gpu-proxy: --ranks {}: {} ranks make a {} x {} grid of blocks, more than the "
                 "{} x {} columns (--nx, --ny): every rank needs at least one column\n",
                 n, n, px, py, nx, ny);
      return 1;
    }
    // The ranks' coordinates are the model's grid of blocks, for geometric strategies.
    vela::vp::set_program_grid(ranks, {px, py, 1});
    const int code = vela::mpi::run(runtime, ranks, &gpu_proxy_model, model_arguments(model));
    if (runtime.process() == 0) {
      const auto& s = runtime.stats();
      fmt::print("pes: {}  ranks: {}  lb steps: {}  migrations: {}\n", runtime.pes(), n, s.lb_steps,
                 s.migrations);
      fmt::print("{}", s.balancing_line());
    }
    return code;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpu-proxy: error: {}\n", e.what());
    return 1;
  }
}
