// Virtual topologies (MPI 3.1 chapter 7) as pure functions, with no handles and no
// communication: a Cartesian, Graph or DistGraph is what a topology attached to a communicator
// stands for. The MPI calls validate their arguments here, keep the value with the communicator,
// and ask it for coordinates, ranks, shifts, sub-grids and neighbour lists. A bad argument is a
// TopologyError naming the call and the argument.
//
// Conventions (the standard's): Cartesian ranks are row-major, the last dimension varying
// fastest; a shift off a non-periodic border gives the caller's MPI_PROC_NULL; graph nodes are
// ranks 0..nnodes-1 of the new communicator, self-loops and repeated edges allowed (§7.5.3's
// shuffle-exchange example has both). Neighbour lists for the neighbourhood collectives (§7.6)
// are: Cartesian, per dimension the neighbour at -1 then at +1; graph, MPI_Graph_neighbors'
// order; distributed graph, the sources and destinations as stored.
//
// Costs: every query is O(ndims) or O(degree); dims_create factors nnodes (O(sqrt nnodes)) and
// searches its divisors; dist_graph_local sorts what a rank learned, O(e log e).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace vela::mpi::detail {

// A bad argument: what() is a sentence naming the MPI call and the argument ("MPI_Dims_create:
// dims[1] = -2 is negative"); mpi_class says which MPI error class fits.
class TopologyError : public std::runtime_error {
 public:
  enum class Class : std::uint8_t { dims, arg, rank, topology, count };
  TopologyError(Class mpi_class, const std::string& what)
      : std::runtime_error(what), mpi_class_(mpi_class) {}
  Class mpi_class() const { return mpi_class_; }

 private:
  Class mpi_class_;
};

// Throws TopologyError(mpi_class) unless n >= 0: for an ndims (class dims), nnodes, degree or n
// argument (class arg) before the layer makes a span of that length.
void check_count(const char* call, const char* name, int n, TopologyError::Class mpi_class);

// ---- Cartesian topologies (§7.5.1, §7.5.2, §7.5.5, §7.5.6) ----

// MPI_Dims_create: fills the zero entries of `dims` so that the product of all entries is
// `nnodes`, leaving the positive ones as given. The filled entries are non-increasing and as
// close to each other as possible: of all factorisations, the one with the smallest spread
// (largest - smallest), the measure MPICH minimises (12, {0,0} -> {4,3}; 16, {0,0,0} ->
// {4,2,2}); ties, which the standard leaves open, go to the one whose entries, largest first,
// are lexicographically smallest. Errors (class dims): a negative entry; nnodes not a multiple
// of the given entries' product (a multiple is enough when no entry is zero, as the standard
// words it and as MPICH does). nnodes < 0, or 0 with entries to fill: class arg. An empty `dims`
// is left as it is.
void dims_create(int nnodes, std::span<int> dims);

struct Cartesian {
  std::vector<int> dims;     // each >= 1
  std::vector<int> periods;  // 0 or 1 per dimension
  int ndims() const { return static_cast<int>(dims.size()); }
  // The number of ranks in the grid: the product of dims (1 for zero dimensions).
  int size() const;
};

// MPI_Cart_create's checks (and MPI_Cart_map's): dims positive (class dims), as many periods
// as dims, a grid of at most `comm_size` ranks (class arg). Nonzero periods become 1. Ranks
// from size() on get MPI_COMM_NULL: the caller's business.
Cartesian cartesian(const char* call, std::span<const int> dims, std::span<const int> periods,
                    int comm_size);

// MPI_Cart_coords: the coordinates of `rank` (class rank unless 0 <= rank < size()).
std::vector<int> coords(const Cartesian& grid, int rank);
// MPI_Cart_rank: the rank at `coords`, wrapped in periodic dimensions. A coordinate outside a
// non-periodic dimension: class rank; the wrong number of coordinates: class arg.
int rank_of(const Cartesian& grid, std::span<const int> coords);

// MPI_Cart_shift: (source, destination) of a shift by `disp` along `direction` as seen by
// `rank`: the ranks at coordinate c - disp and c + disp, wrapped in a periodic dimension,
// `proc_null` past a non-periodic border. A direction outside [0, ndims): class dims.
std::pair<int, int> shift(const Cartesian& grid, int rank, int direction, int disp, int proc_null);

// MPI_Cart_sub for `rank`: the sub-grid it lands in, as an MPI_Comm_split would make it. `color`
// numbers the sub-grids (row-major over the dropped dimensions), `key` is the rank within the
// sub-grid (row-major over the kept ones), `grid` is the sub-grid's topology. Keeping no
// dimension gives a zero-dimensional grid of one rank.
struct SubGrid {
  int color = 0;
  int key = 0;
  Cartesian grid;
};
SubGrid sub(const Cartesian& grid, int rank, std::span<const int> remain_dims);

// MPI_Cart_map: `rank` keeps its rank if the grid holds it, else gets `undefined`.
int cart_map(const Cartesian& grid, int rank, int undefined);

