// The state of a run (RuntimeState) and of each collection (CollectionInfo), composed of the
// core's own and each service's part; the PEs' in core/pe.hpp. Only src/rt sees it (the rank
// layer reaches the runtime through vela/rt/rank_seam.hpp).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/pe.hpp"
#include "core/pinning.hpp"
#include "core/scheduler.hpp"
#include "core/topology.hpp"
#include "services/checkpoint.hpp"
#include "services/lb_async.hpp"
#include "services/lb_manager.hpp"
#include "services/location.hpp"
#include "services/membership.hpp"
#include "services/reduction.hpp"
#include "transport/transport.hpp"
#include "vela/rt/rank_seam.hpp"
#include "vela/rt/runtime.hpp"

namespace vela::rt::trace {
class Timeline;
}

namespace vela::rt::detail {

struct CollectionInfo {
  CollectionId id = 0;
  std::string name;
  Shape shape;
  std::vector<PeId> home;  // initial PE, which tracks where the element is
  FactoryId factory = 0;
  std::vector<std::byte> arguments;
  // Context::create_dynamic's: elements come and go (Proxy::insert, ElementBase::destroy).
  bool dynamic = false;
  // Every process: the coordinates the strategies see, each element at geometry.at(linear):
  // the shape until the program declares another grid of the same size
  // (set_collection_geometry, e.g. at MPI_Cart_create); and the elements' places on the Hilbert
  // curve for it (hilbert-distributed's agents), made by the first of its PEs to need them.
  // Both under geometry_mutex: a rank may set the geometry on one PE while another PE reads it.
  std::mutex geometry_mutex;
  Shape geometry;
  std::shared_ptr<const lb::CurvePositions> curve;
  int curve_bits = 0;
  // Root (PE 0) only, one part per service:
  LbRound lb;                                          // services/lb_manager.hpp
  CheckpointRound checkpoint;                          // services/checkpoint.hpp
  std::map<std::uint32_t, ReductionRound> reductions;  // services/reduction.hpp
  Membership membership;                               // services/membership.hpp (dynamic)
};

struct RuntimeState {
  Options options;
  PeId pes = 1;  // of the whole run
  ProcessLayout layout;
  std::uint64_t code_layout = 0;  // where the code sat when the runtime was made (a hash)
  std::vector<std::unique_ptr<PeState>> pe;  // this process's, by PE id - layout.first_pe
  std::unique_ptr<Transport> transport;      // several processes; null: one
  Clock::time_point start;
  bool oversubscribed = false;  // more PEs than cores: idle PEs yield instead of pausing
  // An idle PE's windows (options.spin_us; scheduler.cpp's pause_seconds), in ticks, worked
  // out once rather than at every wait.
  Ticks spin_ticks = 0;
  Ticks max_spin_ticks = 0;
  Ticks pause_ticks = 0;

  // Appended by main (on PE 0) and read by every PE without a lock: a slot is written before
  // the count that publishes it.
  static constexpr std::size_t max_collections = ElementTables::max_collections;
  std::array<std::unique_ptr<CollectionInfo>, max_collections> collections;
  std::atomic<std::size_t> collection_count{0};

  Reductions reduction;  // callbacks and custom reducers (services/reduction.hpp), PE 0 only

  std::atomic<std::uint64_t> external_sent{0};  // messages posted by threads that are not PEs
  std::atomic<bool> stopping{false};
  int exit_code = 0;
  bool exit_called = false;  // Context::exit (else the run ends at quiescence)
  // Watches a stopped run's PEs (scheduler.cpp, watch_the_stop): set by the first stop after
  // the PEs started.
  std::atomic<bool> pes_started{false};
  std::shared_ptr<struct StopWatch> stop_watch;
  bool pes_joined = false;      // join_pes is past joining: a stop from now on needs no watchdog
  std::mutex stop_watch_mutex;  // guards both
  std::mutex error_mutex;
  std::exception_ptr error;

  Topology topology;  // clusters and speeds of every PE of the run (core/topology.hpp)

  std::unique_ptr<Pinning> pinning;  // with --no-pin: none
  Balancing lb;  // the balancing service's settings and clock (services/lb_manager.hpp)
  // Asynchronous balancing's thread (services/lb_async.hpp), PE 0's process, made on the first
  // job; closed once the PEs stopped (join_pes). The process's cores, taken before any PE was
  // pinned: that thread runs on any of them.
  std::unique_ptr<AsyncBalancer> lb_async;
  cpu_set_t process_cores{};
  bool process_cores_known = false;
  std::unique_ptr<trace::Timeline> timeline;  // with --trace (services/timeline.hpp)
  RunStats stats;

  CollectionInfo& collection(CollectionId id);
  // Records the first error and stops every PE.
  void fail(std::exception_ptr e);
};

}  // namespace vela::rt::detail

// After RuntimeState: run_entry's body reads it.
#include "core/run_entry.hpp"  // IWYU pragma: export
