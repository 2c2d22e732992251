// Virtual topologies (topology.hpp): argument checks, Cartesian arithmetic, graph lookups.
//
// Invariants: a Cartesian made by cartesian() has dims >= 1, periods in {0, 1} and a size that
// fits an int (it is at most the communicator's); a Graph made by graph() has a non-decreasing
// index whose last entry is the number of edges, each edge a node. The queries trust these and
// check only their own arguments.
//
// Dims_create's search: the free entries are chosen largest first, each a divisor of what is
// left and at most the entry before it, so every factorisation is visited once, in
// lexicographic order. The first entry is at least the k-th root of what is left (k entries
// remain), and the smallest entry at most the (k-1)-th root of what the largest leaves, so
// `largest - that root` bounds the spread from below; it grows with the candidate, so a branch
// stops at the first candidate whose bound reaches the best spread found. Visiting in
// lexicographic order makes the first best the lexicographically smallest. Costs: factoring
// O(sqrt n), the divisors (at most 1,344 for an int) sorted, then a search that the bound keeps
// to a few candidates per level in practice.
#include "topology.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

namespace vela::mpi::detail {

namespace {

using Class = TopologyError::Class;

[[noreturn]] void fail(Class mpi_class, const char* call, const std::string& what) {
  throw TopologyError(mpi_class, std::string(call) + ": " + what);
}

// "dims[1] = -2"
std::string entry(const char* name, std::size_t i, long long value) {
  return std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(value);
}

// The representative of `value` modulo `n` in [0, n).
int wrap(long long value, int n) {
  const long long r = value % n;
  return static_cast<int>(r < 0 ? r + n : r);
}

// ---- Dims_create's balanced factorisation ----

// Whether x^k <= n, without overflow.
bool power_at_most(long long x, int k, long long n) {
  long long p = 1;
  for (int i = 0; i < k; ++i) {
    p *= x;
    if (p > n) return false;
  }
  return true;
}

// The largest x with x^k <= n (n >= 1, k >= 1).
long long root_floor(long long n, int k) {
  long long low = 1;
  long long high = n;
  while (low < high) {
    const long long mid = low + (high - low + 1) / 2;
    if (power_at_most(mid, k, n)) {
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  return low;
}

// The smallest x with x^k >= n.
long long root_ceil(long long n, int k) {
  const long long r = root_floor(n, k);
  return power_at_most(r, k, n - 1) ? r + 1 : r;
}

// The divisors of n >= 1, ascending.
std::vector<int> divisors(int n) {
  std::vector<int> small;
  std::vector<int> large;
  for (long long d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    small.push_back(static_cast<int>(d));
    if (d * d != n) large.push_back(static_cast<int>(n / d));
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

// The factorisation of `n` into `k` non-increasing entries with the smallest spread, ties to the
// lexicographically smallest (the file's opening comment says how and why it is found).
class BalancedSearch {
 public:
  BalancedSearch(int n, int k) : divisors_(divisors(n)), trial_(static_cast<std::size_t>(k)) {
    place(n, 0, n);
  }
  const std::vector<int>& best() const { return best_; }

 private:
  // Chooses trial_[slot..] for the product `left`, each at most `cap`.
  void place(int left, std::size_t slot, int cap) {
    const int slots = static_cast<int>(trial_.size() - slot);
    if (left == 1) {
      std::fill(trial_.begin() + static_cast<std::ptrdiff_t>(slot), trial_.end(), 1);
      return consider();
    }
    if (slots == 1) {
      // left <= cap: the entry before, cap, was chosen with cap * cap >= cap * left.
      trial_[slot] = left;
      return consider();
    }
    const long long lowest = root_ceil(left, slots);
    auto d = std::lower_bound(divisors_.begin(), divisors_.end(), lowest);
    for (; d != divisors_.end() && *d <= cap; ++d) {
      if (left % *d != 0) continue;
      const long long largest = slot == 0 ? *d : trial_[0];
      if (largest - root_floor(left / *d, slots - 1) >= best_spread_) break;
      trial_[slot] = *d;
      place(left / *d, slot + 1, *d);
    }
  }

  void consider() {
    const int spread = trial_.front() - trial_.back();
    if (spread >= best_spread_) return;
    best_spread_ = spread;
    best_ = trial_;
  }

  std::vector<int> divisors_;
  std::vector<int> trial_;
  std::vector<int> best_;
  int best_spread_ = std::numeric_limits<int>::max();
};

// The product of the positive entries of `dims` (negative ones are an error), saturated just
// above `limit`, and the number of zero entries.
std::pair<long long, int> fixed_product(std::span<const int> dims, long long limit) {
  long long product = 1;
  int open = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0)
      fail(Class::dims, "MPI_Dims_create", entry("dims", i, dims[i]) + " is negative");
    if (dims[i] == 0) {
      ++open;
    } else {
      product = std::min(product * dims[i], limit + 1);
    }
  }
  return {product, open};
}

// ---- Cartesian helpers ----

// The number of ranks one step along dimension `d` spans (row-major).
int stride(const Cartesian& grid, std::size_t d) {
  int s = 1;
  for (std::size_t i = d + 1; i < grid.dims.size(); ++i) s *= grid.dims[i];
  return s;
}

void check_rank(const char* call, const Cartesian& grid, int rank) {
  if (rank < 0 || rank >= grid.size()) {
    fail(Class::rank, call,
         "rank " + std::to_string(rank) + " is not in the grid of " + std::to_string(grid.size()) +
             " ranks");
  }
}

// The row-major index of `coords` within `dims` (both in range).
int linear(std::span<const int> dims, std::span<const int> coords) {
  int r = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) r = r * dims[i] + coords[i];
  return r;
}

std::vector<int> coordinates(const Cartesian& grid, int rank) {
  std::vector<int> c(grid.dims.size());
  for (std::size_t i = c.size(); i-- > 0;) {
    c[i] = rank % grid.dims[i];
    rank /= grid.dims[i];
  }
  return c;
}

// The rank at coordinate `target` along dimension `d` from `rank` (whose coordinate there is
// `here`): wrapped if periodic, `proc_null` if off the border.
int step_to(const Cartesian& grid, int rank, std::size_t d, int here, long long target,
            int proc_null) {
  const int n = grid.dims[d];
  if (grid.periods[d] != 0) target = wrap(target, n);
  if (target < 0 || target >= n) return proc_null;
  return rank + static_cast<int>(target - here) * stride(grid, d);
}

// ---- graph helpers ----

void check_node(const char* call, const Graph& g, int rank) {
  if (rank < 0 || rank >= g.nnodes()) {
    fail(Class::rank, call,
         "rank " + std::to_string(rank) + " is not a node of the graph of " +
             std::to_string(g.nnodes()) + " nodes");
  }
}

// Every entry of `ranks` a rank of a communicator of `comm_size` (class rank).
void check_ranks(const char* call, const char* name, std::span<const int> ranks, int comm_size) {
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] < 0 || ranks[i] >= comm_size) {
      fail(Class::rank, call,
           entry(name, i, ranks[i]) + " is not a rank of the communicator of size " +
               std::to_string(comm_size));
    }
  }
}

