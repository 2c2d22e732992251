// Hypergraph (Pearce's thesis, ch. 4): objects are vertices weighted by their load,
// communication nets are hyperedges weighted by their bytes, and Zoltan's hypergraph
// partitioner (PHG, run on MPI_COMM_SELF) cuts them into one part per PE, part p sized to PE p's
// share (pe_shares: speed, background and pinned work), minimising the connectivity - 1 cut.
// The nets are Instance::hyperedges or, without them, one net per sending object built from the
// edges (communication_nets). By default Zoltan repartitions: each object's current PE is its
// input part and its size the cost of moving it, weighed against the cut, so a placement that
// is already good mostly stays. Non-migratable objects are fixed vertices on their PE: they
// stay, and still pull the objects they share nets with. Where Zoltan's recursive bisection
// misses the tolerance (a few objects carrying much of a PE's share), repair_balance moves
// objects off the busiest PEs at the least cost in cut. Zoltan's random generator is reseeded
// (parameter `seed`) before every run, so the same instance always gets the same answer.
#include <mpi.h>
#include <zoltan.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "adapters/zoltan_session.hpp"
#include "kernels/hypergraph_balance.hpp"
#include "kernels/partition.hpp"
#include "kernels/pe_times.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/model/strategy.hpp"

namespace vela::lb::builtin {

namespace {

// What Zoltan's query functions hand out: vertex i is Instance::objects[i] (global id i), net e
// is nets[e] (global id e).
struct Hypergraph {
  std::vector<float> vertex_weight;
  std::vector<int> input_part;  // the object's current PE
  std::vector<int> move_cost;   // bytes moved if the object migrates, scaled to fit an int
  std::vector<ZOLTAN_ID_TYPE> fixed;
  std::vector<int> fixed_part;
  std::vector<int> net_start;        // nets in compressed form: net e's pins are
  std::vector<ZOLTAN_ID_TYPE> pins;  // pins[net_start[e] .. net_start[e + 1])
  std::vector<float> net_weight;
  std::vector<float> part_size;  // target weight of each part, relative

