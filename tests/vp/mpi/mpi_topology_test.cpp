// Virtual topologies through vela/mpi.h's calls, in process on 2 PEs with ranks moving: a
// Cartesian grid (coordinates, shifts, sub-grids, the neighbourhood collectives, a periodic
// dimension of 2 where both neighbours are one rank), a graph, and distributed graphs made
// adjacently and from edges one rank knows.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "run_mpi.hpp"
#include "vela/lb/io/io.hpp"

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using mpi_test::Outcome;
using mpi_test::run_mpi;
using mpi_test::world_rank;

std::atomic<int> ranks_done{0};

// The coordinates the balancer sees for 12 ranks after a program declares a grid with
// MPI_Cart_create (read back from the --lb-dump of the MPI_Migrate that follows): `dims` of the
// grid, or none when `on_world` is false (a grid of a split communicator says nothing of the
// world's ranks).
struct Declared {
  std::string error;
  int dims = -1;
  std::vector<std::array<double, 3>> coords;
};
Declared declared_grid(int ndims, const std::vector<int>& dims, bool on_world,
                       const std::string& vp_grid = "") {
  static std::vector<int> grid;  // what the ranks' program reads (a test has one run at a time)
  static int n = 0;
  static bool world = true;
  grid = dims;
  n = ndims;
  world = on_world;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("vela_cart_geometry_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const Outcome o = run_mpi(
      12,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        MPI_Comm base = MPI_COMM_WORLD;
        if (!world) MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, world_rank(), &base);
        std::vector<int> periods(grid.size(), 0);
        std::vector<int> sides = grid;
        if (!world) sides.assign(grid.size(), 1), sides[0] = 6;
        MPI_Comm cart = MPI_COMM_NULL;
        MPI_Cart_create(base, n, sides.data(), periods.data(), 1, &cart);
        MPI_Migrate();
        MPI_Comm_free(&cart);
        if (!world) MPI_Comm_free(&base);
        MPI_Finalize();
        return 0;
      },
      "greedy", [&](vela::rt::Options& options) { options.lb_dump = dir.string(); },
      [&](vela::vp::Options& options) {
        if (!vp_grid.empty()) options.grid = {6, 2, 1};
      });
  Declared d;
  d.error = o.error;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const vela::lb::Instance instance = vela::lb::read_instance(entry.path().string());
    d.dims = instance.dims;
    for (const auto& object : instance.objects) {
      d.coords.resize(std::max<std::size_t>(d.coords.size(), object.id + 1));
      d.coords[object.id] = object.coords;
    }
  }
  std::filesystem::remove_all(dir);
  return d;
}

TEST(MpiTopology, CartesianGridIsWhatTheBalancerSees) {
  // 3 x 4, row-major: the last dimension (4) varies fastest, so it is x.
  const Declared two = declared_grid(2, {3, 4}, true);
  EXPECT_EQ(two.error, "");
  EXPECT_EQ(two.dims, 2);
  ASSERT_EQ(two.coords.size(), 12u);
  for (int r = 0; r < 12; ++r) {
    EXPECT_EQ(two.coords[r][0], r % 4) << r;
    EXPECT_EQ(two.coords[r][1], r / 4) << r;
  }
  // Four dimensions 1 x 2 x 2 x 3: the two leading ones fold into z.
  const Declared four = declared_grid(4, {1, 2, 2, 3}, true);
  EXPECT_EQ(four.dims, 3);
  ASSERT_EQ(four.coords.size(), 12u);
  for (int r = 0; r < 12; ++r) {
    EXPECT_EQ(four.coords[r][0], r % 3) << r;
    EXPECT_EQ(four.coords[r][1], r / 3 % 2) << r;
    EXPECT_EQ(four.coords[r][2], r / 6) << r;
  }
  // A grid of a split communicator: the ranks stay a line.
  const Declared split = declared_grid(2, {3, 4}, false);
  EXPECT_EQ(split.error, "");
  EXPECT_EQ(split.dims, 1);
  // --vp-grid's grid wins over the program's.
  const Declared given = declared_grid(2, {3, 4}, true, "6x2");
  EXPECT_EQ(given.dims, 2);
  ASSERT_EQ(given.coords.size(), 12u);
  for (int r = 0; r < 12; ++r) EXPECT_EQ(given.coords[r][0], r % 6) << r;
}

TEST(MpiTopology, DimsCreate) {
  const Outcome o = run_mpi(1, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int two[2] = {0, 0};
    MPI_Dims_create(12, 2, two);
    EXPECT_THAT(two, ElementsAre(4, 3));
    int three[3] = {0, 3, 0};
    MPI_Dims_create(6, 3, three);
    EXPECT_THAT(three, ElementsAre(2, 3, 1));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad[2] = {3, 0};
    EXPECT_EQ(MPI_Dims_create(10, 2, bad), MPI_ERR_DIMS);
    MPI_Finalize();
    return 0;
  });
  EXPECT_EQ(o.error, "");
}

