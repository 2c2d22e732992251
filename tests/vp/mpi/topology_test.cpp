// Virtual topologies against MPI 3.1 chapter 7: Dims_create against MPICH's results and a
// brute-force search over every factorisation, Cartesian coordinates, shifts and sub-grids
// against coordinate arithmetic written out independently, the standard's example graphs, the
// distributed graph's order over a simulated exchange of edges, and the messages of bad
// arguments.
#include "topology.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <vector>

using namespace vela::mpi::detail;
using Class = TopologyError::Class;
using ::testing::ElementsAre;

namespace {

constexpr int kProcNull = -2;
constexpr int kUndefined = -32766;

// Runs `f`, which must throw a TopologyError of class `c` whose message is `message`.
void expect_error(const std::function<void()>& f, Class c, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const TopologyError& e) {
    EXPECT_EQ(e.mpi_class(), c) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
  }
}

std::vector<int> dims_of(int nnodes, std::vector<int> dims) {
  dims_create(nnodes, dims);
  return dims;
}

// ---- Dims_create ----

TEST(DimsCreate, GivesMpichResults) {
  EXPECT_THAT(dims_of(12, {0, 0}), ElementsAre(4, 3));
  EXPECT_THAT(dims_of(16, {0, 0, 0}), ElementsAre(4, 2, 2));
  EXPECT_THAT(dims_of(6, {0, 3, 0}), ElementsAre(2, 3, 1));
  EXPECT_THAT(dims_of(7, {0, 0}), ElementsAre(7, 1));
  EXPECT_THAT(dims_of(6, {0, 0}), ElementsAre(3, 2));  // the standard's first example
  EXPECT_THAT(dims_of(24, {0, 0, 0}), ElementsAre(4, 3, 2));
  EXPECT_THAT(dims_of(64, {0, 0, 0}), ElementsAre(4, 4, 4));
  EXPECT_THAT(dims_of(1024, {0, 0, 0}), ElementsAre(16, 8, 8));
  EXPECT_THAT(dims_of(578, {0, 0, 0}), ElementsAre(17, 17, 2));
  EXPECT_THAT(dims_of(1, {0, 0, 0}), ElementsAre(1, 1, 1));
  EXPECT_THAT(dims_of(60, {0, 0}), ElementsAre(10, 6));
  EXPECT_THAT(dims_of(8, {0, 2, 0}), ElementsAre(2, 2, 2));
  EXPECT_THAT(dims_of(12, {0, 0, 0, 0}), ElementsAre(3, 2, 2, 1));
}

TEST(DimsCreate, KeepsGivenEntriesAndLeavesFullOrEmptyDimsAlone) {
  EXPECT_THAT(dims_of(24, {2, 0, 3, 0}), ElementsAre(2, 2, 3, 2));
  EXPECT_THAT(dims_of(8, {2, 4}), ElementsAre(2, 4));
  EXPECT_THAT(dims_of(5, {0}), ElementsAre(5));
  EXPECT_TRUE(dims_of(9, {}).empty());
}

TEST(DimsCreate, BreaksTiesTowardsTheSmallerLargestDimension) {
  // {9,8,5} and {10,6,6} both spread 4.
  EXPECT_THAT(dims_of(360, {0, 0, 0}), ElementsAre(9, 8, 5));
}

// Every non-increasing factorisation of n into k entries, by exhaustive recursion.
void all_factorisations(int n, int k, int cap, std::vector<int>& prefix,
                        std::vector<std::vector<int>>& out) {
  if (k == 0) {
    if (n == 1) out.push_back(prefix);
    return;
  }
  for (int d = std::min(n, cap); d >= 1; --d) {
    if (n % d != 0) continue;
    prefix.push_back(d);
    all_factorisations(n / d, k - 1, d, prefix, out);
    prefix.pop_back();
  }
}

TEST(DimsCreate, AgreesWithBruteForce) {
  for (int n = 1; n <= 400; ++n) {
    for (int k = 1; k <= 5; ++k) {
      std::vector<std::vector<int>> candidates;
      std::vector<int> prefix;
      all_factorisations(n, k, n, prefix, candidates);
      const auto better = [](const std::vector<int>& a, const std::vector<int>& b) {
        const int sa = a.front() - a.back();
        const int sb = b.front() - b.back();
        return sa != sb ? sa < sb : a < b;
      };
      const std::vector<int> expected =
          *std::min_element(candidates.begin(), candidates.end(), better);
      EXPECT_EQ(dims_of(n, std::vector<int>(static_cast<std::size_t>(k), 0)), expected)
          << "n = " << n << ", k = " << k;
    }
  }
}