// `weights` of `count` entries, each non-negative (class arg).
void check_weights(const char* call, const char* name, std::span<const int> weights,
                   std::size_t count) {
  if (weights.size() != count) {
    fail(Class::arg, call,
         std::string(name) + " has " + std::to_string(weights.size()) + " entries for " +
             std::to_string(count) + " edges");
  }
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] < 0) fail(Class::arg, call, entry(name, i, weights[i]) + " is negative");
  }
}

}  // namespace

void check_count(const char* call, const char* name, int n, TopologyError::Class mpi_class) {
  if (n < 0) fail(mpi_class, call, std::string(name) + " = " + std::to_string(n) + " is negative");
}

// ---- Cartesian ----

void dims_create(int nnodes, std::span<int> dims) {
  const char* call = "MPI_Dims_create";
  if (nnodes < 0) fail(Class::arg, call, "nnodes = " + std::to_string(nnodes) + " is negative");
  const auto [product, open] = fixed_product(dims, nnodes);
  if (dims.empty()) return;  // MPICH too: nothing to check against
  if (open > 0 && nnodes == 0) fail(Class::arg, call, "nnodes = 0 leaves no nodes to place");
  if (product > nnodes || nnodes % product != 0) {
    fail(Class::dims, call,
         "nnodes = " + std::to_string(nnodes) + " is not a multiple of the product of the " +
             "given dims" + (product > nnodes ? "" : " (" + std::to_string(product) + ")"));
  }
  if (open == 0) return;  // the standard asks for a multiple, not equality (nor does MPICH)
  const BalancedSearch search(static_cast<int>(nnodes / product), open);
  auto chosen = search.best().begin();
  for (int& d : dims) {
    if (d == 0) d = *chosen++;
  }
}

