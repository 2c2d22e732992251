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

// The intercommunicator tests' shape: group A (world ranks 0 and 1) and group B (2 onwards),
// each a split of the world in world order, joined by an intercommunicator (tag 7) whose errors
// return their class.
struct TwoGroups {
  bool in_a = false;
  MPI_Comm half = MPI_COMM_NULL;   // this rank's group
  MPI_Comm inter = MPI_COMM_NULL;  // to the other group
  int local = -1;                  // this rank's rank in its group
  int remote = 0;                  // the other group's size
  int first_remote = 0;            // the other group's first world rank
};

inline TwoGroups two_groups() {
  TwoGroups g;
  const int me = world_rank();
  g.in_a = me < 2;
  MPI_Comm_split(MPI_COMM_WORLD, g.in_a ? 0 : 1, me, &g.half);
  MPI_Intercomm_create(g.half, 0, MPI_COMM_WORLD, g.in_a ? 2 : 0, 7, &g.inter);
  MPI_Comm_set_errhandler(g.inter, MPI_ERRORS_RETURN);
  MPI_Comm_rank(g.inter, &g.local);
  MPI_Comm_remote_size(g.inter, &g.remote);
  g.first_remote = g.in_a ? 2 : 0;
  return g;
}

}  // namespace mpi_test