TEST(DimsCreate, HandlesLargeNodeCountsAndManyDimensions) {
  EXPECT_THAT(dims_of(2147483647, {0, 0}), ElementsAre(2147483647, 1));  // a prime
  EXPECT_EQ(dims_of(1 << 30, std::vector<int>(30, 0)), std::vector<int>(30, 2));
  std::vector<int> twenty_twos(25, 1);
  std::fill(twenty_twos.begin(), twenty_twos.begin() + 20, 2);
  EXPECT_EQ(dims_of(1 << 20, std::vector<int>(25, 0)), twenty_twos);
  for (int k : {2, 3, 4, 6, 8}) {
    const std::vector<int> d = dims_of(735134400, std::vector<int>(static_cast<std::size_t>(k), 0));
    long long product = 1;
    for (int x : d) product *= x;
    EXPECT_EQ(product, 735134400);
    EXPECT_TRUE(std::is_sorted(d.rbegin(), d.rend()));
  }
  EXPECT_THAT(dims_of(735134400, {0, 0}), ElementsAre(27200, 27027));
}

TEST(DimsCreate, RejectsBadArguments) {
  expect_error(
      [] {
        dims_of(10, {3, 0});
      },
      Class::dims,
      "MPI_Dims_create: nnodes = 10 is not a multiple of the product of the given dims "
      "(3)");
  expect_error(
      [] {
        dims_of(7, {0, 3, 0});
      },
      Class::dims,
      "MPI_Dims_create: nnodes = 7 is not a multiple of the product of the given dims "
      "(3)");
  expect_error(
      [] {
        dims_of(4, {0, 8});
      },
      Class::dims,
      "MPI_Dims_create: nnodes = 4 is not a multiple of the product of the given dims");
  expect_error(
      [] {
        dims_of(4, {0, -2});
      },
      Class::dims, "MPI_Dims_create: dims[1] = -2 is negative");
  expect_error([] { dims_of(-4, {0}); }, Class::arg, "MPI_Dims_create: nnodes = -4 is negative");
  expect_error(
      [] {
        dims_of(0, {0, 0});
      },
      Class::arg, "MPI_Dims_create: nnodes = 0 leaves no nodes to place");
  expect_error([] { check_count("MPI_Dims_create", "ndims", -1, Class::dims); }, Class::dims,
               "MPI_Dims_create: ndims = -1 is negative");
  EXPECT_NO_THROW(check_count("MPI_Graph_create", "nnodes", 0, Class::arg));
}

// ---- Cartesian ----

const std::vector<int> k342 = {3, 4, 2};

Cartesian grid_of(std::vector<int> dims, std::vector<int> periods) {
  return cartesian("MPI_Cart_create", dims, periods, 1000);
}

// Row-major coordinates of a 3x4x2 grid written out by hand.
std::vector<int> naive_coords(int r) {
  return {r / 8, (r / 2) % 4, r % 2};
}
int naive_rank(int a, int b, int c) {
  return a * 8 + b * 2 + c;
}

TEST(Cartesian, CreationChecksItsArguments) {
  const Cartesian g = cartesian("MPI_Cart_create", k342, std::vector<int>{5, 0, -1}, 24);
  EXPECT_THAT(g.periods, ElementsAre(1, 0, 1));
  EXPECT_EQ(g.size(), 24);
  EXPECT_EQ(g.ndims(), 3);
  EXPECT_EQ(grid_of({}, {}).size(), 1);
  expect_error(
      [] {
        cartesian("MPI_Cart_create", k342, std::vector<int>{0, 0, 0}, 23);
      },
      Class::arg, "MPI_Cart_create: the grid has more ranks than the communicator's 23");
  expect_error(
      [] {
        grid_of({3, 0}, {0, 0});
      },
      Class::dims, "MPI_Cart_create: dims[1] = 0 is not positive");
  expect_error(
      [] {
        cartesian("MPI_Cart_map", std::vector<int>{2, 2}, std::vector<int>{0}, 4);
      },
      Class::arg, "MPI_Cart_map: periods has 1 entries for 2 dimensions");
  // A product past INT_MAX is refused, not wrapped.
  expect_error(
      [] {
        grid_of({65536, 65536, 2}, {0, 0, 0});
      },
      Class::arg, "MPI_Cart_create: the grid has more ranks than the communicator's 1000");
}