int Cartesian::size() const {
  int s = 1;
  for (int d : dims) s *= d;
  return s;
}

Cartesian cartesian(const char* call, std::span<const int> dims, std::span<const int> periods,
                    int comm_size) {
  if (periods.size() != dims.size()) {
    fail(Class::arg, call,
         "periods has " + std::to_string(periods.size()) + " entries for " +
             std::to_string(dims.size()) + " dimensions");
  }
  long long size = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] <= 0) fail(Class::dims, call, entry("dims", i, dims[i]) + " is not positive");
    size = std::min(size * dims[i], static_cast<long long>(comm_size) + 1);
  }
  if (size > comm_size) {
    fail(Class::arg, call,
         "the grid has more ranks than the communicator's " + std::to_string(comm_size));
  }
  Cartesian grid{{dims.begin(), dims.end()}, {}};
  for (int p : periods) grid.periods.push_back(p != 0 ? 1 : 0);
  return grid;
}

std::vector<int> coords(const Cartesian& grid, int rank) {
  check_rank("MPI_Cart_coords", grid, rank);
  return coordinates(grid, rank);
}

int rank_of(const Cartesian& grid, std::span<const int> coords) {
  const char* call = "MPI_Cart_rank";
  if (coords.size() != grid.dims.size()) {
    fail(Class::arg, call,
         "coords has " + std::to_string(coords.size()) + " entries for " +
             std::to_string(grid.dims.size()) + " dimensions");
  }
  std::vector<int> in_range(coords.begin(), coords.end());
  for (std::size_t i = 0; i < coords.size(); ++i) {
    if (grid.periods[i] != 0) {
      in_range[i] = wrap(coords[i], grid.dims[i]);
    } else if (coords[i] < 0 || coords[i] >= grid.dims[i]) {
      fail(Class::rank, call,
           entry("coords", i, coords[i]) + " is outside the non-periodic dimension of size " +
               std::to_string(grid.dims[i]));
    }
  }
  return linear(grid.dims, in_range);
}

std::pair<int, int> shift(const Cartesian& grid, int rank, int direction, int disp, int proc_null) {
  const char* call = "MPI_Cart_shift";
  check_rank(call, grid, rank);
  if (direction < 0 || direction >= grid.ndims()) {
    fail(Class::dims, call,
         "direction = " + std::to_string(direction) + " is not a dimension of the " +
             std::to_string(grid.ndims()) + "-dimensional grid");
  }
  const auto d = static_cast<std::size_t>(direction);
  const int here = coordinates(grid, rank)[d];
  return {step_to(grid, rank, d, here, static_cast<long long>(here) - disp, proc_null),
          step_to(grid, rank, d, here, static_cast<long long>(here) + disp, proc_null)};
}