// A 3 x 4 grid, periodic along its 4; 2 ranks of 14 are left out. Each rank sends its number
// plus the direction to its four neighbours (MPI_Neighbor_alltoall) and checks each block came
// from the right neighbour in the right direction, at every step with ranks moving.
TEST(MpiTopology, CartesianGridShiftsSubGridsAndNeighbours) {
  ranks_done = 0;
  const Outcome o = run_mpi(
      14,
      [](int argc, char** argv) {
        MPI_Init(&argc, &argv);
        const int me = world_rank();
        const int dims[2] = {3, 4};
        const int periods[2] = {0, 1};
        MPI_Comm grid;
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
        if (me >= 12) {
          EXPECT_EQ(grid, MPI_COMM_NULL);
          for (int step = 0; step < 3; ++step) MPI_Migrate();  // collective over every rank
          MPI_Finalize();
          ++ranks_done;
          return 0;
        }
        int status = -1;
        MPI_Topo_test(grid, &status);
        EXPECT_EQ(status, MPI_CART);
        int rank = -1;
        MPI_Comm_rank(grid, &rank);
        int coords[2] = {-1, -1};
        MPI_Cart_coords(grid, rank, 2, coords);
        EXPECT_EQ(coords[0], rank / 4);
        EXPECT_EQ(coords[1], rank % 4);
        int back = -1;
        MPI_Cart_rank(grid, coords, &back);
        EXPECT_EQ(back, rank);
        int up = -9;
        int down = -9;
        MPI_Cart_shift(grid, 0, 1, &up, &down);
        EXPECT_EQ(up, coords[0] > 0 ? rank - 4 : MPI_PROC_NULL);
        EXPECT_EQ(down, coords[0] < 2 ? rank + 4 : MPI_PROC_NULL);
        int left = -9;
        int right = -9;
        MPI_Cart_shift(grid, 1, 1, &left, &right);
        EXPECT_EQ(left, coords[0] * 4 + (coords[1] + 3) % 4);
        EXPECT_EQ(right, coords[0] * 4 + (coords[1] + 1) % 4);
        for (int step = 0; step < 3; ++step) {
          int out[4];
          for (int d = 0; d < 4; ++d) out[d] = 100 * rank + 10 * d + step;
          int in[4] = {-1, -1, -1, -1};
          MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, grid);
          // Slot 0: from the rank above, which sent it downwards (its direction 1).
          EXPECT_EQ(in[0], up == MPI_PROC_NULL ? -1 : 100 * up + 10 * 1 + step);
          EXPECT_EQ(in[1], down == MPI_PROC_NULL ? -1 : 100 * down + 10 * 0 + step);
          EXPECT_EQ(in[2], 100 * left + 10 * 3 + step);
          EXPECT_EQ(in[3], 100 * right + 10 * 2 + step);
          MPI_Migrate();
        }
        // Rows: keep the second dimension.
        const int keep[2] = {0, 1};
        MPI_Comm row;
        MPI_Cart_sub(grid, keep, &row);
        int row_rank = -1;
        int row_size = 0;
        MPI_Comm_rank(row, &row_rank);
        MPI_Comm_size(row, &row_size);
        EXPECT_EQ(row_size, 4);
        EXPECT_EQ(row_rank, coords[1]);
        int ndims = 0;
        MPI_Cartdim_get(row, &ndims);
        EXPECT_EQ(ndims, 1);
        int sum = 0;
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row);
        EXPECT_EQ(sum, 4 * 4 * coords[0] + 6);
        // A duplicate keeps the topology.
        MPI_Comm copy;
        MPI_Comm_dup(grid, &copy);
        int got_dims[2];
        int got_periods[2];
        int got_coords[2];
        MPI_Cart_get(copy, 2, got_dims, got_periods, got_coords);
        EXPECT_THAT(got_dims, ElementsAre(3, 4));
        EXPECT_THAT(got_periods, ElementsAre(0, 1));
        EXPECT_EQ(got_coords[1], coords[1]);
        MPI_Comm_free(&copy);
        MPI_Comm_free(&row);
        MPI_Comm_free(&grid);
        MPI_Finalize();
        ++ranks_done;
        return 0;
      },
      "rotate");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 14);
}

// A periodic ring of 2: both neighbours are the other rank, and each block must still arrive in
// its direction's place.
TEST(MpiTopology, PeriodicPairKeepsDirectionsApart) {
  ranks_done = 0;
  const Outcome o = run_mpi(2, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int dims[1] = {2};
    const int periods[1] = {1};
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int rank = -1;
    MPI_Comm_rank(ring, &rank);
    const int out[2] = {10 * rank + 0, 10 * rank + 1};  // to -1, to +1
    int in[2] = {-1, -1};
    MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, ring);
    const int other = 1 - rank;
    EXPECT_EQ(in[0], 10 * other + 1);  // from -1: what it sent to its +1
    EXPECT_EQ(in[1], 10 * other + 0);
    int gathered[2] = {-1, -1};
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, gathered, 1, MPI_INT, ring);
    EXPECT_THAT(gathered, ElementsAre(other, other));
    // The nonblocking form, started before a message the other rank waits for.
    int later[2] = {-1, -1};
    MPI_Request request;
    MPI_Ineighbor_alltoall(out, 1, MPI_INT, later, 1, MPI_INT, ring, &request);
    if (rank == 0) {
      MPI_Send(&rank, 1, MPI_INT, 1, 3, ring);
    } else {
      int x = -1;
      MPI_Recv(&x, 1, MPI_INT, 0, 3, ring, MPI_STATUS_IGNORE);
    }
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    EXPECT_EQ(later[0], 10 * other + 1);
    EXPECT_EQ(later[1], 10 * other + 0);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 2);
}