TEST(Cartesian, CoordsAndRankRoundTripOnEveryRank) {
  const Cartesian g = grid_of(k342, {0, 0, 0});
  for (int r = 0; r < 24; ++r) {
    const std::vector<int> c = naive_coords(r);
    EXPECT_EQ(coords(g, r), c) << r;
    EXPECT_EQ(rank_of(g, c), r);
  }
  expect_error([&] { coords(g, 24); }, Class::rank,
               "MPI_Cart_coords: rank 24 is not in the grid of 24 ranks");
  expect_error(
      [&] {
        rank_of(g, std::vector<int>{0, 4, 0});
      },
      Class::rank, "MPI_Cart_rank: coords[1] = 4 is outside the non-periodic dimension of size 4");
  expect_error(
      [&] {
        rank_of(g, std::vector<int>{0, 0});
      },
      Class::arg, "MPI_Cart_rank: coords has 2 entries for 3 dimensions");
}

TEST(Cartesian, RankWrapsPeriodicCoordinates) {
  const Cartesian g = grid_of(k342, {1, 0, 1});
  EXPECT_EQ(rank_of(g, std::vector<int>{-1, 2, 3}), naive_rank(2, 2, 1));
  EXPECT_EQ(rank_of(g, std::vector<int>{7, 0, -4}), naive_rank(1, 0, 0));
  EXPECT_THROW(rank_of(g, std::vector<int>{0, -1, 0}), TopologyError);
}

TEST(Cartesian, ShiftsOnARing) {
  const Cartesian ring = grid_of({5}, {1});
  EXPECT_EQ(shift(ring, 0, 0, 1, kProcNull), std::make_pair(4, 1));
  EXPECT_EQ(shift(ring, 0, 0, -1, kProcNull), std::make_pair(1, 4));
  EXPECT_EQ(shift(ring, 0, 0, 7, kProcNull), std::make_pair(3, 2));  // disp > dimension
  EXPECT_EQ(shift(ring, 2, 0, -13, kProcNull), std::make_pair(0, 4));
  EXPECT_EQ(shift(ring, 3, 0, 0, kProcNull), std::make_pair(3, 3));
}

TEST(Cartesian, ShiftsOnALineStopAtTheBorders) {
  const Cartesian line = grid_of({5}, {0});
  EXPECT_EQ(shift(line, 0, 0, 1, kProcNull), std::make_pair(kProcNull, 1));
  EXPECT_EQ(shift(line, 4, 0, 1, kProcNull), std::make_pair(3, kProcNull));
  EXPECT_EQ(shift(line, 1, 0, -2, kProcNull), std::make_pair(3, kProcNull));
  EXPECT_EQ(shift(line, 2, 0, 5, kProcNull), std::make_pair(kProcNull, kProcNull));
  EXPECT_EQ(shift(line, 2, 0, 0, kProcNull), std::make_pair(2, 2));
}

// The rank at the coordinates of `r` moved by `step` along `d`, by hand.
int naive_step(int r, int d, int step, const std::vector<int>& periods) {
  std::vector<int> c = naive_coords(r);
  int x = c[static_cast<std::size_t>(d)] + step;
  const int n = k342[static_cast<std::size_t>(d)];
  if (periods[static_cast<std::size_t>(d)] != 0) {
    x = ((x % n) + n) % n;
  } else if (x < 0 || x >= n) {
    return kProcNull;
  }
  c[static_cast<std::size_t>(d)] = x;
  return naive_rank(c[0], c[1], c[2]);
}

TEST(Cartesian, ShiftsAgreeWithCoordinateArithmeticOnEveryRank) {
  for (const std::vector<int>& periods :
       {std::vector<int>{0, 0, 0}, std::vector<int>{1, 0, 1}, std::vector<int>{1, 1, 1}}) {
    const Cartesian g = grid_of(k342, periods);
    for (int r = 0; r < 24; ++r) {
      for (int d = 0; d < 3; ++d) {
        for (int disp = -9; disp <= 9; ++disp) {
          const std::pair<int, int> expected{naive_step(r, d, -disp, periods),
                                             naive_step(r, d, disp, periods)};
          EXPECT_EQ(shift(g, r, d, disp, kProcNull), expected)
              << "rank " << r << " direction " << d << " disp " << disp;
        }
      }
    }
  }
}

