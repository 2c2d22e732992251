// MPI's virtual topologies (the standard's chapter 7): Cartesian, graph and distributed graph
// communicators on the pure functions of topology.cpp, and the neighbourhood collectives.
//
// A topology is kept in its communicator (Communicator::topology, in the rank's heap), so it
// moves with the rank and is copied by MPI_Comm_dup. MPI_Cart_create and MPI_Graph_create keep
// every rank's number (`reorder` is allowed to, and Vela's balancer places the ranks anyway):
// the new communicator is the first ranks of the old one. A Cartesian grid of every rank in
// the world's order becomes the ranks' coordinates for the geometric strategies (hilbert,
// rec-bisect-bf, ...), so a program that declares its grid is balanced with it.
// MPI_Dist_graph_create sends each edge to its two ends (one MPI_Alltoall of counts, one
// MPI_Alltoallv of edges).
//
// The neighbourhood collectives send block i to destination i and receive block j from source
// j, each block a run of bytes on the communicator's collective channel; on a Cartesian
// topology the messages of each direction carry their own number, so that on a periodic
// dimension of 1 or 2 ranks (where both neighbours are one rank) each block still lands in its
// place. O(neighbours) messages per rank.
#include <algorithm>
#include <array>
#include <cstring>

#include "derived_types.hpp"
#include "internal.hpp"
#include "topology.hpp"

namespace vela::mpi::detail {
namespace {

int class_of(TopologyError::Class c) {
  switch (c) {
    case TopologyError::Class::dims:
      return MPI_ERR_DIMS;
    case TopologyError::Class::arg:
      return MPI_ERR_ARG;
    case TopologyError::Class::rank:
      return MPI_ERR_RANK;
    case TopologyError::Class::topology:
      return MPI_ERR_TOPOLOGY;
    case TopologyError::Class::count:
      return MPI_ERR_COUNT;
  }
  return MPI_ERR_OTHER;
}

// Runs `f`, a call into topology.cpp, turning its TopologyError into the MPI error of its class.
template <class F>
auto checked(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const TopologyError& e) {
    throw MpiError(class_of(e.mpi_class()), e.what());
  }
}

template <class T>
std::span<const T> span_of(const T* data, int n) {
  return {data, static_cast<std::size_t>(n > 0 ? n : 0)};
}

void check_array(const char* call, int n, const void* array, const char* what) {
  if (n > 0) check_out(call, array, what);
}

const Topology& topology_of(const char* call, const Communicator& c, Topology::Kind kind,
                            const char* kind_name) {
  if (c.topology.kind != kind) {
    fail(call, MPI_ERR_TOPOLOGY, std::string("comm has no ") + kind_name + " topology");
  }
  return c.topology;
}

const Cartesian& cartesian_of(const char* call, const Communicator& c) {
  return topology_of(call, c, Topology::Kind::cartesian, "Cartesian").cartesian;
}

const Graph& graph_of(const char* call, const Communicator& c) {
  return topology_of(call, c, Topology::Kind::graph, "graph").graph;
}

// Gives the new communicator (if this rank has one) its topology.
void attach(Objects& objects, MPI_Comm comm, Topology topology) {
  if (comm == MPI_COMM_NULL) return;
  Communicator& c = comm_of("", objects, comm);
  const InRankHeap heap;
  c.topology = std::move(topology);
}

// The first `size` ranks of `c`.
Group first_ranks(const Communicator& c, int size) {
  std::vector<std::int32_t> ranks;
  for (int i = 0; i < size; ++i) ranks.push_back(c.group.rank_of(i));
  return Group::listed(std::move(ranks));
}

// A block of a neighbourhood collective: `count` elements of `type` at `address`.
struct Block {
  const void* address;
  std::size_t count;
  const Datatype* type;
};

// Sends block i to destination i and receives block j from source j (MPI_PROC_NULL: nothing).
void neighbour_exchange(const char* call, Communicator& c, const Neighborhood& n,
                        const std::vector<Block>& sends, const std::vector<Block>& receives) {
  const vp::Members members = c.members();
  const bool cartesian = c.topology.kind == Topology::Kind::cartesian;
  // One message number per direction on a Cartesian topology, one for all otherwise.
  const std::size_t lanes = cartesian ? n.destinations.size() : 1;
  std::vector<vp::Collective> lane;
  lane.reserve(lanes);
  for (std::size_t k = 0; k < lanes; ++k) lane.emplace_back(members, call);
  for (std::size_t i = 0; i < n.destinations.size(); ++i) {
    if (n.destinations[i] == MPI_PROC_NULL) continue;
    const Block& b = sends[i];
    std::vector<std::byte> scratch;
    const void* data = gathered(b.address, b.count, *b.type, scratch);
    lane[cartesian ? i : 0].put(data, b.count * b.type->size, n.destinations[i]);
  }
  for (std::size_t j = 0; j < n.sources.size(); ++j) {
    if (n.sources[j] == MPI_PROC_NULL) continue;
    const Block& b = receives[j];
    std::vector<std::byte> scratch;
    void* data = receiving(const_cast<void*>(b.address), b.count, *b.type, scratch);
    // From the neighbour at -1 comes what it sent in direction +1, and the other way round.
    const std::size_t from_lane = cartesian ? (j ^ 1) : 0;
    const std::size_t bytes = lane[from_lane].get(data, b.count * b.type->size, n.sources[j]);
    scattered(scratch, bytes, const_cast<void*>(b.address), b.count, *b.type);
  }
}

template <class T>
const T* offset(const T* base, std::intptr_t bytes) {
  return reinterpret_cast<const T*>(reinterpret_cast<std::uintptr_t>(base) +
                                    static_cast<std::uintptr_t>(bytes));
}

// MPI_Neighbor_allgather and MPI_Neighbor_alltoall: the same block to every destination, or
// block i to destination i; block j of the receive buffer from source j.
int neighbour_blocks(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                     void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     bool all_blocks) {
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    const Neighborhood n = neighborhood_of(call, c);
    const Datatype& stype = datatype_of(call, sendtype, "sendtype");
    const Datatype& rtype = datatype_of(call, recvtype, "recvtype");
    const std::size_t scount = count_of(call, sendcount, "sendcount");
    const std::size_t rcount = count_of(call, recvcount, "recvcount");
    std::vector<Block> sends;
    for (std::size_t i = 0; i < n.destinations.size(); ++i) {
      const auto at = all_blocks ? static_cast<std::intptr_t>(i * scount) * stype.extent : 0;
      sends.push_back({offset(sendbuf, at), scount, &stype});
    }
    std::vector<Block> receives;
    for (std::size_t j = 0; j < n.sources.size(); ++j) {
      receives.push_back({offset(static_cast<const void*>(recvbuf),
                                 static_cast<std::intptr_t>(j * rcount) * rtype.extent),
                          rcount, &rtype});
    }
    neighbour_exchange(call, c, n, sends, receives);
  });
}

}  // namespace