SubGrid sub(const Cartesian& grid, int rank, std::span<const int> remain_dims) {
  const char* call = "MPI_Cart_sub";
  check_rank(call, grid, rank);
  if (remain_dims.size() != grid.dims.size()) {
    fail(Class::arg, call,
         "remain_dims has " + std::to_string(remain_dims.size()) + " entries for " +
             std::to_string(grid.dims.size()) + " dimensions");
  }
  const std::vector<int> c = coordinates(grid, rank);
  std::vector<int> dropped_dims;
  std::vector<int> dropped_coords;
  std::vector<int> kept_coords;
  SubGrid result;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (remain_dims[i] != 0) {
      result.grid.dims.push_back(grid.dims[i]);
      result.grid.periods.push_back(grid.periods[i]);
      kept_coords.push_back(c[i]);
    } else {
      dropped_dims.push_back(grid.dims[i]);
      dropped_coords.push_back(c[i]);
    }
  }
  result.color = linear(dropped_dims, dropped_coords);
  result.key = linear(result.grid.dims, kept_coords);
  return result;
}

int cart_map(const Cartesian& grid, int rank, int undefined) {
  return rank >= 0 && rank < grid.size() ? rank : undefined;
}

std::vector<int> cart_neighbors(const Cartesian& grid, int rank, int proc_null) {
  check_rank("MPI_Cart_shift", grid, rank);
  std::vector<int> list;
  list.reserve(2 * grid.dims.size());
  for (int d = 0; d < grid.ndims(); ++d) {
    const auto [source, destination] = shift(grid, rank, d, 1, proc_null);
    list.push_back(source);
    list.push_back(destination);
  }
  return list;
}

std::array<double, 3> position(const Cartesian& grid, int rank) {
  const std::vector<int> c = coords(grid, rank);
  std::array<double, 3> point{0.0, 0.0, 0.0};
  for (std::size_t i = 0; i < std::min<std::size_t>(c.size(), 2); ++i) point[i] = c[i];
  if (c.size() > 2) {
    const auto rest = std::span<const int>(grid.dims).subspan(2);
    point[2] = linear(rest, std::span<const int>(c).subspan(2));
  }
  return point;
}

// ---- graph ----

std::size_t edge_count(const char* call, std::span<const int> index) {
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (index[i] < 0) fail(Class::arg, call, entry("index", i, index[i]) + " is negative");
    if (i > 0 && index[i] < index[i - 1]) {
      fail(Class::arg, call,
           entry("index", i, index[i]) + " is less than " + entry("index", i - 1, index[i - 1]));
    }
  }
  return index.empty() ? 0 : static_cast<std::size_t>(index.back());
}

Graph graph(const char* call, std::span<const int> index, std::span<const int> edges,
            int comm_size) {
  if (index.size() > static_cast<std::size_t>(std::max(comm_size, 0))) {
    fail(Class::arg, call,
         "nnodes = " + std::to_string(index.size()) + " is more than the communicator's " +
             std::to_string(comm_size) + " ranks");
  }
  const std::size_t count = edge_count(call, index);
  if (edges.size() != count) {
    fail(Class::arg, call,
         "edges has " + std::to_string(edges.size()) + " entries where index says " +
             std::to_string(count));
  }
  for (std::size_t i = 0; i < edges.size(); ++i) {
    if (edges[i] < 0 || static_cast<std::size_t>(edges[i]) >= index.size()) {
      fail(Class::rank, call,
           entry("edges", i, edges[i]) + " is not a node of the graph of " +
               std::to_string(index.size()) + " nodes");
    }
  }
  return Graph{{index.begin(), index.end()}, {edges.begin(), edges.end()}};
}

std::vector<int> neighbors(const Graph& g, int rank) {
  check_node("MPI_Graph_neighbors", g, rank);
  const auto r = static_cast<std::size_t>(rank);
  const int begin = r == 0 ? 0 : g.index[r - 1];
  return {g.edges.begin() + begin, g.edges.begin() + g.index[r]};
}

int graph_map(const Graph& g, int rank, int undefined) {
  return rank >= 0 && rank < g.nnodes() ? rank : undefined;
}

// ---- distributed graph ----