// The neighbours of `rank` for the neighbourhood collectives: 2 per dimension, the source then
// the destination of a shift by 1 (the neighbour at -1, then at +1), `proc_null` at
// non-periodic borders. Periodic dimensions of size 1 or 2 list a rank twice, as the standard
// says they must.
std::vector<int> cart_neighbors(const Cartesian& grid, int rank, int proc_null);

// Where `rank` lies, for Vela's geometric load balancers: its first three coordinates as
// doubles, 0 for dimensions the grid lacks. A grid of more than three dimensions folds
// dimensions 2, 3, ... into the third coordinate by their row-major index (coordinate 2 times
// the product of the later dimensions plus ...), so that ranks close in the last dimensions stay
// close and distinct ranks get distinct points.
std::array<double, 3> position(const Cartesian& grid, int rank);

// ---- Graph topologies (§7.5.3, §7.5.5) ----

struct Graph {
  std::vector<int> index;  // MPI_Graph_create's: index[i] = total degree of nodes 0..i
  std::vector<int> edges;  // the neighbours of node 0, then of node 1, ...
  int nnodes() const { return static_cast<int>(index.size()); }
  int nedges() const { return static_cast<int>(edges.size()); }
};

// The number of edges an MPI_Graph_create index array describes (its last entry, 0 when it is
// empty), after checking it is non-negative and non-decreasing (class arg).
std::size_t edge_count(const char* call, std::span<const int> index);

// MPI_Graph_create's checks (and MPI_Graph_map's): `index` as edge_count checks it, one node per
// entry, at most `comm_size` nodes (class arg); as many edges as index says (class arg), each a
// node of the graph (class rank).
Graph graph(const char* call, std::span<const int> index, std::span<const int> edges,
            int comm_size);

// MPI_Graph_neighbors (and the neighbourhood collectives' list): the edges of `rank` in order;
// its size is MPI_Graph_neighbors_count. Class rank unless 0 <= rank < nnodes.
std::vector<int> neighbors(const Graph& g, int rank);

// MPI_Graph_map: `rank` keeps its rank if the graph holds it, else gets `undefined`.
int graph_map(const Graph& g, int rank, int undefined);

// ---- Distributed graph topologies (§7.5.4) ----

// One rank's view of a distributed graph: its in-neighbours and out-neighbours with their
// weights (empty when the graph is unweighted).
struct DistGraph {
  std::vector<int> sources;
  std::vector<int> source_weights;
  std::vector<int> destinations;
  std::vector<int> destination_weights;
  bool weighted = false;
};

// MPI_Dist_graph_create_adjacent's checks: every source and destination a rank of the
// communicator (class rank), weights non-negative and one per neighbour when `weighted` (class
// arg). An unweighted graph's weight spans are ignored.
DistGraph dist_graph_adjacent(const char* call, std::span<const int> sources,
                              std::span<const int> source_weights,
                              std::span<const int> destinations,
                              std::span<const int> destination_weights, bool weighted,
                              int comm_size);

// An edge of MPI_Dist_graph_create, with where it came from: the rank that passed it (`creator`)
// and its place in that rank's destinations array (`position`). These two name the edge: a
// repeated edge is two edges with two positions.
struct DistEdge {
  int source = 0;
  int destination = 0;
  int weight = 1;
  int creator = 0;
  int position = 0;
};

// The total of MPI_Dist_graph_create's degrees, the length of its destinations array, after
// checking each degree is non-negative (class arg).
std::size_t total_degree(const char* call, std::span<const int> degrees);

// MPI_Dist_graph_create's checks for the arguments of rank `creator`, and its edges in order:
// the ranks in sources and destinations must be ranks of the communicator (class rank), as many
// destinations (and, when weighted, non-negative weights) as the degrees add up to (class arg).
// Unweighted edges get weight 1.
std::vector<DistEdge> dist_graph_edges(const char* call, int creator, std::span<const int> sources,
                                       std::span<const int> degrees,
                                       std::span<const int> destinations,
                                       std::span<const int> weights, bool weighted, int comm_size);

// What rank `rank` keeps of MPI_Dist_graph_create: given every edge it learned (each edge of
// which it is the source or the destination, in any order, an edge learned twice counted once),
// its in-neighbours and out-neighbours ordered by the edge's position in its creator's list,
// ties by creator. The standard leaves this order to the implementation; this one is the same
// on every call and every process.
DistGraph dist_graph_local(int rank, std::span<const DistEdge> learned, bool weighted);

// ---- The neighbourhood collectives' lists (§7.6) ----

struct Neighborhood {
  std::vector<int> sources;       // received from, in the receive buffer's order
  std::vector<int> destinations;  // sent to, in the send buffer's order
};
Neighborhood neighborhood(const Cartesian& grid, int rank, int proc_null);
Neighborhood neighborhood(const Graph& g, int rank);
Neighborhood neighborhood(const DistGraph& g);

}  // namespace vela::mpi::detail