  int vertices() const { return static_cast<int>(vertex_weight.size()); }
  int nets() const { return static_cast<int>(net_weight.size()); }
};

const Hypergraph& graph_of(void* data) {
  return *static_cast<const Hypergraph*>(data);
}

// ---- Zoltan query functions (C callbacks; they cannot throw)

int vertex_count(void* data, int* ierr) {
  *ierr = ZOLTAN_OK;
  return graph_of(data).vertices();
}

void vertex_list(void* data, int, int, ZOLTAN_ID_PTR global_ids, ZOLTAN_ID_PTR local_ids,
                 int weight_dim, float* weights, int* ierr) {
  const Hypergraph& g = graph_of(data);
  for (int v = 0; v < g.vertices(); ++v) {
    global_ids[v] = static_cast<ZOLTAN_ID_TYPE>(v);
    local_ids[v] = static_cast<ZOLTAN_ID_TYPE>(v);
    if (weight_dim == 1) weights[v] = g.vertex_weight[static_cast<std::size_t>(v)];
  }
  *ierr = ZOLTAN_OK;
}

void input_parts(void* data, int, int, int count, ZOLTAN_ID_PTR global_ids, ZOLTAN_ID_PTR,
                 int* parts, int* ierr) {
  const Hypergraph& g = graph_of(data);
  for (int k = 0; k < count; ++k) parts[k] = g.input_part[global_ids[k]];
  *ierr = ZOLTAN_OK;
}

void move_costs(void* data, int, int, int count, ZOLTAN_ID_PTR global_ids, ZOLTAN_ID_PTR,
                int* bytes, int* ierr) {
  const Hypergraph& g = graph_of(data);
  for (int k = 0; k < count; ++k) bytes[k] = g.move_cost[global_ids[k]];
  *ierr = ZOLTAN_OK;
}

void net_sizes(void* data, int* lists, int* pins, int* format, int* ierr) {
  const Hypergraph& g = graph_of(data);
  *lists = g.nets();
  *pins = static_cast<int>(g.pins.size());
  *format = ZOLTAN_COMPRESSED_EDGE;
  *ierr = ZOLTAN_OK;
}

void net_pins(void* data, int, int nets, int pins, int format, ZOLTAN_ID_PTR net_ids,
              int* net_start, ZOLTAN_ID_PTR pin_ids, int* ierr) {
  const Hypergraph& g = graph_of(data);
  if (nets != g.nets() || pins != static_cast<int>(g.pins.size()) ||
      format != ZOLTAN_COMPRESSED_EDGE) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  for (int e = 0; e < nets; ++e) {
    net_ids[e] = static_cast<ZOLTAN_ID_TYPE>(e);
    net_start[e] = g.net_start[static_cast<std::size_t>(e)];
  }
  std::copy(g.pins.begin(), g.pins.end(), pin_ids);
  *ierr = ZOLTAN_OK;
}

void net_weight_count(void* data, int* nets, int* ierr) {
  *nets = graph_of(data).nets();
  *ierr = ZOLTAN_OK;
}

void net_weights(void* data, int, int, int nets, int weight_dim, ZOLTAN_ID_PTR net_ids,
                 ZOLTAN_ID_PTR, float* weights, int* ierr) {
  const Hypergraph& g = graph_of(data);
  if (nets != g.nets() || weight_dim != 1) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  for (int e = 0; e < nets; ++e) {
    net_ids[e] = static_cast<ZOLTAN_ID_TYPE>(e);
    weights[e] = g.net_weight[static_cast<std::size_t>(e)];
  }
  *ierr = ZOLTAN_OK;
}

int fixed_count(void* data, int* ierr) {
  *ierr = ZOLTAN_OK;
  return static_cast<int>(graph_of(data).fixed.size());
}

void fixed_list(void* data, int count, int, ZOLTAN_ID_PTR global_ids, int* parts, int* ierr) {
  const Hypergraph& g = graph_of(data);
  for (int k = 0; k < count; ++k) {
    global_ids[k] = g.fixed[static_cast<std::size_t>(k)];
    parts[k] = g.fixed_part[static_cast<std::size_t>(k)];
  }
  *ierr = ZOLTAN_OK;
}

// ---- Building the hypergraph

constexpr double kIntLimit = 1 << 30;  // Zoltan's counts and object sizes are ints

Hypergraph build_hypergraph(const Instance& instance, const std::vector<Hyperedge>& nets) {
  const std::size_t n = instance.objects.size();
  std::size_t pin_count = 0;
  for (const Hyperedge& net : nets) pin_count += net.pins.size();
  if (static_cast<double>(n) > kIntLimit || static_cast<double>(pin_count) > kIntLimit ||
      static_cast<double>(nets.size()) > kIntLimit) {
    throw std::length_error(
        "hypergraph: more than 2^30 objects, nets or pins (Zoltan counts "
        "with ints)");
  }
  Hypergraph g;
  // Vertex weights: loads with a migratable mean of 1 (float-friendly); with no migratable
  // work at all, object counts are balanced instead.
  double migratable_load = 0.0;
  std::size_t migratable = 0;
  for (const Object& o : instance.objects) {
    if (!o.migratable) continue;
    migratable_load += o.load;
    ++migratable;
  }
  const bool by_count = !(migratable_load > 0.0);
  const double scale = by_count ? 0.0 : static_cast<double>(migratable) / migratable_load;
  // Migration costs are bytes (+1, so a move is never free), scaled, together with the net
  // weights, so that the largest fits an int: both are bytes, and Zoltan weighs one against
  // the other.
  double max_size = 0.0;
  for (const Object& o : instance.objects) max_size = std::max(max_size, 1.0 + o.size);
  const double byte_scale = max_size > kIntLimit ? kIntLimit / max_size : 1.0;

  const std::size_t pes = instance.pes.size();
  std::vector<double> pinned_weight(pes, 0.0);
  double migratable_weight = 0.0;
  g.vertex_weight.resize(n);
  g.input_part.resize(n);
  g.move_cost.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Object& o = instance.objects[i];
    const double w = by_count ? (o.migratable ? 1.0 : 0.0) : o.load * scale;
    g.vertex_weight[i] = static_cast<float>(w);
    g.input_part[i] = o.pe;
    g.move_cost[i] = std::max(1, static_cast<int>((1.0 + o.size) * byte_scale));
    if (o.migratable) {
      migratable_weight += w;
    } else {
      g.fixed.push_back(static_cast<ZOLTAN_ID_TYPE>(i));
      g.fixed_part.push_back(o.pe);
      pinned_weight[static_cast<std::size_t>(o.pe)] += w;
    }
  }
  // Part p holds PE p's pinned work plus its share of the migratable work (pe_shares), so that
  // filling every part to its size levels the PEs at the ideal time.
  const std::vector<double> shares = pe_shares(instance);
  double total = 0.0;
  std::vector<double> size(pes);
  for (std::size_t p = 0; p < pes; ++p)
    total += size[p] = pinned_weight[p] + shares[p] * migratable_weight;
  g.part_size.resize(pes);
  for (std::size_t p = 0; p < pes; ++p) {
    g.part_size[p] = static_cast<float>(std::max(size[p] / total, 1e-9));
  }

