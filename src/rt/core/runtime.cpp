// Runtime start-up and shutdown, collections, sending.
#include "vela/rt/runtime.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "core/runtime_state.hpp"
#include "services/timeline.hpp"
#include "vela/lb/generate/generate.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::rt {

namespace detail {

void start_pes(RuntimeState& state);
void join_pes(RuntimeState& state);
void place_pes(RuntimeState& state);

// The trace file: this process's; across processes, process 0 writes every process's events
// into the one file (each process's PEs under its own pid).
void write_trace(RuntimeState& state) {
  const std::string& path = state.options.trace;
  if (!state.transport) {
    state.timeline->write(path);
    return;
  }
  // Each process renders its part (a file is the Timeline's one output), process 0 joins them.
  const std::string own = path + ".process" + std::to_string(state.layout.process);
  state.timeline->write(own);
  std::string text;
  {
    std::ifstream in(own, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::filesystem::remove(own);
  const std::vector<std::string> parts = state.transport->gather(text);
  if (parts.empty()) return;
  // Every part is {"displayTimeUnit":"ms","traceEvents":[\n EVENTS \n]}\n.
  constexpr std::string_view head = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  constexpr std::string_view tail = "\n]}\n";
  std::string merged(head);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const std::string& part = parts[p];
    if (part.size() < head.size() + tail.size() || part.compare(0, head.size(), head) != 0) {
      throw std::runtime_error("--trace " + path + ": process " + std::to_string(p) +
                               "'s part is not a trace");
    }
    if (p > 0) merged += ",\n";
    merged.append(part, head.size(), part.size() - head.size() - tail.size());
  }
  merged += tail;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << merged;
  if (!out.flush()) throw std::runtime_error("--trace " + path + ": cannot write");
}

CollectionInfo& RuntimeState::collection(CollectionId id) {
  if (id >= collection_count.load(std::memory_order_acquire)) {
    throw std::logic_error("no collection " + std::to_string(id));
  }
  return *collections[id];
}

namespace {

RuntimeState& running_state(const char* what) {
  PeState* pe = this_pe();
  if (pe == nullptr) {
    throw std::logic_error(std::string(what) +
                           ": only main and entry methods, on a PE, can do this");
  }
  return *pe->runtime;
}

}  // namespace

CollectionId create_collection(RuntimeState& state, const std::string& name, const Shape& shape,
                               std::vector<PeId> placement, FactoryId factory,
                               std::vector<std::byte> arguments, bool dynamic) {
  if (shape.dims < 1 || shape.dims > 3 || shape.nx < 1 || shape.ny < 1 || shape.nz < 1) {
    throw std::invalid_argument("collection " + name +
                                ": shape must have 1 to 3 dimensions of "
                                "extent >= 1");
  }
  if (shape.size() > (std::uint64_t{1} << 32)) {
    throw std::invalid_argument("collection " + name + ": more than 2^32 elements");
  }
  const std::size_t count = state.collection_count.load(std::memory_order_relaxed);
  if (count == RuntimeState::max_collections) {
    throw std::invalid_argument("collection " + name + ": a run has at most " +
                                std::to_string(RuntimeState::max_collections) + " collections");
  }
  const auto id = static_cast<CollectionId>(count);
  auto info = std::make_unique<CollectionInfo>();
  info->id = id;
  info->name = name;
  info->shape = shape;
  info->geometry = shape;
  info->home = std::move(placement);
  info->factory = factory;
  info->arguments = std::move(arguments);
  info->dynamic = dynamic;
  init_membership(*info);
  BalancingSettings& lb = state.lb.settings;
  if (lb.strategy != nullptr) {
    info->lb.strategy =
        lb.strategy_made ? std::move(lb.strategy_made) : lb.strategy->make(lb.strategy_values);
    if (!state.options.lb_policy.empty()) {
      info->lb.policy = lb.policy_made ? std::move(lb.policy_made)
                                       : lb::make_policy(state.options.lb_policy, lb.policy_params);
    }
  }
  // The other processes learn it before any message about it leaves this one.
  if (state.transport) state.transport->publish_collection(*info);
  state.collections[count] = std::move(info);
  state.collection_count.store(count + 1, std::memory_order_release);
  if (!state.options.restart.empty()) {
    restore_collection(state, *state.collections[count]);
    return id;
  }
  if (dynamic) return id;  // no element until one is inserted
  for (PeId p = 0; p < state.pes; ++p) post_system(state, p, Kind::create, id, 0, {});
  return id;
}

void insert_element(CollectionId collection, const Index& index, PeId pe, FactoryId factory,
                    std::vector<std::byte> arguments) {
  RuntimeState& state = running_state("insert");
  const CollectionInfo& info = state.collection(collection);
  if (!info.dynamic) {
    throw std::logic_error("insert: collection " + info.name +
                           " is not dynamic (Context::create_dynamic)");
  }
  if (!info.shape.contains(index)) {
    throw std::out_of_range(
        "insert: collection " + info.name + ": index " + to_string(index, info.shape.dims) +
        " is outside its shape " +
        to_string({info.shape.nx, info.shape.ny, info.shape.nz}, info.shape.dims));
  }
  if (pe < -1 || pe >= state.pes) {
    throw std::out_of_range("insert: collection " + info.name + ": PE " + std::to_string(pe) +
                            " is outside 0.." + std::to_string(state.pes - 1) +
                            " (or -1: the index's home)");
  }
  post_system(state, 0, Kind::insert, collection, info.shape.linear(index),
              pup::pack(InsertRequest{pe, factory, std::move(arguments)}));
}

bool collection_dynamic(CollectionId collection) {
  return running_state("broadcast").collection(collection).dynamic;
}

void broadcast_packed(CollectionId collection, HandlerId handler,
                      std::vector<std::byte> arguments) {
  RuntimeState& state = running_state("broadcast");
  post_system(state, 0, Kind::broadcast, collection, 0,
              pup::pack(BroadcastRequest{handler, 0, std::move(arguments)}));
}

std::vector<PeId> initial_placement(const Shape& shape, InitialMap map, PeId pes) {
  const std::uint64_t n = shape.size();
  std::vector<PeId> pe(n);
  if (map == InitialMap::round_robin) {
    for (std::uint64_t i = 0; i < n; ++i)
      pe[i] = static_cast<PeId>(i % static_cast<std::uint64_t>(pes));
    return pe;
  }
  if (map == InitialMap::ranges) return lb::block_placement_1d(static_cast<std::int64_t>(n), pes);
  if (shape.dims == 2) return lb::block_placement_2d(shape.nx, shape.ny, pes);
  // 1-D ranges; 3-D: contiguous slabs of the linear (x fastest) order.
  return lb::block_placement_1d(static_cast<std::int64_t>(n), pes);
}

std::vector<PeId> initial_placement(const Shape& shape, const UserMap& map, PeId pes) {
  std::vector<PeId> pe(shape.size());
  for (std::uint64_t i = 0; i < pe.size(); ++i) {
    const Index index = shape.at(i);
    pe[i] = map(index, shape, pes);
    if (pe[i] < 0 || pe[i] >= pes) {
      throw std::invalid_argument("user map: element " + to_string(index, shape.dims) +
                                  " mapped to PE " + std::to_string(pe[i]) + ", expected 0 to " +
                                  std::to_string(pes - 1));
    }
  }
  return pe;
}

void mark_periodic(RuntimeState& state, CollectionId collection) {
  state.collection(collection).lb.periodic = true;
}

const Shape& collection_shape(CollectionId collection) {
  return running_state("shape").collection(collection).shape;
}

void set_collection_geometry(CollectionId collection, const Shape& geometry) {
  CollectionInfo& info = running_state("geometry").collection(collection);
  if (geometry.dims < 1 || geometry.dims > 3 || geometry.nx < 1 || geometry.ny < 1 ||
      geometry.nz < 1 || geometry.size() != info.shape.size()) {
    throw std::invalid_argument("collection " + info.name + ": a geometry of " +
                                to_string({geometry.nx, geometry.ny, geometry.nz}, geometry.dims) +
                                " for " + std::to_string(info.shape.size()) +
                                " elements; expected 1 to 3 sides whose product is "
                                "the element count");
  }
  const std::lock_guard lock(info.geometry_mutex);
  info.geometry = geometry;
  info.curve.reset();  // made again for the new coordinates
}

}  // namespace detail

PeId Context::pes() const {
  return state_.pes;
}

bool Context::restarted() const {
  return !state_.options.restart.empty();
}

Callback Context::callback(std::function<void(const std::vector<double>&)> function) {
  state_.reduction.callbacks.push_back(std::move(function));
  return {Callback::Kind::function,
          static_cast<std::uint32_t>(state_.reduction.callbacks.size() - 1), 0, 0};
}

Reducer Context::reducer(
    std::function<void(std::vector<double>&, const std::vector<double>&)> combine) {
  state_.reduction.reducers.push_back(std::move(combine));
  return {static_cast<std::uint32_t>(state_.reduction.reducers.size() - 1)};
}

void Context::exit(int code) {
  state_.exit_code = code;
  state_.exit_called = true;
  detail::stop_all(state_);
}

namespace {

// A hash of where the code sits: every executable mapping, its address range and file. Taken
// first thing, before MPI or hwloc load their plugins (each process may load those elsewhere;
// they never run on a rank's stack).
std::uint64_t code_layout() {
  std::ifstream maps("/proc/self/maps");
  std::uint64_t h = 14695981039346656037ull;
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode >> path;
    if (perms.size() < 3 || perms[2] != 'x') continue;
    for (const char c : range + " " + path) {
      h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
  }
  return h;
}

}  // namespace

Runtime::Runtime(Options options) : state_(std::make_unique<detail::RuntimeState>()) {
  state_->code_layout = code_layout();
  // Checked and parsed once; carried in state_->lb.settings to where strategies are made.
  state_->lb.settings = detail::parse_balancing(options);
  if (options.pin) state_->pinning = std::make_unique<Pinning>();
  const detail::ProcessLayout layout = detail::process_layout(
      options, state_->pinning ? state_->pinning->cores() : available_cores());
  options.pes = layout.pes;
  state_->options = std::move(options);
  state_->layout = layout;
  state_->pes = layout.pes;
  // More threads than cores: idle PEs yield. Across processes, the threads of the machine's
  // processes against the cores they may use together (mpirun usually binds each process to
  // a core of its own; with --mpi-progress thread each also has its communication thread).
  const PeId threads_per_process =
      layout.local_pes +
      (layout.processes > 1 && state_->options.mpi_progress == MpiProgress::thread ? 1 : 0);
  state_->oversubscribed = threads_per_process > available_cores();
  for (PeId p = 0; p < layout.local_pes; ++p) {
    auto pe = std::make_unique<detail::PeState>();
    pe->id = layout.first_pe + p;
    pe->runtime = state_.get();
    state_->pe.push_back(std::move(pe));
  }
  for (auto& pe : state_->pe) detail::prepare_rings(*pe, state_->pe.size());
  if (layout.processes > 1) {
    state_->transport = std::make_unique<detail::Transport>(*state_);
    state_->oversubscribed =
        state_->transport->node_oversubscribed(threads_per_process) || state_->oversubscribed;
  }
  detail::place_pes(*state_);
}

Runtime::~Runtime() = default;

PeId Runtime::pes() const {
  return state_->pes;
}

int Runtime::process() const {
  return state_->layout.process;
}

int Runtime::processes() const {
  return state_->layout.processes;
}

bool Runtime::same_on_every_process(std::uint64_t value) {
  if (!state_->transport) return true;
  // Two exact halves: a double holds any 32-bit value.
  const std::vector<double> mine{static_cast<double>(value >> 32),
                                 static_cast<double>(value & 0xffffffffu)};
  const std::vector<double> all = state_->transport->allgather(mine);
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i] != mine[i % 2]) return false;
  }
  return true;
}

