// Where PEs are and how fast they run: the cluster of every PE and its speed
// relative to the fastest. Only src/rt sees this.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "vela/rt/index.hpp"

namespace vela::rt::detail {

// Every PE of the run: its cluster and speed (core/placement.cpp finds them at start-up), and
// what crossing clusters costs.
struct Topology {
  std::vector<std::int32_t> cluster;  // by PE id
  std::int32_t clusters = 1;
  std::vector<double> speed;  // by PE id, the fastest 1
  Ticks wan_ticks = 0;        // the delay device's latency; 0: none
  bool grid_queue = false;    // several clusters and --grid-queue-period > 0
};

// The cluster of each of `pes` PEs from --clusters counts ("K1,K2,...", in PE order) or a map
// file (one "PE CLUSTER" line per PE; '#' starts a comment). Cluster ids are renumbered
// 0..C-1 in increasing order. Throws std::invalid_argument naming --clusters and what is
// wrong (a PE that does not exist, one missing or listed twice, counts that do not add up).
std::vector<std::int32_t> parse_clusters(const std::string& spec, PeId pes);

// True for the --clusters values that are not a map or counts ("probe", "node").
bool clusters_found_at_start(const std::string& spec);

// Speeds from --pe-speed numbers: one for every PE, one per PE (when there are as many as
// PEs) or one per cluster; divided by the largest, so the fastest PE has speed 1. Throws
// std::invalid_argument naming --pe-speed for anything but positive finite decimals in one of
// those counts.
std::vector<double> parse_speeds(const std::string& spec, const std::vector<std::int32_t>& cluster);

// Seconds the calibration kernel takes on the calling thread (the least of a few runs).
double calibration_seconds();

// Speeds from the kernel's seconds on each PE: the fastest 1, the others its time over theirs,
// rounded to 1/20 (differences under 5% are noise on a shared machine), at least 0.05.
std::vector<double> speeds_from_seconds(const std::vector<double>& seconds);

}  // namespace vela::rt::detail
