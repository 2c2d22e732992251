// Measures of a placement (docs/user-guide.md, *Metrics*). PE loads are times: background + work /
// speed.
#pragma once

#include <cstdint>
#include <vector>

#include "vela/lb/model/instance.hpp"

namespace vela::lb {

// Time of each PE under `assignment`: background + (sum of its objects' loads) / speed.
std::vector<double> pe_loads(const Instance& instance, const Assignment& assignment);

// Time each PE spends on work that cannot move: background + its non-migratable objects / speed.
std::vector<double> fixed_pe_loads(const Instance& instance);

// The time T at which every PE would finish if the migratable work could be split freely over
// the PEs on top of their fixed loads: sum_p speed_p * max(0, T - fixed_p) = migratable work.
// No placement has a lower maximum PE load; with equal speeds and nothing pinned it is the mean
// PE load. Strategies measure their tolerances against it.
double ideal_time(const Instance& instance);

struct LoadStats {
  double max = 0.0;
  double mean = 0.0;
  double imbalance = 0.0;  // lambda = max / mean - 1 (0 when mean is 0)
  double max_over_avg = 0.0;
  double stddev = 0.0;           // population standard deviation
  double skewness = 0.0;         // g1 = m3 / m2^1.5 (0 when m2 is 0)
  double excess_kurtosis = 0.0;  // g2 = m4 / m2^2 - 3 (0 when m2 is 0)
};

LoadStats load_stats(const std::vector<double>& loads);

// Pearson correlation of the ranks of two equally long vectors (ties get their mean rank).
// Throws std::invalid_argument when the sizes differ or are below 2.
double rank_correlation(const std::vector<double>& a, const std::vector<double>& b);

struct MigrationStats {
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
};

MigrationStats migrations(const Instance& instance, const Assignment& from, const Assignment& to);

struct CommCut {
  std::uint64_t bytes = 0;  // between objects on different PEs
  std::uint64_t messages = 0;
  std::uint64_t cluster_bytes = 0;  // between objects on PEs of different clusters (WAN)
  std::uint64_t cluster_messages = 0;
};

CommCut comm_cut(const Instance& instance, const Assignment& assignment);

// The hypergraph cut (connectivity - 1): the sum over Instance::hyperedges of
// bytes * (number of distinct PEs among the pins - 1), the bytes copied to PEs other than one
// holder each step. 0 for an instance without hyperedges (see communication_nets for the nets
// of its edges). O(pins + PEs).
std::uint64_t hypergraph_cut(const Instance& instance, const Assignment& assignment);
// The same for any nets over the objects `assignment` places (communication_nets, say).
std::uint64_t hypergraph_cut(const std::vector<Hyperedge>& hyperedges,
                             const Assignment& assignment);

// Foster's model for moving data: T = startup + per_byte * bytes.
struct CommModel {
  double startup = 0.0;   // T_s, seconds per message
  double per_byte = 0.0;  // t_w, seconds per byte
};

// Predicted step time: the maximum over PEs of the PE's load plus the cost, under
// `model`, of the messages and bytes its objects send to objects on other PEs.
double predicted_step_time(const Instance& instance, const Assignment& assignment,
                           const CommModel& model);

// Cost of a migration under Foster's model: startup per migrated object plus per_byte * bytes.
double migration_time(const MigrationStats& moved, const CommModel& model);

}  // namespace vela::lb