TEST(Cartesian, ShiftRejectsBadDirectionsAndRanks) {
  const Cartesian g = grid_of(k342, {0, 0, 0});
  expect_error([&] { shift(g, 0, 3, 1, kProcNull); }, Class::dims,
               "MPI_Cart_shift: direction = 3 is not a dimension of the 3-dimensional grid");
  expect_error([&] { shift(g, -1, 0, 1, kProcNull); }, Class::rank,
               "MPI_Cart_shift: rank -1 is not in the grid of 24 ranks");
  // Extreme displacements neither overflow nor wrap on a non-periodic dimension.
  EXPECT_EQ(shift(g, 0, 1, 2147483647, kProcNull), std::make_pair(kProcNull, kProcNull));
  EXPECT_EQ(shift(grid_of({5}, {1}), 0, 0, -2147483647 - 1, kProcNull),
            std::make_pair(3, 2));  // 2^31 = 3 (mod 5)
}

TEST(Cartesian, SubGridsAgreeWithBruteForce) {
  const Cartesian g = grid_of(k342, {1, 0, 0});
  const std::vector<int> remain = {1, 0, 1};
  // The sub-grids: ranks sharing the dropped coordinate, each listed in rank order.
  std::map<int, std::vector<int>> members;
  for (int r = 0; r < 24; ++r) members[naive_coords(r)[1]].push_back(r);
  std::map<int, int> colour_of_group;
  std::set<int> colours;
  for (int r = 0; r < 24; ++r) {
    const SubGrid s = sub(g, r, remain);
    const int group = naive_coords(r)[1];
    const std::vector<int>& list = members[group];
    EXPECT_EQ(s.key, std::find(list.begin(), list.end(), r) - list.begin()) << r;
    if (colour_of_group.emplace(group, s.color).second) colours.insert(s.color);
    EXPECT_EQ(colour_of_group[group], s.color) << r;
    EXPECT_THAT(s.grid.dims, ElementsAre(3, 2));
    EXPECT_THAT(s.grid.periods, ElementsAre(1, 0));
    EXPECT_EQ(coords(s.grid, s.key), (std::vector<int>{naive_coords(r)[0], naive_coords(r)[2]}));
  }
  EXPECT_EQ(colours.size(), 4u);  // one colour per sub-grid
}

TEST(Cartesian, SubKeepingNothingGivesOneRankGrids) {
  const Cartesian g = grid_of(k342, {0, 0, 0});
  for (int r = 0; r < 24; ++r) {
    const SubGrid s = sub(g, r, std::vector<int>{0, 0, 0});
    EXPECT_EQ(s.color, r);
    EXPECT_EQ(s.key, 0);
    EXPECT_EQ(s.grid.size(), 1);
  }
  const SubGrid all = sub(g, 13, std::vector<int>{1, 1, 1});
  EXPECT_EQ(all.color, 0);
  EXPECT_EQ(all.key, 13);
  expect_error([&] { sub(g, 0, std::vector<int>{1}); }, Class::arg,
               "MPI_Cart_sub: remain_dims has 1 entries for 3 dimensions");
}

TEST(Cartesian, NeighboursAreMinusThenPlusPerDimension) {
  const Cartesian g = grid_of({3, 4}, {0, 1});
  EXPECT_THAT(cart_neighbors(g, 0, kProcNull), ElementsAre(kProcNull, 4, 3, 1));
  EXPECT_THAT(cart_neighbors(g, 11, kProcNull), ElementsAre(7, kProcNull, 10, 8));
  EXPECT_THAT(cart_neighbors(g, 5, kProcNull), ElementsAre(1, 9, 4, 6));
  EXPECT_THAT(cart_neighbors(grid_of({2}, {1}), 0, kProcNull), ElementsAre(1, 1));
  EXPECT_THAT(cart_neighbors(grid_of({1}, {1}), 0, kProcNull), ElementsAre(0, 0));
  EXPECT_THAT(cart_neighbors(grid_of({1}, {0}), 0, kProcNull), ElementsAre(kProcNull, kProcNull));
  EXPECT_TRUE(cart_neighbors(grid_of({}, {}), 0, kProcNull).empty());
  const Neighborhood n = neighborhood(g, 11, kProcNull);
  EXPECT_THAT(n.sources, ElementsAre(7, kProcNull, 10, 8));
  EXPECT_EQ(n.destinations, n.sources);
}