DistGraph dist_graph_adjacent(const char* call, std::span<const int> sources,
                              std::span<const int> source_weights,
                              std::span<const int> destinations,
                              std::span<const int> destination_weights, bool weighted,
                              int comm_size) {
  check_ranks(call, "sources", sources, comm_size);
  check_ranks(call, "destinations", destinations, comm_size);
  DistGraph g{{sources.begin(), sources.end()},
              {},
              {destinations.begin(), destinations.end()},
              {},
              weighted};
  if (!weighted) return g;
  check_weights(call, "sourceweights", source_weights, sources.size());
  check_weights(call, "destweights", destination_weights, destinations.size());
  g.source_weights.assign(source_weights.begin(), source_weights.end());
  g.destination_weights.assign(destination_weights.begin(), destination_weights.end());
  return g;
}

std::size_t total_degree(const char* call, std::span<const int> degrees) {
  long long total = 0;
  for (std::size_t i = 0; i < degrees.size(); ++i) {
    if (degrees[i] < 0) fail(Class::arg, call, entry("degrees", i, degrees[i]) + " is negative");
    total += degrees[i];
  }
  if (total > std::numeric_limits<int>::max()) {
    fail(Class::arg, call, "the degrees add up to more edges than an int counts");
  }
  return static_cast<std::size_t>(total);
}

std::vector<DistEdge> dist_graph_edges(const char* call, int creator, std::span<const int> sources,
                                       std::span<const int> degrees,
                                       std::span<const int> destinations,
                                       std::span<const int> weights, bool weighted, int comm_size) {
  if (degrees.size() != sources.size()) {
    fail(Class::arg, call,
         "degrees has " + std::to_string(degrees.size()) + " entries for " +
             std::to_string(sources.size()) + " sources");
  }
  check_ranks(call, "sources", sources, comm_size);
  const std::size_t total = total_degree(call, degrees);
  if (destinations.size() != total) {
    fail(Class::arg, call,
         "destinations has " + std::to_string(destinations.size()) + " entries for degrees " +
             "adding up to " + std::to_string(total));
  }
  check_ranks(call, "destinations", destinations, comm_size);
  if (weighted) check_weights(call, "weights", weights, total);
  std::vector<DistEdge> edges;
  edges.reserve(total);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    for (int j = 0; j < degrees[i]; ++j) {
      const std::size_t p = edges.size();
      edges.push_back(
          {sources[i], destinations[p], weighted ? weights[p] : 1, creator, static_cast<int>(p)});
    }
  }
  return edges;
}

DistGraph dist_graph_local(int rank, std::span<const DistEdge> learned, bool weighted) {
  std::vector<DistEdge> edges(learned.begin(), learned.end());
  const auto name = [](const DistEdge& e) { return std::tie(e.position, e.creator); };
  std::sort(edges.begin(), edges.end(),
            [&](const DistEdge& a, const DistEdge& b) { return name(a) < name(b); });
  edges.erase(std::unique(edges.begin(), edges.end(),
                          [&](const DistEdge& a, const DistEdge& b) { return name(a) == name(b); }),
              edges.end());
  DistGraph g;
  g.weighted = weighted;
  for (const DistEdge& e : edges) {
    if (e.destination == rank) {
      g.sources.push_back(e.source);
      if (weighted) g.source_weights.push_back(e.weight);
    }
    if (e.source == rank) {
      g.destinations.push_back(e.destination);
      if (weighted) g.destination_weights.push_back(e.weight);
    }
  }
  return g;
}

// ---- neighbourhood collectives ----

Neighborhood neighborhood(const Cartesian& grid, int rank, int proc_null) {
  std::vector<int> list = cart_neighbors(grid, rank, proc_null);
  return {list, list};
}

Neighborhood neighborhood(const Graph& g, int rank) {
  std::vector<int> list = neighbors(g, rank);
  return {list, list};
}

Neighborhood neighborhood(const DistGraph& g) {
  return {g.sources, g.destinations};
}

}  // namespace vela::mpi::detail
