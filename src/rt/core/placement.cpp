// Clusters and speeds of the run's PEs at start-up: from the options, from
// the machines the processes run on, by latency probing, or by a calibrated kernel.
#include <sched.h>

#include <stdexcept>

#include "core/runtime_state.hpp"

namespace vela::rt::detail {

namespace {

// Every PE's cluster: each process's PEs share their process's cluster when clusters are found
// at start; a map or counts are read by process 0 and its answer (or its error) broadcast, so
// that every process stops with the same message.
std::vector<std::int32_t> find_clusters(RuntimeState& state) {
  const Options& o = state.options;
  const auto pes = static_cast<std::size_t>(state.pes);
  if (!state.transport) {
    if (clusters_found_at_start(o.clusters)) return std::vector<std::int32_t>(pes, 0);
    return parse_clusters(o.clusters, state.pes);
  }
  if (o.clusters.empty() || clusters_found_at_start(o.clusters)) {
    const std::vector<std::int32_t> of_process =
        o.clusters == "probe" ? state.transport->probe_clusters(o.cluster_threshold_us)
                              : state.transport->node_clusters();
    std::vector<std::int32_t> cluster(pes);
    for (std::size_t p = 0; p < pes; ++p) {
      cluster[p] = of_process[p / static_cast<std::size_t>(state.layout.local_pes)];
    }
    return cluster;
  }
  std::string text;
  if (state.layout.process == 0) {
    try {
      for (const std::int32_t c : parse_clusters(o.clusters, state.pes)) {
        text += std::to_string(c) + ",";
      }
      text = "ok:" + text;
    } catch (const std::invalid_argument& e) {
      text = std::string("error:") + e.what();
    }
  }
  state.transport->broadcast(text);
  if (text.rfind("error:", 0) == 0) throw std::invalid_argument(text.substr(6));
  std::vector<std::int32_t> cluster;
  cluster.reserve(pes);
  for (std::size_t at = 3; at < text.size();) {
    const std::size_t comma = text.find(',', at);
    cluster.push_back(static_cast<std::int32_t>(std::stoi(text.substr(at, comma - at))));
    at = comma + 1;
  }
  return cluster;
}

// The calibration kernel's seconds on each of this process's PEs, run on the PE's core when
// PEs are pinned (the calling thread's binding is put back after).
std::vector<double> local_calibration(RuntimeState& state) {
  std::vector<double> seconds;
  if (!state.pinning) {
    seconds.assign(static_cast<std::size_t>(state.layout.local_pes), calibration_seconds());
    return seconds;
  }
  cpu_set_t saved;
  CPU_ZERO(&saved);
  const bool restore = sched_getaffinity(0, sizeof saved, &saved) == 0;
  for (const auto& pe : state.pe) {
    state.pinning->pin(pe->id, nullptr);
    seconds.push_back(calibration_seconds());
  }
  if (restore) sched_setaffinity(0, sizeof saved, &saved);
  return seconds;
}

}  // namespace

void place_pes(RuntimeState& state) {
  const Options& o = state.options;
  state.topology.cluster = find_clusters(state);
  std::int32_t clusters = 1;
  for (const std::int32_t c : state.topology.cluster) clusters = std::max(clusters, c + 1);
  state.topology.clusters = clusters;
  if (o.wan_latency_ms > 0.0 && clusters < 2) {
    throw std::invalid_argument(
        "--wan-latency " + std::to_string(o.wan_latency_ms) +
        ": the run has one cluster, so no message crosses a WAN (give --clusters)");
  }
  state.topology.wan_ticks = tick_clock::from_seconds(o.wan_latency_ms * 1e-3);
  state.topology.grid_queue = clusters > 1 && o.grid_queue_period > 0;

  bool emulated = false;
  if (o.pe_speed.empty()) {
    state.topology.speed.assign(state.topology.cluster.size(), 1.0);
  } else if (o.pe_speed == "measure") {
    std::vector<double> seconds = local_calibration(state);
    if (state.transport) seconds = state.transport->allgather(seconds);
    state.topology.speed = speeds_from_seconds(seconds);
  } else {
    state.topology.speed = parse_speeds(o.pe_speed, state.topology.cluster);
    emulated = true;
  }
  for (auto& pe : state.pe) {
    const auto p = static_cast<std::size_t>(pe->id);
    pe->cluster = state.topology.cluster[p];
    pe->stretch = emulated ? 1.0 / state.topology.speed[p] - 1.0 : 0.0;
  }
}

}  // namespace vela::rt::detail