TEST(Cartesian, MapKeepsRanksInsideTheGrid) {
  const Cartesian g = grid_of({2, 3}, {0, 0});
  EXPECT_EQ(cart_map(g, 5, kUndefined), 5);
  EXPECT_EQ(cart_map(g, 6, kUndefined), kUndefined);
}

TEST(Cartesian, PositionsFoldExtraDimensionsIntoTheThird) {
  const Cartesian g3 = grid_of(k342, {0, 0, 0});
  for (int r = 0; r < 24; ++r) {
    const std::vector<int> c = naive_coords(r);
    EXPECT_EQ(position(g3, r), (std::array<double, 3>{1.0 * c[0], 1.0 * c[1], 1.0 * c[2]}));
  }
  EXPECT_EQ(position(grid_of({6}, {0}), 4), (std::array<double, 3>{4, 0, 0}));
  EXPECT_EQ(position(grid_of({2, 3}, {0, 0}), 5), (std::array<double, 3>{1, 2, 0}));
  EXPECT_EQ(position(grid_of({}, {}), 0), (std::array<double, 3>{0, 0, 0}));
  const Cartesian g4 = grid_of({2, 3, 4, 5}, {0, 0, 0, 0});
  std::set<std::array<double, 3>> seen;
  for (int r = 0; r < g4.size(); ++r) {
    const std::vector<int> c = coords(g4, r);
    EXPECT_EQ(position(g4, r), (std::array<double, 3>{1.0 * c[0], 1.0 * c[1], c[2] * 5.0 + c[3]}));
    seen.insert(position(g4, r));
  }
  EXPECT_EQ(seen.size(), 120u);
}

// ---- Graph ----

TEST(Graph, TheStandardsExample) {
  // MPI 3.1 §7.5.3: 0 -> 1,3; 1 -> 0; 2 -> 3; 3 -> 0,2.
  const Graph g = graph("MPI_Graph_create", std::vector<int>{2, 3, 4, 6},
                        std::vector<int>{1, 3, 0, 3, 0, 2}, 4);
  EXPECT_EQ(g.nnodes(), 4);
  EXPECT_EQ(g.nedges(), 6);
  EXPECT_THAT(neighbors(g, 0), ElementsAre(1, 3));
  EXPECT_THAT(neighbors(g, 1), ElementsAre(0));
  EXPECT_THAT(neighbors(g, 2), ElementsAre(3));
  EXPECT_THAT(neighbors(g, 3), ElementsAre(0, 2));
  const Neighborhood n = neighborhood(g, 3);
  EXPECT_THAT(n.sources, ElementsAre(0, 2));
  EXPECT_THAT(n.destinations, ElementsAre(0, 2));
  EXPECT_EQ(graph_map(g, 3, kUndefined), 3);
  EXPECT_EQ(graph_map(g, 4, kUndefined), kUndefined);
}

TEST(Graph, TheShuffleExchangeExampleWithSelfLoopsAndRepeatedEdges) {
  // MPI 3.1 §7.5.5: 8 nodes a1a2a3, each with neighbours exchange (flip a3), shuffle (rotate
  // left), unshuffle (rotate right); node 0's shuffle and unshuffle are 0 itself.
  std::vector<int> index;
  std::vector<int> edges;
  for (int a = 0; a < 8; ++a) {
    edges.push_back(a ^ 1);
    edges.push_back(((a << 1) | (a >> 2)) & 7);
    edges.push_back(((a >> 1) | (a << 2)) & 7);
    index.push_back(static_cast<int>(edges.size()));
  }
  const Graph g = graph("MPI_Graph_create", index, edges, 8);
  EXPECT_THAT(neighbors(g, 0), ElementsAre(1, 0, 0));
  EXPECT_THAT(neighbors(g, 1), ElementsAre(0, 2, 4));
  EXPECT_THAT(neighbors(g, 3), ElementsAre(2, 6, 5));
  EXPECT_THAT(neighbors(g, 6), ElementsAre(7, 5, 3));
  EXPECT_THAT(neighbors(g, 7), ElementsAre(6, 7, 7));
}

