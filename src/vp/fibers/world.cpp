// vp::run: the ranks' collection, its start, the end of the run (every rank returned, or a
// deadlock reported and the blocked ranks unwound), and the calls about the rank itself.
#include <unistd.h>
#include <cmath>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "fibers/faults.hpp"
#include "fibers/rank.hpp"
#include "image/program_image.hpp"
#include "memory/active_heap.hpp"
#include "vela/rt/rank_seam.hpp"

namespace vela::vp {

using namespace detail;

namespace {

thread_local RunInfo last;

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string describe(const RankContext& rank) {
  std::string s = "rank " + std::to_string(rank.rank);
  switch (rank.state) {
    case RankState::created:
      return s + " never started";
    case RankState::at_sync:
      return s + " waits in migrate()";
    case RankState::yielded:
      return s + " waits in yield()";
    case RankState::blocked: {
      s += " waits in " + std::string(rank.waiting_in);
      if (rank.waiting_collective) return s + "() (a collective)";
      s += "(source ";
      s += rank.waiting_source == any_source ? "any" : std::to_string(rank.waiting_source);
      s += ", tag ";
      s += rank.waiting_tag == any_tag ? "any" : std::to_string(rank.waiting_tag);
      return s + ")";
    }
    default:
      return s;
  }
}

// Unwinds every rank that did not return (their frames' destructors run), on this thread.
void cancel(World& world) {
  for (RankContext* rank : world.contexts) {
    if (rank == nullptr || rank->state == RankState::finished ||
        rank->state == RankState::created) {
      continue;
    }
    rank->cancelled = true;
    resume(*rank);
  }
}

void record(const World& world) {
  last = RunInfo{};
  last.ranks = world.size;
  last.migrations = world.migrations.load();
  for (const World::PeLocal& pe : world.here) {
    last.handoffs += pe.handoffs;
    last.in_place += pe.in_place;
    last.shared_copies += pe.shared_copies;
    last.ready_passes += pe.ready_passes;
  }
  for (const RankContext* rank : world.contexts) {
    if (rank == nullptr) continue;
    last.context_switches += rank->switches;
    last.stack_bytes_touched += rank->stack_resident;
  }
}

// With heaps, what a rank's code allocates comes from its slot. The C library allocates
// stdout's and stdin's buffers on their first use, which may be in a rank: that buffer would
// then live in the rank's heap and go when the rank leaves or ends (with the output in it).
// Give them their buffers now, when not done yet.
void give_stdio_buffers() {
  static char out[BUFSIZ];
  static char in[BUFSIZ];
  if (stdout->_IO_buf_base == nullptr) {
    setvbuf(stdout, out, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, sizeof out);
  }
  if (stdin->_IO_buf_base == nullptr) setvbuf(stdin, in, _IOFBF, sizeof in);
}

// Ranks over several processes: what moving them between processes needs, checked in every
// process alike (each answers the same collective calls, so all stop with the same error).
void check_across_processes(rt::Runtime& runtime, const World& world) {
  if (!runtime.same_on_every_process(world.stacks->at_fixed_address() ? 1 : 0) ||
      !world.stacks->at_fixed_address()) {
    throw Error(
        "vela::vp::run: ranks over several processes need their slots at the same "
        "address in every process, and a process could not reserve it (a sanitizer "
        "build, or the address is taken)");
  }
  if (!runtime.same_code_on_every_process()) {
    throw Error(
        "vela::vp::run: ranks move between processes only when the program's code sits "
        "at the same addresses in every process, and here it does not (address-space "
        "randomization is on): start each process under `setarch -R`, as in `mpirun -np " +
        std::to_string(runtime.processes()) +
        " setarch -R ./program` (programs linked with vela::mpi_main do this themselves "
        "where the system lets them)");
  }
}

void check_checkpoints(const World& world) {
  if (!world.stacks->at_fixed_address() || !heap_routing_available()) {
    throw Error(
        "--checkpoint/--restart: ranks are checkpointed whole (stack and heap), which needs "
        "their slots at a fixed address and their allocations routed to their heaps, and this "
        "program lacks one of them (a sanitizer build, a program that does not call "
        "vela::vp::prepare_ranks_across_processes, or the address is taken)");
  }
}

// Every open rank slot splits the process's reservation into more kernel memory mappings (2
// per rank: its stack, context and heap, and the inaccessible rest; 3 more for an instance of a
// program image, 1 for a tail), and the kernel refuses a process more than vm.max_map_count of
// them: refused up front, with that reason, rather than failing at some rank's start.
void check_map_count(std::int64_t ranks_here, Privatization privatization) {
  std::ifstream limit_file("/proc/sys/vm/max_map_count");
  std::int64_t limit = 0;
  if (!(limit_file >> limit) || limit <= 0) return;  // not Linux, or not readable: no check
  std::int64_t in_use = 0;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) ++in_use;
  const bool image = program_image() != nullptr;
  const std::int64_t per_rank = 2 + (image && privatization == Privatization::automatic ? 3
                                     : image && privatization == Privatization::tls     ? 1
                                                                                        : 0);
  const std::int64_t needed = in_use + ranks_here * per_rank;
  if (needed <= limit) return;
  throw Error("--vp: this process would hold " + std::to_string(ranks_here) + " ranks, about " +
              std::to_string(needed) + " memory mappings (" + std::to_string(per_rank) +
              " per rank), more than the system allows a process (vm.max_map_count = " +
              std::to_string(limit) + "): at most about " +
              std::to_string((limit - in_use) / per_rank) +
              " ranks per process here; use more processes under mpirun, or raise "
              "vm.max_map_count (sysctl)");
}

std::array<std::int32_t, 3> parse_grid(const std::string& text) {
  std::array<std::int32_t, 3> grid{1, 1, 1};
  std::size_t at = 0;
  int dims = 0;
  while (true) {
    std::size_t end = at;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    const std::string digits = text.substr(at, end - at);
    if (digits.empty() || digits.size() > 8 || dims == 3 || std::stol(digits) < 1) {
      throw Error("--vp-grid '" + text + "': expected X, XxY or XxYxZ with positive integers");
    }
    grid[static_cast<std::size_t>(dims++)] = static_cast<std::int32_t>(std::stol(digits));
    if (end == text.size()) break;
    if (text[end] != 'x') {
      throw Error("--vp-grid '" + text + "': expected X, XxY or XxYxZ with positive integers");
    }
    at = end + 1;
  }
  return grid;
}

// --vp-balance-every CALL:K.
std::pair<BalanceAt, int> parse_balance_every(const std::string& text) {
  const std::string expected = "--vp-balance-every '" + text +
                               "': expected CALL:K, CALL allreduce or barrier and K a positive "
                               "integer (e.g. allreduce:10)";
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw Error(expected);
  const std::string call = text.substr(0, colon);
  const std::string digits = text.substr(colon + 1);
  if (call != "allreduce" && call != "barrier") throw Error(expected);
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos || std::stol(digits) < 1) {
    throw Error(expected);
  }
  return {call == "allreduce" ? BalanceAt::allreduce : BalanceAt::barrier,
          static_cast<int>(std::stol(digits))};
}

}  // namespace