// The standard's four-node example graph; a ring as a distributed graph given by rank 0 alone,
// and the same ring given adjacently with weights.
TEST(MpiTopology, GraphsAndDistributedGraphs) {
  ranks_done = 0;
  const Outcome o = run_mpi(4, [](int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int me = world_rank();
    const int index[4] = {2, 3, 4, 6};
    const int edges[6] = {1, 3, 0, 3, 0, 2};
    MPI_Comm graph;
    MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &graph);
    int count = -1;
    MPI_Graph_neighbors_count(graph, 3, &count);
    EXPECT_EQ(count, 2);
    int neighbours[2];
    MPI_Graph_neighbors(graph, 3, 2, neighbours);
    EXPECT_THAT(neighbours, ElementsAre(0, 2));
    int nnodes = 0;
    int nedges = 0;
    MPI_Graphdims_get(graph, &nnodes, &nedges);
    EXPECT_EQ(nnodes, 4);
    EXPECT_EQ(nedges, 6);
    std::vector<int> from(4, -1);
    MPI_Neighbor_allgather(&me, 1, MPI_INT, from.data(), 1, MPI_INT, graph);
    const std::vector<std::vector<int>> expected{{1, 3}, {0}, {3}, {0, 2}};
    for (std::size_t k = 0; k < expected[static_cast<std::size_t>(me)].size(); ++k)
      EXPECT_EQ(from[k], expected[static_cast<std::size_t>(me)][k]);
    // The ring r -> r + 1, all its edges given by rank 0.
    const int sources[4] = {0, 1, 2, 3};
    const int degrees[4] = {1, 1, 1, 1};
    const int targets[4] = {1, 2, 3, 0};
    MPI_Comm ring;
    if (me == 0) {
      MPI_Dist_graph_create(MPI_COMM_WORLD, 4, sources, degrees, targets, MPI_UNWEIGHTED,
                            MPI_INFO_NULL, 0, &ring);
    } else {
      MPI_Dist_graph_create(MPI_COMM_WORLD, 0, nullptr, nullptr, nullptr, MPI_UNWEIGHTED,
                            MPI_INFO_NULL, 0, &ring);
    }
    int indegree = -1;
    int outdegree = -1;
    int weighted = -1;
    MPI_Dist_graph_neighbors_count(ring, &indegree, &outdegree, &weighted);
    EXPECT_EQ(indegree, 1);
    EXPECT_EQ(outdegree, 1);
    EXPECT_EQ(weighted, 0);
    int in_rank = -1;
    int out_rank = -1;
    MPI_Dist_graph_neighbors(ring, 1, &in_rank, MPI_UNWEIGHTED, 1, &out_rank, MPI_UNWEIGHTED);
    EXPECT_EQ(in_rank, (me + 3) % 4);
    EXPECT_EQ(out_rank, (me + 1) % 4);
    int got = -1;
    MPI_Neighbor_alltoall(&me, 1, MPI_INT, &got, 1, MPI_INT, ring);
    EXPECT_EQ(got, (me + 3) % 4);
    // The same ring, each rank giving its own neighbours, with weights.
    const int in_list[1] = {(me + 3) % 4};
    const int out_list[1] = {(me + 1) % 4};
    const int weights[1] = {7};
    MPI_Comm adjacent;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, in_list, weights, 1, out_list, weights,
                                   MPI_INFO_NULL, 0, &adjacent);
    int in_weight = 0;
    int out_weight = 0;
    MPI_Dist_graph_neighbors(adjacent, 1, &in_rank, &in_weight, 1, &out_rank, &out_weight);
    EXPECT_EQ(in_weight, 7);
    MPI_Dist_graph_neighbors_count(adjacent, &indegree, &outdegree, &weighted);
    EXPECT_EQ(weighted, 1);
    std::vector<int> counts{1};
    std::vector<int> displs{0};
    got = -1;
    MPI_Neighbor_alltoallv(&me, counts.data(), displs.data(), MPI_INT, &got, counts.data(),
                           displs.data(), MPI_INT, adjacent);
    EXPECT_EQ(got, (me + 3) % 4);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int c[2];
    EXPECT_EQ(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, c), MPI_ERR_TOPOLOGY);
    for (MPI_Comm* comm : {&graph, &ring, &adjacent}) MPI_Comm_free(comm);
    MPI_Finalize();
    ++ranks_done;
    return 0;
  });
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(ranks_done, 4);
}

}  // namespace