TEST(Graph, CreationChecksItsArguments) {
  const char* call = "MPI_Graph_create";
  expect_error(
      [&] {
        graph(call, std::vector<int>{2, 4, 3}, std::vector<int>{0, 0, 0, 0}, 4);
      },
      Class::arg, "MPI_Graph_create: index[2] = 3 is less than index[1] = 4");
  expect_error([&] { graph(call, std::vector<int>{-1}, {}, 4); }, Class::arg,
               "MPI_Graph_create: index[0] = -1 is negative");
  expect_error(
      [&] {
        graph(call, std::vector<int>{1, 2}, std::vector<int>{1, 7}, 4);
      },
      Class::rank, "MPI_Graph_create: edges[1] = 7 is not a node of the graph of 2 nodes");
  expect_error(
      [&] {
        graph(call, std::vector<int>{1, 2}, std::vector<int>{1}, 4);
      },
      Class::arg, "MPI_Graph_create: edges has 1 entries where index says 2");
  expect_error(
      [&] {
        graph(call, std::vector<int>{0, 0, 0}, {}, 2);
      },
      Class::arg, "MPI_Graph_create: nnodes = 3 is more than the communicator's 2 ranks");
  EXPECT_EQ(edge_count(call, std::vector<int>{1, 1, 5}), 5u);
  EXPECT_EQ(edge_count(call, {}), 0u);
  EXPECT_EQ(graph(call, {}, {}, 3).nnodes(), 0);  // the empty graph: MPI_COMM_NULL everywhere
  const Graph g = graph(call, std::vector<int>{0, 1}, std::vector<int>{0}, 2);
  EXPECT_TRUE(neighbors(g, 0).empty());
  expect_error([&] { neighbors(g, 2); }, Class::rank,
               "MPI_Graph_neighbors: rank 2 is not a node of the graph of 2 nodes");
}

// ---- Distributed graph ----

TEST(DistGraph, AdjacentKeepsWhatItIsGiven) {
  const char* call = "MPI_Dist_graph_create_adjacent";
  const DistGraph g =
      dist_graph_adjacent(call, std::vector<int>{2, 0, 2}, std::vector<int>{5, 6, 7},
                          std::vector<int>{1}, std::vector<int>{0}, true, 3);
  EXPECT_THAT(g.sources, ElementsAre(2, 0, 2));
  EXPECT_THAT(g.source_weights, ElementsAre(5, 6, 7));
  EXPECT_THAT(g.destinations, ElementsAre(1));
  EXPECT_THAT(g.destination_weights, ElementsAre(0));
  const Neighborhood n = neighborhood(g);
  EXPECT_THAT(n.sources, ElementsAre(2, 0, 2));
  EXPECT_THAT(n.destinations, ElementsAre(1));
  const DistGraph u = dist_graph_adjacent(call, std::vector<int>{1}, {}, {}, {}, false, 3);
  EXPECT_FALSE(u.weighted);
  EXPECT_TRUE(u.source_weights.empty());
  expect_error(
      [&] {
        dist_graph_adjacent(call, std::vector<int>{0, 3}, {}, {}, {}, false, 3);
      },
      Class::rank,
      "MPI_Dist_graph_create_adjacent: sources[1] = 3 is not a rank of the communicator of "
      "size 3");
  expect_error(
      [&] {
        dist_graph_adjacent(call, {}, {}, std::vector<int>{1}, std::vector<int>{-1}, true, 3);
      },
      Class::arg, "MPI_Dist_graph_create_adjacent: destweights[0] = -1 is negative");
}

// The arguments rank `creator` passes to MPI_Dist_graph_create.
struct Created {
  std::vector<int> sources, degrees, destinations;
};

