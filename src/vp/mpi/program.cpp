// vela::mpi::main: the command line of an MPI program run as ranks. The runtime's options are
// taken out, everything else goes to the program, in order, as mpirun would pass it.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "vela/mpi/run.hpp"

namespace vela::mpi {

int main(int argc, char** argv, Main main) {
  const std::string program =
      argc > 0 && argv[0] != nullptr ? std::filesystem::path(argv[0]).filename().string() : "mpi";
  CLI::App app{program +
               ": an MPI program run as Vela ranks (vela/mpi.h). The options below "
               "are the runtime's; every other argument, and all after --, goes to the program."};
  // -h and --help belong to the program.
  app.set_help_flag("--vela-help", "Print the runtime's options and exit");
  app.allow_extras();
  rt::Options runtime_options;
  vp::Options rank_options;
  rt::add_runtime_options(app, runtime_options);
  vp::add_vp_options(app, rank_options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // --vela-help: 0; every bad option: 1, as every program
  }
  std::vector<std::string> arguments{argc > 0 && argv[0] != nullptr ? argv[0] : program};
  std::vector<std::string> rest = app.remaining();
  // CLI11 keeps the first "--" among the extras: it only separated the program's arguments.
  const auto separator = std::find(rest.begin(), rest.end(), "--");
  if (separator != rest.end()) rest.erase(separator);
  arguments.insert(arguments.end(), rest.begin(), rest.end());
  try {
    rt::Runtime runtime(runtime_options);
    return run(runtime, rank_options, main, std::move(arguments));
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
    return 1;
  }
}

}  // namespace vela::mpi