  g.net_start.reserve(nets.size() + 1);
  g.pins.reserve(pin_count);
  g.net_weight.reserve(nets.size());
  for (const Hyperedge& net : nets) {
    g.net_start.push_back(static_cast<int>(g.pins.size()));
    for (const std::uint32_t pin : net.pins) g.pins.push_back(static_cast<ZOLTAN_ID_TYPE>(pin));
    // A net of 0 bytes weighs as 1 byte: talking at all is a reason to stay together.
    g.net_weight.push_back(
        static_cast<float>(std::max(1.0, static_cast<double>(net.bytes)) * byte_scale));
  }
  g.net_start.push_back(static_cast<int>(g.pins.size()));
  return g;
}

// ---- Running Zoltan

struct ZoltanDeleter {
  void operator()(Zoltan_Struct* zz) const { Zoltan_Destroy(&zz); }
};

void check(int rc, const char* what) {
  if (rc != ZOLTAN_OK && rc != ZOLTAN_WARN) {
    throw std::runtime_error(std::string("hypergraph: Zoltan ") + what + " failed with code " +
                             std::to_string(rc));
  }
}

struct Settings {
  double imbalance = 1.05;
  unsigned seed = 1;
  bool repartition = true;
  double repart_multiplier = 100.0;
};

// The part of every vertex; `ms` receives the time Zoltan took (MPI's start-up left out).
std::vector<int> partition(Hypergraph& g, std::size_t parts, const Settings& s, double& ms) {
  ZoltanSession session;
  const auto start = std::chrono::steady_clock::now();
  const std::unique_ptr<Zoltan_Struct, ZoltanDeleter> zz(Zoltan_Create(MPI_COMM_SELF));
  if (!zz) throw std::runtime_error("hypergraph: Zoltan_Create failed");
  const auto set = [&](const char* name, const std::string& value) {
    check(Zoltan_Set_Param(zz.get(), name, value.c_str()), name);
  };
  set("DEBUG_LEVEL", "0");
  set("LB_METHOD", "HYPERGRAPH");
  set("HYPERGRAPH_PACKAGE", "PHG");
  set("LB_APPROACH", s.repartition ? "REPARTITION" : "PARTITION");
  set("NUM_GID_ENTRIES", "1");
  set("NUM_LID_ENTRIES", "1");  // with none, PHG fails to allocate the net weights' ids
  set("OBJ_WEIGHT_DIM", "1");
  set("EDGE_WEIGHT_DIM", "1");
  set("NUM_GLOBAL_PARTS", std::to_string(parts));
  set("RETURN_LISTS", "PARTS");
  set("REMAP", "0");  // part p was sized for PE p
  set("IMBALANCE_TOL", std::to_string(s.imbalance));
  set("PHG_REPART_MULTIPLIER", std::to_string(s.repart_multiplier));
  set("PHG_EDGE_SIZE_THRESHOLD", "1.0");  // keep large nets (by default those over 25% go)
  set("PHG_CUT_OBJECTIVE", "CONNECTIVITY");
  set("CHECK_HYPERGRAPH", "0");
  set("SEED", std::to_string(s.seed));  // reseeds Zoltan's process-wide generator

  void* data = &g;
  check(Zoltan_Set_Num_Obj_Fn(zz.get(), vertex_count, data), "Set_Num_Obj_Fn");
  check(Zoltan_Set_Obj_List_Fn(zz.get(), vertex_list, data), "Set_Obj_List_Fn");
  check(Zoltan_Set_Part_Multi_Fn(zz.get(), input_parts, data), "Set_Part_Multi_Fn");
  check(Zoltan_Set_Obj_Size_Multi_Fn(zz.get(), move_costs, data), "Set_Obj_Size_Multi_Fn");
  check(Zoltan_Set_HG_Size_CS_Fn(zz.get(), net_sizes, data), "Set_HG_Size_CS_Fn");
  check(Zoltan_Set_HG_CS_Fn(zz.get(), net_pins, data), "Set_HG_CS_Fn");
  check(Zoltan_Set_HG_Size_Edge_Wts_Fn(zz.get(), net_weight_count, data), "Set_HG_Size_Edge_Wts");
  check(Zoltan_Set_HG_Edge_Wts_Fn(zz.get(), net_weights, data), "Set_HG_Edge_Wts_Fn");
  check(Zoltan_Set_Num_Fixed_Obj_Fn(zz.get(), fixed_count, data), "Set_Num_Fixed_Obj_Fn");
  check(Zoltan_Set_Fixed_Obj_List_Fn(zz.get(), fixed_list, data), "Set_Fixed_Obj_List_Fn");
  std::vector<int> part_ids(parts);
  std::vector<int> weight_index(parts, 0);
  for (std::size_t p = 0; p < parts; ++p) part_ids[p] = static_cast<int>(p);
  check(Zoltan_LB_Set_Part_Sizes(zz.get(), 1, static_cast<int>(parts), part_ids.data(),
                                 weight_index.data(), g.part_size.data()),
        "LB_Set_Part_Sizes");

  int changes = 0, gid_entries = 0, lid_entries = 0, imports = 0, exports = 0;
  ZOLTAN_ID_PTR import_gids = nullptr, import_lids = nullptr;
  ZOLTAN_ID_PTR export_gids = nullptr, export_lids = nullptr;
  int *import_procs = nullptr, *import_parts = nullptr;
  int *export_procs = nullptr, *export_parts = nullptr;
  const int rc =
      Zoltan_LB_Partition(zz.get(), &changes, &gid_entries, &lid_entries, &imports, &import_gids,
                          &import_lids, &import_procs, &import_parts, &exports, &export_gids,
                          &export_lids, &export_procs, &export_parts);
  std::vector<int> part(static_cast<std::size_t>(g.vertices()), -1);
  bool complete = rc == ZOLTAN_OK || rc == ZOLTAN_WARN;
  if (complete && exports == g.vertices()) {
    // RETURN_LISTS=PARTS: the export list holds every vertex with its new part.
    for (int k = 0; k < exports; ++k) {
      const ZOLTAN_ID_TYPE v = export_gids[k];
      if (v >= part.size() || part[v] != -1 || export_parts[k] < 0 ||
          static_cast<std::size_t>(export_parts[k]) >= parts) {
        complete = false;
        break;
      }
      part[v] = export_parts[k];
    }
  } else {
    complete = false;
  }
  Zoltan_LB_Free_Part(&import_gids, &import_lids, &import_procs, &import_parts);
  Zoltan_LB_Free_Part(&export_gids, &export_lids, &export_procs, &export_parts);
  ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  check(rc, "LB_Partition");
  if (!complete) {
    throw std::logic_error("hypergraph: Zoltan did not return one valid part per object");
  }
  return part;
}

class HypergraphStrategy final : public Strategy {
 public:
  explicit HypergraphStrategy(const ParamValues& params) {
    settings_.imbalance = params.get("imbalance");
    settings_.seed = static_cast<unsigned>(params.get("seed"));
    settings_.repartition = params.get("repartition") != 0.0;
    settings_.repart_multiplier = params.get("repart_multiplier");
  }