// The neighbourhood of the calling rank in `c`'s topology.
Neighborhood neighborhood_of(const char* call, const Communicator& c) {
  switch (c.topology.kind) {
    case Topology::Kind::cartesian:
      return neighborhood(c.topology.cartesian, c.rank, MPI_PROC_NULL);
    case Topology::Kind::graph:
      return checked([&] { return neighborhood(c.topology.graph, c.rank); });
    case Topology::Kind::dist_graph:
      return neighborhood(c.topology.dist_graph);
    case Topology::Kind::none:
      break;
  }
  fail(call, MPI_ERR_TOPOLOGY, "comm has no topology (MPI_Cart_create, MPI_Graph_create, ...)");
}

}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VPMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  constexpr const char* call = "MPI_Dims_create";
  return guarded(call, [&] {
    if (ndims < 0) fail(call, MPI_ERR_DIMS, "ndims " + std::to_string(ndims) + " is negative");
    check_array(call, ndims, dims, "dims");
    checked([&] { dims_create(nnodes, std::span<int>(dims, static_cast<std::size_t>(ndims))); });
  });
}

namespace {

// A Cartesian grid of every rank in the world's order (MPI_Cart_create on MPI_COMM_WORLD, or on
// a duplicate of it) becomes the ranks' geometry for the balancers: the geometric strategies
// then keep neighbours together (vp::declare_grid; not with --vp-grid, whose grid wins). MPI
// numbers the cells row-major, the last dimension varying fastest, so that one is x. A grid of
// more than 3 dimensions folds the leading ones into z.
void declare_to_balancers(const Communicator& c, const Cartesian& g) {
  if (g.ndims() < 1 || g.size() != vp::size() || c.group.size() != vp::size()) return;
  for (int i = 0; i < c.group.size(); ++i) {
    if (c.group.rank_of(i) != i) return;
  }
  std::array<std::int32_t, 3> sides{1, 1, 1};
  const int n = g.ndims();
  for (int d = 0; d < n; ++d) {
    const int axis = std::min(n - 1 - d, 2);  // the last dimension is x
    sides[static_cast<std::size_t>(axis)] *= g.dims[static_cast<std::size_t>(d)];
  }
  vp::declare_grid(sides, std::min(n, 3));
}

}  // namespace

int VPMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                      int reorder, MPI_Comm* comm_cart) {
  constexpr const char* call = "MPI_Cart_create";
  static_cast<void>(reorder);
  return guarded_on(call, comm_old, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm_old, "comm_old");
    if (c.inter) fail(call, MPI_ERR_COMM, "comm_old is an intercommunicator");
    check_out(call, comm_cart, "comm_cart");
    if (ndims < 0) fail(call, MPI_ERR_DIMS, "ndims " + std::to_string(ndims) + " is negative");
    check_array(call, ndims, dims, "dims");
    check_array(call, ndims, periods, "periods");
    Topology t;
    t.kind = Topology::Kind::cartesian;
    t.cartesian = checked([&] {
      return cartesian(call, span_of(dims, ndims), span_of(periods, ndims), c.group.size());
    });
    *comm_cart = subcomm(call, objects, c, first_ranks(c, t.cartesian.size()));
    declare_to_balancers(c, t.cartesian);
    attach(objects, *comm_cart, std::move(t));
  });
}

int VPMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  constexpr const char* call = "MPI_Cart_coords";
  return guarded_on(call, comm, [&](const Label& label) {
    const Cartesian& g = cartesian_of(call, active(call, label, comm));
    if (maxdims < g.ndims()) {
      fail(call, MPI_ERR_ARG,
           "maxdims " + std::to_string(maxdims) + " is less than the topology's " +
               std::to_string(g.ndims()) + " dimensions");
    }
    check_array(call, g.ndims(), coords, "coords");
    const std::vector<int> c = checked([&] { return vela::mpi::detail::coords(g, rank); });
    std::copy(c.begin(), c.end(), coords);
  });
}

int VPMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  constexpr const char* call = "MPI_Cart_rank";
  return guarded_on(call, comm, [&](const Label& label) {
    const Cartesian& g = cartesian_of(call, active(call, label, comm));
    check_array(call, g.ndims(), coords, "coords");
    check_out(call, rank, "rank");
    *rank = checked([&] { return rank_of(g, span_of(coords, g.ndims())); });
  });
}

int VPMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  constexpr const char* call = "MPI_Cart_shift";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    const Cartesian& g = cartesian_of(call, c);
    check_out(call, rank_source, "rank_source");
    check_out(call, rank_dest, "rank_dest");
    const auto [source, dest] =
        checked([&] { return shift(g, c.rank, direction, disp, MPI_PROC_NULL); });
    *rank_source = source;
    *rank_dest = dest;
  });
}

int VPMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  constexpr const char* call = "MPI_Cart_sub";
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    const Cartesian& g = cartesian_of(call, c);
    check_array(call, g.ndims(), remain_dims, "remain_dims");
    check_out(call, newcomm, "newcomm");
    SubGrid s = checked([&] { return sub(g, c.rank, span_of(remain_dims, g.ndims())); });
    *newcomm = split_comm(call, objects, c, s.color, s.key);
    Topology t;
    t.kind = Topology::Kind::cartesian;
    t.cartesian = std::move(s.grid);
    attach(objects, *newcomm, std::move(t));
  });
}

int VPMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  constexpr const char* call = "MPI_Cart_get";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    const Cartesian& g = cartesian_of(call, c);
    if (maxdims < g.ndims()) {
      fail(call, MPI_ERR_ARG,
           "maxdims " + std::to_string(maxdims) + " is less than the topology's " +
               std::to_string(g.ndims()) + " dimensions");
    }
    check_array(call, g.ndims(), dims, "dims");
    check_array(call, g.ndims(), periods, "periods");
    check_array(call, g.ndims(), coords, "coords");
    const std::vector<int> mine = vela::mpi::detail::coords(g, c.rank);
    for (int i = 0; i < g.ndims(); ++i) {
      const auto k = static_cast<std::size_t>(i);
      dims[i] = g.dims[k];
      periods[i] = g.periods[k];
      coords[i] = mine[k];
    }
  });
}

int VPMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  constexpr const char* call = "MPI_Cartdim_get";
  return guarded_on(call, comm, [&](const Label& label) {
    const Cartesian& g = cartesian_of(call, active(call, label, comm));
    check_out(call, ndims, "ndims");
    *ndims = g.ndims();
  });
}

int VPMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  constexpr const char* call = "MPI_Cart_map";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    check_array(call, ndims, dims, "dims");
    check_array(call, ndims, periods, "periods");
    check_out(call, newrank, "newrank");
    const Cartesian g = checked([&] {
      return cartesian(call, span_of(dims, ndims), span_of(periods, ndims), c.group.size());
    });
    *newrank = cart_map(g, c.rank, MPI_UNDEFINED);
  });
}

int VPMPI_Topo_test(MPI_Comm comm, int* status) {
  constexpr const char* call = "MPI_Topo_test";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    check_out(call, status, "status");
    switch (c.topology.kind) {
      case Topology::Kind::none:
        *status = MPI_UNDEFINED;
        break;
      case Topology::Kind::cartesian:
        *status = MPI_CART;
        break;
      case Topology::Kind::graph:
        *status = MPI_GRAPH;
        break;
      case Topology::Kind::dist_graph:
        *status = MPI_DIST_GRAPH;
        break;
    }
  });
}

int VPMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                       int reorder, MPI_Comm* comm_graph) {
  constexpr const char* call = "MPI_Graph_create";
  static_cast<void>(reorder);
  return guarded_on(call, comm_old, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm_old, "comm_old");
    if (c.inter) fail(call, MPI_ERR_COMM, "comm_old is an intercommunicator");
    check_out(call, comm_graph, "comm_graph");
    Topology t;
    t.kind = Topology::Kind::graph;
    t.graph = checked([&] {
      check_count(call, "nnodes", nnodes, TopologyError::Class::arg);
      check_array(call, nnodes, index, "index");
      const std::size_t m = edge_count(call, span_of(index, nnodes));
      check_array(call, static_cast<int>(m), edges, "edges");
      return graph(call, span_of(index, nnodes), {edges, m}, c.group.size());
    });
    *comm_graph = subcomm(call, objects, c, first_ranks(c, t.graph.nnodes()));
    attach(objects, *comm_graph, std::move(t));
  });
}

int VPMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  constexpr const char* call = "MPI_Graphdims_get";
  return guarded_on(call, comm, [&](const Label& label) {
    const Graph& g = graph_of(call, active(call, label, comm));
    check_out(call, nnodes, "nnodes");
    check_out(call, nedges, "nedges");
    *nnodes = g.nnodes();
    *nedges = g.nedges();
  });
}

int VPMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  constexpr const char* call = "MPI_Graph_get";
  return guarded_on(call, comm, [&](const Label& label) {
    const Graph& g = graph_of(call, active(call, label, comm));
    if (maxindex < g.nnodes() || maxedges < g.nedges()) {
      fail(call, MPI_ERR_ARG, "maxindex or maxedges is smaller than the graph");
    }
    check_array(call, g.nnodes(), index, "index");
    check_array(call, g.nedges(), edges, "edges");
    std::copy(g.index.begin(), g.index.end(), index);
    std::copy(g.edges.begin(), g.edges.end(), edges);
  });
}

int VPMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  constexpr const char* call = "MPI_Graph_neighbors_count";
  return guarded_on(call, comm, [&](const Label& label) {
    const Graph& g = graph_of(call, active(call, label, comm));
    check_out(call, nneighbors, "nneighbors");
    *nneighbors = static_cast<int>(checked([&] { return neighbors(g, rank); }).size());
  });
}

int VPMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors_out[]) {
  constexpr const char* call = "MPI_Graph_neighbors";
  return guarded_on(call, comm, [&](const Label& label) {
    const Graph& g = graph_of(call, active(call, label, comm));
    const std::vector<int> n = checked([&] { return neighbors(g, rank); });
    if (maxneighbors < static_cast<int>(n.size())) {
      fail(call, MPI_ERR_ARG,
           "maxneighbors " + std::to_string(maxneighbors) + " is less than rank " +
               std::to_string(rank) + "'s " + std::to_string(n.size()) + " neighbours");
    }
    check_array(call, static_cast<int>(n.size()), neighbors_out, "neighbors");
    std::copy(n.begin(), n.end(), neighbors_out);
  });
}

int VPMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  constexpr const char* call = "MPI_Graph_map";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    check_out(call, newrank, "newrank");
    const Graph g = checked([&] {
      check_count(call, "nnodes", nnodes, TopologyError::Class::arg);
      check_array(call, nnodes, index, "index");
      const std::size_t m = edge_count(call, span_of(index, nnodes));
      check_array(call, static_cast<int>(m), edges, "edges");
      return graph(call, span_of(index, nnodes), {edges, m}, c.group.size());
    });
    *newrank = graph_map(g, c.rank, MPI_UNDEFINED);
  });
}

int VPMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                     const int sourceweights[], int outdegree,
                                     const int destinations[], const int destweights[],
                                     MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  constexpr const char* call = "MPI_Dist_graph_create_adjacent";
  static_cast<void>(info);
  static_cast<void>(reorder);
  return guarded_on(call, comm_old, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm_old, "comm_old");
    if (c.inter) fail(call, MPI_ERR_COMM, "comm_old is an intercommunicator");
    check_out(call, comm_dist_graph, "comm_dist_graph");
    count_of(call, indegree, "indegree");
    count_of(call, outdegree, "outdegree");
    check_array(call, indegree, sources, "sources");
    check_array(call, outdegree, destinations, "destinations");
    const bool weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    const auto weights = [](const int* w, int n) {
      return w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY ? std::span<const int>{} : span_of(w, n);
    };
    Topology t;
    t.kind = Topology::Kind::dist_graph;
    t.dist_graph = checked([&] {
      return dist_graph_adjacent(call, span_of(sources, indegree), weights(sourceweights, indegree),
                                 span_of(destinations, outdegree), weights(destweights, outdegree),
                                 weighted, c.group.size());
    });
    *comm_dist_graph = subcomm(call, objects, c, c.group);
    attach(objects, *comm_dist_graph, std::move(t));
  });
}

int VPMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                            const int destinations[], const int weights[], MPI_Info info,
                            int reorder, MPI_Comm* comm_dist_graph) {
  constexpr const char* call = "MPI_Dist_graph_create";
  static_cast<void>(info);
  static_cast<void>(reorder);
  return guarded_on(call, comm_old, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm_old, "comm_old");
    if (c.inter) fail(call, MPI_ERR_COMM, "comm_old is an intercommunicator");
    check_out(call, comm_dist_graph, "comm_dist_graph");
    count_of(call, n, "n");
    check_array(call, n, sources, "sources");
    check_array(call, n, degrees, "degrees");
    const bool weighted = weights != MPI_UNWEIGHTED;
    const std::vector<DistEdge> edges = checked([&] {
      const std::size_t m = total_degree(call, span_of(degrees, n));
      check_array(call, static_cast<int>(m), destinations, "destinations");
      const std::span<const int> w = weighted && weights != MPI_WEIGHTS_EMPTY
                                         ? std::span<const int>(weights, m)
                                         : std::span<const int>{};
      return dist_graph_edges(call, c.rank, span_of(sources, n), span_of(degrees, n),
                              {destinations, m}, w, weighted, c.group.size());
    });
    // Each edge to its source and its destination (once when they are the same rank).
    const int size = c.group.size();
    std::vector<std::vector<DistEdge>> outgoing(static_cast<std::size_t>(size));
    for (const DistEdge& e : edges) {
      outgoing[static_cast<std::size_t>(e.source)].push_back(e);
      if (e.destination != e.source) outgoing[static_cast<std::size_t>(e.destination)].push_back(e);
    }
    constexpr int words = sizeof(DistEdge) / sizeof(int);
    std::vector<int> send_counts(static_cast<std::size_t>(size));
    std::vector<int> send_displs(static_cast<std::size_t>(size));
    std::vector<DistEdge> packed;
    for (int r = 0; r < size; ++r) {
      send_displs[static_cast<std::size_t>(r)] = static_cast<int>(packed.size()) * words;
      const auto& list = outgoing[static_cast<std::size_t>(r)];
      send_counts[static_cast<std::size_t>(r)] = static_cast<int>(list.size()) * words;
      packed.insert(packed.end(), list.begin(), list.end());
    }
    std::vector<int> receive_counts(static_cast<std::size_t>(size));
    const MPI_Comm comm = comm_old;
    VPMPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm);
    std::vector<int> receive_displs(static_cast<std::size_t>(size));
    int total = 0;
    for (int r = 0; r < size; ++r) {
      receive_displs[static_cast<std::size_t>(r)] = total;
      total += receive_counts[static_cast<std::size_t>(r)];
    }
    std::vector<DistEdge> learned(static_cast<std::size_t>(total / words));
    VPMPI_Alltoallv(packed.data(), send_counts.data(), send_displs.data(), MPI_INT, learned.data(),
                    receive_counts.data(), receive_displs.data(), MPI_INT, comm);
    Topology t;
    t.kind = Topology::Kind::dist_graph;
    t.dist_graph = dist_graph_local(c.rank, learned, weighted);
    *comm_dist_graph = subcomm(call, objects, c, c.group);
    attach(objects, *comm_dist_graph, std::move(t));
  });
}

int VPMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  constexpr const char* call = "MPI_Dist_graph_neighbors_count";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    check_out(call, indegree, "indegree");
    check_out(call, outdegree, "outdegree");
    check_out(call, weighted, "weighted");
    const Neighborhood n = neighborhood_of(call, c);
    *indegree = static_cast<int>(n.sources.size());
    *outdegree = static_cast<int>(n.destinations.size());
    *weighted = c.topology.kind == Topology::Kind::dist_graph && c.topology.dist_graph.weighted;
  });
}

int VPMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                               int maxoutdegree, int destinations[], int destweights[]) {
  constexpr const char* call = "MPI_Dist_graph_neighbors";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    const Neighborhood n = neighborhood_of(call, c);
    if (maxindegree < static_cast<int>(n.sources.size()) ||
        maxoutdegree < static_cast<int>(n.destinations.size())) {
      fail(call, MPI_ERR_ARG, "maxindegree or maxoutdegree is smaller than the rank's degree");
    }
    check_array(call, static_cast<int>(n.sources.size()), sources, "sources");
    check_array(call, static_cast<int>(n.destinations.size()), destinations, "destinations");
    std::copy(n.sources.begin(), n.sources.end(), sources);
    std::copy(n.destinations.begin(), n.destinations.end(), destinations);
    const DistGraph& d = c.topology.dist_graph;
    if (c.topology.kind == Topology::Kind::dist_graph && d.weighted) {
      if (sourceweights != MPI_UNWEIGHTED && sourceweights != nullptr)
        std::copy(d.source_weights.begin(), d.source_weights.end(), sourceweights);
      if (destweights != MPI_UNWEIGHTED && destweights != nullptr)
        std::copy(d.destination_weights.begin(), d.destination_weights.end(), destweights);
    }
  });
}

int VPMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbour_blocks("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf,
                          recvcount, recvtype, comm, false);
}

int VPMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return neighbour_blocks("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                          recvtype, comm, true);
}

int VPMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                              void* recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr const char* call = "MPI_Neighbor_allgatherv";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    const Neighborhood n = neighborhood_of(call, c);
    const Datatype& stype = datatype_of(call, sendtype, "sendtype");
    const Datatype& rtype = datatype_of(call, recvtype, "recvtype");
    const std::size_t scount = count_of(call, sendcount, "sendcount");
    check_array(call, static_cast<int>(n.sources.size()), recvcounts, "recvcounts");
    check_array(call, static_cast<int>(n.sources.size()), displs, "displs");
    const std::vector<Block> sends(n.destinations.size(), Block{sendbuf, scount, &stype});
    std::vector<Block> receives;
    for (std::size_t j = 0; j < n.sources.size(); ++j) {
      receives.push_back({offset(static_cast<const void*>(recvbuf),
                                 static_cast<std::intptr_t>(displs[j]) * rtype.extent),
                          count_of(call, recvcounts[j], "recvcounts[j]"), &rtype});
    }
    neighbour_exchange(call, c, n, sends, receives);
  });
}

int VPMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr const char* call = "MPI_Neighbor_alltoallv";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    const Neighborhood n = neighborhood_of(call, c);
    const Datatype& stype = datatype_of(call, sendtype, "sendtype");
    const Datatype& rtype = datatype_of(call, recvtype, "recvtype");
    check_array(call, static_cast<int>(n.destinations.size()), sendcounts, "sendcounts");
    check_array(call, static_cast<int>(n.destinations.size()), sdispls, "sdispls");
    check_array(call, static_cast<int>(n.sources.size()), recvcounts, "recvcounts");
    check_array(call, static_cast<int>(n.sources.size()), rdispls, "rdispls");
    std::vector<Block> sends;
    for (std::size_t i = 0; i < n.destinations.size(); ++i) {
      sends.push_back({offset(sendbuf, static_cast<std::intptr_t>(sdispls[i]) * stype.extent),
                       count_of(call, sendcounts[i], "sendcounts[i]"), &stype});
    }
    std::vector<Block> receives;
    for (std::size_t j = 0; j < n.sources.size(); ++j) {
      receives.push_back({offset(static_cast<const void*>(recvbuf),
                                 static_cast<std::intptr_t>(rdispls[j]) * rtype.extent),
                          count_of(call, recvcounts[j], "recvcounts[j]"), &rtype});
    }
    neighbour_exchange(call, c, n, sends, receives);
  });
}

int VPMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm) {
  constexpr const char* call = "MPI_Neighbor_alltoallw";
  return guarded_on(call, comm, [&](const Label& label) {
    Communicator& c = active(call, label, comm);
    const Neighborhood n = neighborhood_of(call, c);
    const int out = static_cast<int>(n.destinations.size());
    const int in = static_cast<int>(n.sources.size());
    check_array(call, out, sendcounts, "sendcounts");
    check_array(call, out, sdispls, "sdispls");
    check_array(call, out, sendtypes, "sendtypes");
    check_array(call, in, recvcounts, "recvcounts");
    check_array(call, in, rdispls, "rdispls");
    check_array(call, in, recvtypes, "recvtypes");
    std::vector<Block> sends;
    for (int i = 0; i < out; ++i) {
      sends.push_back({offset(sendbuf, sdispls[i]), count_of(call, sendcounts[i], "sendcounts[i]"),
                       &datatype_of(call, sendtypes[i], "sendtypes[i]")});
    }
    std::vector<Block> receives;
    for (int j = 0; j < in; ++j) {
      receives.push_back({offset(static_cast<const void*>(recvbuf), rdispls[j]),
                          count_of(call, recvcounts[j], "recvcounts[j]"),
                          &datatype_of(call, recvtypes[j], "recvtypes[j]")});
    }
    neighbour_exchange(call, c, n, sends, receives);
  });
}

}  // extern "C"

// The MPI names, weak aliases of the profiling names (a tool's own MPI_x takes their place).
VMPI_PROFILED(Dims_create);
VMPI_PROFILED(Cart_create);
VMPI_PROFILED(Cart_coords);
VMPI_PROFILED(Cart_rank);
VMPI_PROFILED(Cart_shift);
VMPI_PROFILED(Cart_sub);
VMPI_PROFILED(Cart_get);
VMPI_PROFILED(Cartdim_get);
VMPI_PROFILED(Cart_map);
VMPI_PROFILED(Topo_test);
VMPI_PROFILED(Graph_create);
VMPI_PROFILED(Graphdims_get);
VMPI_PROFILED(Graph_get);
VMPI_PROFILED(Graph_neighbors_count);
VMPI_PROFILED(Graph_neighbors);
VMPI_PROFILED(Graph_map);
VMPI_PROFILED(Dist_graph_create_adjacent);
VMPI_PROFILED(Dist_graph_create);
VMPI_PROFILED(Dist_graph_neighbors_count);
VMPI_PROFILED(Dist_graph_neighbors);
VMPI_PROFILED(Neighbor_allgather);
VMPI_PROFILED(Neighbor_alltoall);
VMPI_PROFILED(Neighbor_allgatherv);
VMPI_PROFILED(Neighbor_alltoallv);
VMPI_PROFILED(Neighbor_alltoallw);
