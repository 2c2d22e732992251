// One process, two MPIs: Open MPI's libmpi used through the system's mpi.h in one translation
// unit (mixed_openmpi.c) and Vela's ranks through vela/mpi.h in this one. The names of
// vela/mpi.h are Vela's own symbols (VMPI_*), so neither MPI takes the other's calls.
#include <gtest/gtest.h>

#include <atomic>

#include "mixed_openmpi.h"
#include "vela/mpi/run.hpp"
#define VELA_MPI_NO_MAIN
#include "vela/mpi.h"

namespace {

std::atomic<int> vela_sum{-1};

int vela_ranks(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) vela_sum = sum * 100 + size;
  MPI_Finalize();
  return 0;
}

TEST(MpiMixed, OpenMpiAndVelaRanksInOneProcess) {
  OpenMpiSeen seen{};
  ASSERT_EQ(openmpi_singleton(&seen), 1);
  EXPECT_EQ(seen.initialized, 1);
  EXPECT_EQ(seen.size, 1);
  EXPECT_EQ(seen.rank, 0);
  EXPECT_EQ(seen.sum, 1);

  // Vela's ranks run while Open MPI is initialized; Vela's MPI_Initialized is its own.
  int flag = -1;
  MPI_Initialized(&flag);
  EXPECT_EQ(flag, 0);
  vela::rt::Options options;
  options.pes = 2;
  options.pin = false;
  vela::rt::Runtime runtime(options);
  vela::vp::Options ranks;
  ranks.ranks = 6;
  char name[] = "mpi_mixed_test";
  char* argv[] = {name, nullptr};
  EXPECT_EQ(vela::mpi::run(runtime, ranks, &vela_ranks, 1, argv), 0);
  EXPECT_EQ(vela_sum, 15 * 100 + 6);

  EXPECT_EQ(openmpi_finalize(), 1);
}

}  // namespace
