// What the in-process tests of vela/mpi.h share: a small MPI "program" (a function with main's
// signature) run on ranks through vela::mpi::run over 2 PEs, optionally with a balancer (e.g.
// "rotate", which moves every rank at each MPI_Migrate), and what came of it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "vela/mpi/run.hpp"
#ifndef VELA_MPI_NO_MAIN
#define VELA_MPI_NO_MAIN  // the tests keep gtest's main
#endif
#include "vela/mpi.h"

namespace mpi_test {

struct Outcome {
  int code = -1;      // what vela::mpi::run returned
  std::string error;  // the message of the vp::Error it threw, if any
};

// `tweak` may change the runtime's options further (e.g. --lb-dump), `rank_tweak` the ranks'.
inline Outcome run_mpi(int ranks, vela::mpi::Main main, const std::string& lb = "",
                       const std::function<void(vela::rt::Options&)>& tweak = {},
                       const std::function<void(vela::vp::Options&)>& rank_tweak = {}) {
  vela::rt::Options options;
  options.pes = 2;
  options.pin = false;
  options.lb = lb;
  if (tweak) tweak(options);
  vela::vp::Options rank_options;
  rank_options.ranks = ranks;
  if (rank_tweak) rank_tweak(rank_options);
  std::vector<std::string> words{"mpi_test"};
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  vela::rt::Runtime runtime(options);
  Outcome outcome;
  try {
    outcome.code = vela::mpi::run(runtime, rank_options, main, 1, argv.data());
  } catch (const vela::vp::Error& e) {
    outcome.error = e.what();
  }
  return outcome;
}

inline int world_rank() {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

}  // namespace mpi_test