void set_program_ranks(Options& options, int ranks) {
  if (ranks > 0 && options.ranks > 0 && ranks != options.ranks) {
    throw std::invalid_argument("--ranks " + std::to_string(ranks) + " and --vp " +
                                std::to_string(options.ranks) + " disagree: give one of them");
  }
  if (ranks > 0) options.ranks = ranks;
}

void set_program_grid(Options& options, const std::array<std::int32_t, 3>& grid) {
  const std::array<std::int32_t, 3> none{0, 0, 0};
  if (options.grid != none && options.grid != grid) {
    throw std::invalid_argument(
        "--vp-grid " + std::to_string(options.grid[0]) + "x" + std::to_string(options.grid[1]) +
        "x" + std::to_string(options.grid[2]) + ": the program splits its ranks into " +
        std::to_string(grid[0]) + " x " + std::to_string(grid[1]) + " x " +
        std::to_string(grid[2]) + " blocks; leave --vp-grid out (the program gives its grid)");
  }
  options.grid = grid;
}

void add_vp_options(CLI::App& app, Options& options) {
  app.add_option("--vp", options.ranks, "Ranks (virtual processors) over the PEs; 0 = one per PE")
      ->check(CLI::Range(0, 1 << 24));
  app.add_option("--vp-stack", options.stack_bytes,
                 "Bytes of each rank's stack (suffixes k, m: 1m, the default)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::size_t{16} * 1024, std::size_t{1} << 32));
  app.add_option("--vp-privatize", options.privatize,
                 "What each rank owns of the program's globals: auto (all of them: the default "
                 "for programs built by vela-mpicc/vela-mpicxx), tls (its thread_local ones), "
                 "copy (those registered with vela::vp::register_global) or none")
      ->check(CLI::IsMember({"auto", "tls", "copy", "none"}));
  app.add_flag("--vp-tls-globals", options.tls_globals,
               "Give each rank its own copy of the program's thread_local variables (the same "
               "as --vp-privatize tls)");
  app.add_option("--vp-map", options.map, "Initial placement of ranks: block | round-robin")
      ->check(CLI::IsMember({"block", "round-robin"}));
  app.add_option("--vp-heap", options.heap_bytes,
                 "Address space of each rank's heap, which moves with it between processes "
                 "(suffixes k, m, g; default 64m across processes, none in one)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 40));
  app.add_option_function<std::string>(
         "--vp-grid",
         [&options](const std::string& text) {
           // A parse error like the other options' (programs report CLI11's errors).
           try {
             options.grid = parse_grid(text);
           } catch (const Error& e) {
             throw CLI::ValidationError(e.what());
           }
         },
         "Grid of ranks the program decomposes over, X[xY[xZ]] (rank r at r % X, r / X % Y, "
         "r / XY): coordinates for geometric strategies and the block map")
      ->type_name("XxYxZ");
  app.add_option_function<std::string>(
         "--vp-balance-every",
         [&options](const std::string& text) {
           try {
             std::tie(options.balance_at, options.balance_every) = parse_balance_every(text);
           } catch (const Error& e) {
             throw CLI::ValidationError(e.what());
           }
         },
         "A balancing point (as at MPI_Migrate) after every K-th CALL on MPI_COMM_WORLD, CALL "
         "allreduce or barrier: balances programs that never call MPI_Migrate")
      ->type_name("CALL:K");
}

namespace {

// The ranks' collection shape: a line, or the program's grid (--vp-grid) when it numbers them.
rt::Shape rank_shape(const Options& options, int size) {
  const auto& g = options.grid;
  if (g[0] == 0 && g[1] == 0 && g[2] == 0) return rt::Shape::line(size);
  if (g[0] < 1 || g[1] < 1 || g[2] < 1) {
    throw Error("--vp-grid: every side must be at least 1");
  }
  const std::int64_t cells = std::int64_t{g[0]} * g[1] * g[2];
  if (cells != size) {
    throw Error("--vp-grid " + std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" +
                std::to_string(g[2]) + ": " + std::to_string(cells) + " cells for " +
                std::to_string(size) + " ranks; expected their product to be the rank count");
  }
  if (g[2] > 1) return rt::Shape::box(g[0], g[1], g[2]);
  return rt::Shape::grid(g[0], g[1]);
}

}  // namespace

RunInfo last_run() {
  return last;
}

int run(rt::Runtime& runtime, const Options& options, const std::function<void()>& body) {
  if (options.ranks < 0) {
    throw Error("--vp " + std::to_string(options.ranks) + ": the rank count cannot be negative");
  }
  if (options.map != "block" && options.map != "round-robin") {
    throw Error("--vp-map '" + options.map + "': expected block or round-robin");
  }
  if (!body) throw Error("vela::vp::run: no rank body given");
  const Privatization privatization = choose_privatization(options);
  // The TLS method of a program linked with its main (a loaded image keeps its thread-locals
  // in each rank's tail instead).
  const bool tls_method = privatization == Privatization::tls && program_image() == nullptr;
  if (tls_method && runtime.processes() > 1) {
    throw Error(
        "--vp-tls-globals: ranks cannot take their own TLS blocks to another process; "
        "this run has " +
        std::to_string(runtime.processes()) +
        " processes (use vela::vp::privatized<T>, or run in one process)");
  }
  const rt::Shape shape = rank_shape(options, options.ranks > 0 ? options.ranks : runtime.pes());
  // The program's one instance under none, copy and tls, constructed before the ranks start
  // (under copy its globals are registered, which check_privatization counts).
  const SharedImage shared_image(privatization);
  if (privatization == Privatization::copy && program_image() != nullptr && runtime.pes() > 1) {
    throw Error(
        "--vp-privatize copy: the program's globals are copied in and out at each rank "
        "switch, so only one PE may run ranks: run with --pes 1 (not --pes " +
        std::to_string(runtime.pes()) + "), or use auto (the default)");
  }
  Options checked = options;
  checked.tls_globals = tls_method;
  check_privatization(checked, runtime.pes());
  if (tls_method) carry_rank_thread_locals();
  World world;
  world.privatization = privatization;
  world.options = &options;
  world.body = &body;
  world.size = options.ranks > 0 ? options.ranks : runtime.pes();
  world.across_processes = runtime.processes() > 1;
  world.processes = std::max(runtime.processes(), 1);
  world.process = runtime.process();
  // Checkpointed ranks are written whole (stack, heap, context) and resume in a later process
  // at the same addresses: as if they moved to another process.
  const bool checkpoints =
      !runtime.options().checkpoint.empty() || !runtime.options().restart.empty();
  // Across processes each rank gets a heap (what its code allocates moves with it); in one
  // process only when asked for.
  constexpr std::size_t default_heap = std::size_t{64} << 20;
  const std::size_t heap = options.heap_bytes > 0
                               ? options.heap_bytes
                               : (world.across_processes || checkpoints ? default_heap : 0);
  if (options.heap_bytes > 0 && options.heap_bytes < 4096) {
    throw Error("--vp-heap " + std::to_string(options.heap_bytes) +
                ": a rank's heap needs at least 4096 bytes (or 0 for the default)");
  }
  const std::int64_t processes = std::max(runtime.processes(), 1);
  check_map_count((world.size + processes - 1) / processes, privatization);
  world.stacks = std::make_unique<StackRange>(
      static_cast<std::size_t>(world.size), options.stack_bytes, sizeof(RankContext), heap,
      rank_image_bytes(privatization), rank_image_alignment());
  if (heap > 0) give_stdio_buffers();
  if (world.across_processes) check_across_processes(runtime, world);
  if (checkpoints) check_checkpoints(world);
  if (world.across_processes || checkpoints) world.join_processes();
  world.contexts.assign(static_cast<std::size_t>(world.size), nullptr);
  world.here = std::vector<World::PeLocal>(static_cast<std::size_t>(runtime.pes()));
  world.shared_last = std::vector<SharedLast>(static_cast<std::size_t>(runtime.pes()));
  world.origin = seconds_now();
  const rt::InitialMap map =
      options.map == "block" ? rt::InitialMap::block : rt::InitialMap::round_robin;
  // A fault in rank code is reported with the rank (fibers/faults.hpp), and an overflow with
  // the stack size asked for (--vp-stack; the slot's context page adds a few KiB below it).
  const FaultReports faults(options.stack_bytes, runtime.process());
  // The PEs' collective states are this world's until its ranks are done (messaging/per_pe.cpp).
  struct Served {
    explicit Served(World& w) { per_pe::serve(&w); }
    ~Served() { per_pe::serve(nullptr); }
    Served(const Served&) = delete;
    Served& operator=(const Served&) = delete;
  } const served(world);
  int code = 0;
  try {
    code = runtime.run([&](rt::Context& context) {
      // Across processes and with checkpoints the ranks find their world through
      // local_world(): a creation argument holding its address is process 0's, and another
      // process's world lies elsewhere (its stack begins below its environment, whose size
      // differs from process 10 on: OMPI_COMM_WORLD_RANK=10), as does the world of the run
      // that restarts from a checkpoint.
      const bool local = world.across_processes || checkpoints;
      world.ranks = context.create<RankElement>(
          "ranks", shape, map, local ? std::uintptr_t{0} : reinterpret_cast<std::uintptr_t>(&world),
          options.identity);
      // On --restart the ranks come back from the checkpoint, waiting in migrate().
      if (!context.restarted()) world.ranks.broadcast<&RankElement::start>();
    });
  } catch (...) {
    cancel(world);
    record(world);
    throw;
  }
  // A code from the runtime is an abort: here, or in another process (its stop carries it).
  const bool aborted = world.aborted.load() || code != 0;
  std::string blocked;
  int count = 0;
  // Across processes each process answers for the ranks it holds at the end.
  if (!aborted && (world.across_processes || world.finished.load() < world.size)) {
    for (const RankContext* rank : world.contexts) {
      if (rank != nullptr && rank->state == RankState::finished) continue;
      if (rank == nullptr && world.across_processes) continue;
      if (++count <= 8) {
        blocked += (blocked.empty() ? "" : "; ") +
                   (rank == nullptr ? std::string("a rank never started") : describe(*rank));
      }
    }
  }
  cancel(world);
  record(world);
  if (aborted || count == 0) return code;
  if (count > 8) blocked += "; and " + std::to_string(count - 8) + " more";
  throw Error("ranks: " + std::to_string(count) + " of " + std::to_string(world.size) +
              " ranks can never go on (nothing is in flight that they wait for: a deadlock, "
              "or a collective that not every rank called): " +
              blocked);
}

int rank() {
  return current("rank").rank;
}

int size() {
  return current("size").world->size;
}

int process() {
  return current("process").world->process;
}

bool across_processes() {
  return current("across_processes").world->across_processes;
}

int processes() {
  return current("processes").world->processes;
}

int pe() {
  return static_cast<int>(current("pe").element->pe());
}

int pes() {
  return static_cast<int>(current("pes").element->pes());
}

void move_to(int pe) {
  RankContext& rank = current("move_to");
  if (pe < 0 || pe >= static_cast<int>(rank.element->pes())) {
    throw Error("move_to: PE " + std::to_string(pe) + " is outside 0.." +
                std::to_string(rank.element->pes() - 1));
  }
  rank.element->request_pe(pe);
}

void set_load(double seconds) {
  RankContext& rank = current("set_load");
  if (!std::isfinite(seconds) || seconds < 0.0) {
    throw Error("set_load: " + std::to_string(seconds) +
                " is not a load (expected seconds, finite and not negative)");
  }
  rank.element->declare_load(seconds);
}

void set_measured(bool on) {
  current("set_measured").element->set_measured(on);
}

double wtime() {
  return seconds_now() - current("wtime").world->origin;
}

bool in_rank() {
  return current() != nullptr;
}

bool declare_grid(const std::array<std::int32_t, 3>& sides, int dims) {
  RankContext& rank = current("declare_grid");
  const World& world = *rank.world;
  const std::array<std::int32_t, 3> none{0, 0, 0};
  if (world.options->grid != none) return false;  // --vp-grid said it: the user's word wins
  try {  // the runtime checks the grid against the ranks' collection
    rt::detail::set_collection_geometry(world.ranks.id(), {sides[0], sides[1], sides[2], dims});
  } catch (const std::invalid_argument& e) {
    throw Error(std::string("vela::vp::declare_grid: ") + e.what());
  }
  return true;
}

void migrate(MigrateHint hint) {
  RankContext& rank = current("migrate");
  const HeapPause pause;
  static_assert(static_cast<int>(MigrateHint::asynchronous) ==
                static_cast<int>(rt::SyncBalance::asynchronous));
  rank.element->at_sync(static_cast<rt::SyncBalance>(hint));
  suspend(rank, RankState::at_sync, "migrate");
}

void yield() {
  RankContext& rank = current("yield");
  const HeapPause pause;
  rt::detail::send_entry<&RankElement::wake>(rank.world->ranks.id(),
                                             static_cast<std::uint64_t>(rank.rank), 0);
  suspend(rank, RankState::yielded, "yield");
}

void abort(int code) {
  RankContext& rank = current("abort");
  const HeapPause pause;
  rank.world->aborted.store(true);
  rt::detail::abort_run(code, rank.world->abort_code_set);  // the first abort's code wins
  for (;;) suspend(rank, RankState::aborted, "abort");
}

}  // namespace vela::vp