TEST(DistGraph, CreateOrdersByPositionThenCreatorWhateverTheArrivalOrder) {
  const std::vector<Created> args = {
      {{0, 1}, {2, 1}, {1, 2, 2}},  // rank 0: 0->1, 0->2, 1->2
      {{2, 1}, {2, 1}, {0, 1, 1}},  // rank 1: 2->0, 2->1, 1->1 (a self-loop)
      {{1}, {1}, {0}},              // rank 2: 1->0
  };
  std::vector<DistEdge> all;
  for (int c = 0; c < 3; ++c) {
    const Created& a = args[static_cast<std::size_t>(c)];
    std::vector<int> weights;
    for (std::size_t p = 0; p < a.destinations.size(); ++p) {
      weights.push_back(10 * c + static_cast<int>(p));
    }
    const std::vector<DistEdge> e = dist_graph_edges("MPI_Dist_graph_create", c, a.sources,
                                                     a.degrees, a.destinations, weights, true, 3);
    all.insert(all.end(), e.begin(), e.end());
  }
  ASSERT_EQ(all.size(), 7u);
  std::mt19937 random(7);
  std::size_t out_edges = 0;
  std::map<int, DistGraph> local;
  for (int r = 0; r < 3; ++r) {
    // What the exchange brings rank r: its edges, shuffled, the ones at both ends twice.
    std::vector<DistEdge> learned;
    for (const DistEdge& e : all) {
      if (e.source == r) learned.push_back(e);
      if (e.destination == r) learned.push_back(e);
    }
    std::shuffle(learned.begin(), learned.end(), random);
    local[r] = dist_graph_local(r, learned, true);
    out_edges += local[r].destinations.size();
    EXPECT_EQ(
        dist_graph_local(r, std::vector<DistEdge>(learned.rbegin(), learned.rend()), true).sources,
        local[r].sources);
  }
  EXPECT_EQ(out_edges, all.size());
  // Rank 1's edges by (position, creator): (0,0) 0->1, (0,2) 1->0, (1,1) 2->1, (2,0) 1->2,
  // (2,1) 1->1.
  EXPECT_THAT(local[1].sources, ElementsAre(0, 2, 1));
  EXPECT_THAT(local[1].source_weights, ElementsAre(0, 11, 12));
  EXPECT_THAT(local[1].destinations, ElementsAre(0, 2, 1));
  EXPECT_THAT(local[1].destination_weights, ElementsAre(20, 2, 12));
  // Rank 0: (0,0) 0->1, (0,1) 2->0, (0,2) 1->0, (1,0) 0->2.
  EXPECT_THAT(local[0].sources, ElementsAre(2, 1));
  EXPECT_THAT(local[0].destinations, ElementsAre(1, 2));
  // Rank 2: (0,1) 2->0, (1,0) 0->2, (1,1) 2->1, (2,0) 1->2.
  EXPECT_THAT(local[2].sources, ElementsAre(0, 1));
  EXPECT_THAT(local[2].destinations, ElementsAre(0, 1));
  const DistGraph unweighted = dist_graph_local(1, all, false);
  EXPECT_THAT(unweighted.sources, ElementsAre(0, 2, 1));
  EXPECT_TRUE(unweighted.source_weights.empty());
}

TEST(DistGraph, CreateChecksItsArguments) {
  const char* call = "MPI_Dist_graph_create";
  const std::vector<int> one = {1};
  expect_error(
      [&] {
        dist_graph_edges(call, 0, std::vector<int>{0}, one, std::vector<int>{5}, {}, false, 3);
      },
      Class::rank,
      "MPI_Dist_graph_create: destinations[0] = 5 is not a rank of the communicator of size 3");
  expect_error(
      [&] {
        dist_graph_edges(call, 0, std::vector<int>{0}, std::vector<int>{-1}, {}, {}, false, 3);
      },
      Class::arg, "MPI_Dist_graph_create: degrees[0] = -1 is negative");
  expect_error(
      [&] {
        dist_graph_edges(call, 0, std::vector<int>{0}, one, std::vector<int>{1, 2}, {}, false, 3);
      },
      Class::arg, "MPI_Dist_graph_create: destinations has 2 entries for degrees adding up to 1");
  expect_error(
      [&] {
        dist_graph_edges(call, 0, std::vector<int>{0}, one, one, std::vector<int>{}, true, 3);
      },
      Class::arg, "MPI_Dist_graph_create: weights has 0 entries for 1 edges");
  expect_error([&] { dist_graph_edges(call, 0, std::vector<int>{0}, {}, {}, {}, false, 3); },
               Class::arg, "MPI_Dist_graph_create: degrees has 0 entries for 1 sources");
  const std::vector<DistEdge> e =
      dist_graph_edges(call, 4, std::vector<int>{2}, one, std::vector<int>{0}, {}, false, 3);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].weight, 1);
  EXPECT_EQ(e[0].creator, 4);
  EXPECT_EQ(total_degree(call, std::vector<int>{3, 0, 4}), 7u);
}

}  // namespace