  Solution solve(const Instance& instance) override {
    const Assignment current = current_assignment(instance);
    Assignment a = current;
    const std::size_t pes = instance.pes.size();
    const bool any_migratable = std::any_of(instance.objects.begin(), instance.objects.end(),
                                            [](const Object& o) { return o.migratable; });
    if (pes <= 1 || !any_migratable) {
      for (std::size_t i = 0; i < a.pe.size(); ++i) {
        if (instance.objects[i].migratable) a.pe[i] = 0;
      }
      StrategyStats stats = {{"moves", count_moves(current, a)}, {"partition_ms", 0.0}};
      return {std::move(a), std::move(stats)};
    }
    const std::vector<Hyperedge> nets = communication_nets(instance);
    Hypergraph g = build_hypergraph(instance, nets);
    double ms = 0.0;
    const std::vector<int> part = partition(g, pes, settings_, ms);
    for (std::size_t i = 0; i < a.pe.size(); ++i) {
      // Fixed vertices keep their part; the check keeps the contract whatever Zoltan does.
      if (instance.objects[i].migratable) a.pe[i] = part[i];
    }
    const double zoltan_cut = static_cast<double>(hypergraph_cut(nets, a));
    const std::size_t balance_moves = repair_balance(instance, nets, settings_.imbalance, a);
    // Measured before `a` moves into the solution (braced initialisers run in order).
    StrategyStats stats = {
        {"moves", count_moves(current, a)},
        {"partition_ms", ms},
        {"nets", static_cast<double>(nets.size())},
        {"nets_from_edges", instance.hyperedges.empty() ? 1.0 : 0.0},
        {"hypergraph_cut_before", static_cast<double>(hypergraph_cut(nets, current))},
        {"zoltan_cut", zoltan_cut},
        {"balance_moves", static_cast<double>(balance_moves)},
        {"hypergraph_cut", static_cast<double>(hypergraph_cut(nets, a))}};
    return {std::move(a), std::move(stats)};
  }

 private:
  Settings settings_;
};

}  // namespace

StrategyInfo hypergraph() {
  return {"hypergraph",
          "Zoltan PHG hypergraph partition of objects (weighted by load) and their nets "
          "(hyperedges, or one per sending object from the edges), parts sized to PE capacity; "
          "repartitions from the current placement to keep migrations few",
          {{"imbalance", "allowed max part weight over its target (Zoltan IMBALANCE_TOL)", 1.05,
            1.001, 2.0, false},
           {"seed", "seed of Zoltan's random numbers", 1.0, 0.0, 2147483647.0, true},
           {"repartition",
            "1: repartition from the current placement, weighing migration against the cut; 0: "
            "partition afresh (part p on PE p)",
            1.0, 0.0, 1.0, true},
           {"repart_multiplier",
            "steps the cut is paid for each migration (Zoltan PHG_REPART_MULTIPLIER): higher "
            "favours a lower cut over fewer migrations",
            100.0, 1.0, 1e6, false}},
          [](const ParamValues& p) { return std::make_unique<HypergraphStrategy>(p); }};
}

}  // namespace vela::lb::builtin