bool Runtime::same_code_on_every_process() {
  return same_on_every_process(state_->code_layout);
}

std::string RunStats::balancing_line() const {
  std::string line;
  if (lb_steps > 0) {
    const auto steps = static_cast<double>(lb_steps);
    line = fmt::format(
        "lb: {:.3f} ms collecting, {:.3f} ms in the strategy per step, {:.3f} ms migrating per "
        "step\n",
        1e3 * lb_collect_seconds / steps, 1e3 * lb_seconds / steps,
        1e3 * lb_migrate_seconds / steps);
  }
  if (lb_async_started > 0) {
    line += fmt::format(
        "lb async: {} handed over, {} applied, {} skipped while busy, {} never applied\n",
        lb_async_started, lb_async_applied, lb_async_skipped, lb_async_unapplied);
  }
  return line;
}

const RunStats& Runtime::stats() const {
  return state_->stats;
}

const Options& Runtime::options() const {
  return state_->options;
}

int Runtime::run(const std::function<void(Context&)>& main) {
  detail::RuntimeState& state = *state_;
  if (state.start != detail::Clock::time_point{}) {
    throw std::logic_error("Runtime::run: a runtime runs once; make a new one");
  }
  state.start = detail::Clock::now();
  if (state.transport) {
    // One origin for every process's trace: process 0's start (the monotonic clock is the
    // machine's, so this aligns processes of one machine).
    std::int64_t origin = state.start.time_since_epoch().count();
    state.transport->broadcast(origin);
    state.start = detail::Clock::time_point(detail::Clock::duration(origin));
  }
  if (!state.options.trace.empty()) {
    state.timeline =
        std::make_unique<trace::Timeline>(state.pes, state.start, state.layout.process);
    state.timeline->set_local_pes(state.layout.first_pe, state.layout.local_pes);
  }
  struct Main {
    detail::RuntimeState* state;
    const std::function<void(Context&)>* main;
  } call{&state, &main};
  detail::Message* m = detail::new_message();
  m->kind = detail::Kind::call;
  ::new (m->storage) detail::CallArgs{[](void* context) {
                                        auto* c = static_cast<Main*>(context);
                                        Context ctx(*c->state);
                                        (*c->main)(ctx);
                                      },
                                      &call};
  m->ops = &detail::call_args;
  if (state.layout.first_pe == 0) {
    detail::post(state, 0, m);
  } else {
    detail::free_message(m);  // main runs in process 0 only
  }
  if (state.transport) state.transport->start();
  detail::remember_process_cores(state);  // before start_pes pins anything
  detail::start_pes(state);
  detail::join_pes(state);

  for (const auto& pe : state.pe) {
    state.stats.messages += pe->stats.messages;
    state.stats.forwarded += pe->stats.forwarded;
    state.stats.migrations += pe->stats.migrations;
    state.stats.migrated_bytes += pe->stats.migrated_bytes;
    state.stats.wan_messages += pe->stats.wan_messages;
    state.stats.wan_bytes += pe->stats.wan_bytes;
    state.stats.grid_messages += pe->stats.grid_messages;
    state.stats.shared_cores += pe->stats.shared_cores;
    state.stats.parks += pe->stats.parks;
    state.stats.compact_in_place += pe->stats.compact_in_place;
  }
  if (state.transport) state.transport->finish();  // sums the statistics over the processes
  if (state.timeline) detail::write_trace(state);
  if (state.error) std::rethrow_exception(state.error);
  // At quiescence nothing may still wait to be inserted (Context::exit drops it, as it drops
  // queued messages).
  if (!state.exit_called && state.layout.first_pe == 0) detail::check_membership_at_end(state);
  return state.exit_code;
}

}  // namespace vela::rt
