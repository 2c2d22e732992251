// Ranks: MPI-style processes run as user-level threads (fibers) over the runtime's PEs, the AMPI
// model. N ranks share P PEs; a rank that blocks (a receive, a wait, a collective) parks its
// fiber and its PE runs other ranks. Ranks are elements of a runtime collection, so the time a
// rank computes between blocking calls is its measured load, the messages between ranks are the
// communication graph, and migrate() is the balancing point at which ranks move between PEs.
//
// Every function below except run() and add_vp_options() is called from inside a rank. Errors
// (bad arguments, a message longer than the receive buffer, mismatched datatypes, a call
// outside a rank) throw vela::vp::Error, whose message names the call.
#pragma once

#include <CLI/CLI.hpp>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "vela/rt/reduction.hpp"
#include "vela/rt/runtime.hpp"

namespace vela::vp {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// A message longer than the receive buffer (MPI_ERR_TRUNCATE).
class Truncated : public Error {
 public:
  using Error::Error;
};
// A message received as a type of another size (MPI_ERR_TYPE).
class TypeMismatch : public Error {
 public:
  using Error::Error;
};

inline constexpr int any_source = -1;
inline constexpr int any_tag = -1;
// The largest tag a program may use (tags are 0..max_tag).
inline constexpr int max_tag = (1 << 30) - 1;

// Element types of messages and reductions: a message carries its type, and a receive with
// another type of another size is an error (bytes matches anything).
enum class Type : std::uint8_t {
  bytes,  // raw bytes (MPI_BYTE, MPI_PACKED)
  i8,
  u8,
  i16,
  u16,
  i32,
  u32,
  i64,
  u64,
  f32,
  f64,
  f128,          // float, double, long double
  char8,         // char (MPI_CHAR)
  pair_f64_i32,  // {double, int} for min/max with location (MPI_DOUBLE_INT)
  pair_i32_i32,  // {int, int} (MPI_2INT)
};
namespace detail {
[[noreturn]] void unknown_type(int type);  // throws Error
// Element bytes by Type, in the enumeration's order.
inline constexpr std::uint8_t type_sizes[] = {1, 1,  1, 2, 2, 4, 4, 8, 8, 4, 8, sizeof(long double),
                                              1, 16, 8};
}  // namespace detail

// Bytes of one element of `type`; throws Error for a value outside the enumeration.
inline std::size_t size_of(Type type) {
  const auto t = static_cast<std::uint8_t>(type);
  if (t >= sizeof(detail::type_sizes)) [[unlikely]]
    detail::unknown_type(t);
  return detail::type_sizes[t];
}
const char* name_of(Type type);

template <class T>
constexpr Type type_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, char>)
    return Type::char8;
  else if constexpr (std::is_same_v<U, signed char> || std::is_same_v<U, std::int8_t>)
    return Type::i8;
  else if constexpr (std::is_same_v<U, unsigned char> || std::is_same_v<U, std::uint8_t>)
    return Type::u8;
  else if constexpr (std::is_same_v<U, std::byte>)
    return Type::bytes;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 2)
    return Type::i16;
  else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U> && sizeof(U) == 2)
    return Type::u16;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 4)
    return Type::i32;
  else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U> && sizeof(U) == 4)
    return Type::u32;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 8)
    return Type::i64;
  else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U> && sizeof(U) == 8)
    return Type::u64;
  else if constexpr (std::is_same_v<U, float>)
    return Type::f32;
  else if constexpr (std::is_same_v<U, double>)
    return Type::f64;
  else if constexpr (std::is_same_v<U, long double>)
    return Type::f128;
  else {
    static_assert(std::is_trivially_copyable_v<U>, "messages carry trivially copyable values");
    return Type::bytes;
  }
}

// What a completed receive (or a probe) found.
struct Status {
  int source = any_source;
  int tag = any_tag;
  std::size_t bytes = 0;  // the message's length
  Type type = Type::bytes;
  std::uint32_t context = 0;  // the message's context
  bool cancelled = false;     // a receive cancelled before it matched (cancel())
  // Elements of `t` in the message; throws Error when the length is not a multiple.
  std::size_t count(Type t) const;
};

enum class Op : std::uint8_t { sum, prod, min, max, land, lor, band, bor, maxloc, minloc };
// Order::deterministic (one tree over the ranks: the same bits for any P and placement) or
// Order::arrival.
using rt::Order;

namespace detail {
struct RequestState;
struct RankContext;

// For layers built on ranks (vela/mpi.h): while alive, a wait of the calling rank is reported
// in deadlock errors under `call`, the outer API's name (MPI_Recv rather than recv), and what
// the call allocates comes from the process heap, not the rank's slot heap (heap routing). The
// outermost label wins; no-op outside a rank.
class CallLabel {
 public:
  explicit CallLabel(const char* call);
  ~CallLabel();
  CallLabel(const CallLabel&) = delete;
  CallLabel& operator=(const CallLabel&) = delete;

  // The calling rank (-1 outside a rank) and the run's number of ranks (0 outside), read when
  // the label was made: the outer call's checks need no further lookups.
  int rank() const { return rank_index_; }
  int size() const { return size_; }

 private:
  RankContext* rank_;
  const char* outer_ = nullptr;
  void* heap_ = nullptr;  // the heap allocations came from before the call
  int rank_index_ = -1;
  int size_ = 0;
};

// For layers built on ranks: while alive, what the calling thread allocates comes from the
// running rank's own heap (moving with the rank to another process and into its checkpoints),
// even inside a CallLabel. For the objects a layer keeps for a rank (vela/mpi.h's
// communicators, groups, datatypes). Does nothing outside a rank or where ranks have no heaps.
class RankHeapScope {
 public:
  RankHeapScope() noexcept;
  ~RankHeapScope();
  RankHeapScope(const RankHeapScope&) = delete;
  RankHeapScope& operator=(const RankHeapScope&) = delete;

 private:
  void* saved_ = nullptr;
  bool set_ = false;
};

// For layers built on ranks: inside a rank, `address` (an object the layer's calls read first,
// outside the rank's stack) joins the few lines asked for ahead of the rank's resumption when a
// PE resumes many ranks in a row (docs/architecture.md, "Ranks resumed in a row"). A hint only:
// ignored when the rank has noted enough, outside a rank, or for a null address.
void note_resume_line(const void* address) noexcept;
}  // namespace detail

// A non-blocking operation under way (isend, irecv). A null request (default, or after a
// completed wait) completes at once with an empty status.
class Request {
 public:
  Request() = default;
  explicit Request(detail::RequestState* state) : state_(state) {}
  bool null() const { return state_ == nullptr; }
  detail::RequestState* state() const { return state_; }
  void reset() { state_ = nullptr; }

 private:
  detail::RequestState* state_ = nullptr;
};

// The collective on MPI_COMM_WORLD that --vp-balance-every follows with balancing points.
enum class BalanceAt { none, allreduce, barrier };

// How ranks are run.
struct Options {
  int ranks = 0;  // --vp: ranks; 0 = one per PE
  // --vp-stack: each rank's stack (a guard page below; pages are committed as they are touched)
  std::size_t stack_bytes = 1024 * 1024;
  // --vp-privatize: auto | tls | copy | none; empty: auto for a program built by vela-mpicc or
  // vela-mpicxx (a loaded image), else none (or tls with --vp-tls-globals).
  std::string privatize;
  bool tls_globals = false;   // --vp-tls-globals: the same as --vp-privatize tls
  std::string map = "block";  // --vp-map: block | round-robin initial placement
  // --vp-heap: address space of each rank's slot heap, used when ranks run over several
  // processes (a rank moving to another process takes its heap along); 0 = the default, 64 MiB.
  std::size_t heap_bytes = 0;
  // --vp-grid X[xY[xZ]]: the grid of ranks the program decomposes its domain over, rank r at
  // (r % X, (r / X) % Y, r / (X * Y)); its cells must number the ranks. Geometric strategies
  // (hilbert, rec-bisect-bf, ...) see these coordinates and the block map places blocks of
  // the grid per PE. {0, 0, 0}: a line of ranks.
  std::array<std::int32_t, 3> grid{0, 0, 0};
  // --vp-balance-every CALL:K: programs of vela/mpi.h reach a balancing point (as at
  // MPI_Migrate) after every K-th CALL on MPI_COMM_WORLD: unchanged programs get balanced.
  // Every rank calls the world's collectives in the same order, so every rank reaches the same
  // points. BalanceAt::none: no such points; else balance_every must be at least 1.
  BalanceAt balance_at = BalanceAt::none;
  int balance_every = 0;
  // What the ranks compute from (vela::mpi::run sets the program's own arguments): recorded in
  // a checkpoint of the ranks, and a restart with another identity is refused (the ranks'
  // memory holds the problem they were started on).
  std::string identity;
};

// Adds --vp, --vp-stack, --vp-privatize, --vp-tls-globals, --vp-map, --vp-heap, --vp-grid and
// --vp-balance-every to `app`.
void add_vp_options(CLI::App& app, Options& options);

// For programs that take the rank count themselves (their own --ranks; 0: not given) and
// decompose their domain over a grid of ranks they compute: sets options.ranks and
// options.grid. Throws std::invalid_argument naming the options when --vp or --vp-grid was
// given another value.
void set_program_ranks(Options& options, int ranks);
void set_program_grid(Options& options, const std::array<std::int32_t, 3>& grid);

// Runs `body` on options.ranks ranks over `runtime`'s PEs (inside the body, rank() tells which)
// until every rank has returned. Returns the run's exit code. Throws Error when ranks are left
// blocked with nothing in flight (a deadlock: a receive no one sends to, a migrate() that not
// every rank reached), naming each blocked rank and the call it waits in; rethrows an exception
// that escaped a rank. Under mpirun the ranks spread over every process's PEs and may move
// between processes at migrate() (docs/architecture.md, "Ranks across processes", says what a
// rank may hold then); each process reports the ranks it holds at the end.
int run(rt::Runtime& runtime, const Options& options, const std::function<void()>& body);

// For programs whose ranks may move between processes (under mpirun): call it first thing in
// main, with main's arguments, and link vela::vp_heap (vela::mpi_main's main does both). With
// several processes it restarts the program without address-space randomization where the
// system allows (a rank's stack resumes in another process only if the code sits at the same
// addresses there), and from then on what the ranks' code allocates comes from each rank's own
// heap, which moves with it (not in sanitizer builds).
void prepare_ranks_across_processes(int argc, char** argv);

// Statistics of the last run() on this thread, for reports and benchmarks.
struct RunInfo {
  int ranks = 0;
  std::uint64_t context_switches = 0;
  std::uint64_t migrations = 0;  // rank moves
  std::uint64_t handoffs = 0;    // messages to a rank on the sender's PE, matched without a message
  // Messages a blocked rank took on its own stack, its PE having nothing else to run (no switch)
  std::uint64_t in_place = 0;
  // Large messages to another PE of the process whose copy the sender's PE shared (it waited
  // with nothing else to run and copied part of the bytes itself)
  std::uint64_t shared_copies = 0;
  // Times a PE gave its scheduler a turn in the middle of resuming ranks made ready (64 in a row
  // while messages waited, or 1,024), the rest following through one wake message
  std::uint64_t ready_passes = 0;
  std::size_t stack_bytes_touched = 0;  // summed over ranks, pages written at least once
};
RunInfo last_run();

// ---- inside a rank ----

// The grid the program decomposes its domain over, declared once the ranks run (MPI_Cart_create
// over all ranks in their order): from now on the geometric strategies (hilbert,
// rec-bisect-bf, ...) see rank r at (r % X, r / X % Y, r / XY) of sides {X, Y, Z} with `dims`
// of them meaningful, in this process (every rank of the ranks' first process should declare
// it, as MPI_Cart_create's callers all do). Returns false and changes nothing when --vp-grid
// gave the grid (the user's word wins). Throws Error when X·Y·Z is not the rank count.
bool declare_grid(const std::array<std::int32_t, 3>& sides, int dims);

int rank();
int size();
// The process the calling rank runs in now (under mpirun; 0 otherwise): it changes when the rank
// moves to another process.
int process();
// The PE the calling rank runs on now (it changes when the rank moves), the run's PEs and its
// processes (1 without mpirun).
int pe();
int pes();
int processes();
// What the next balancing point (migrate()) does with the calling rank (AMPI's explicit
// migration and load calls). move_to: the rank moves to PE `pe` there, whatever the balancer
// decides, and also without one; throws Error outside 0..pes()-1.
void move_to(int pe);
// The load the next balancing step takes for this rank in place of its measured time: seconds of
// work on a PE of speed 1. Throws Error for a negative or non-finite value.
void set_load(double seconds);
// While off, the time the rank computes is not measured as its load (on at the start).
void set_measured(bool on);
// Whether the run's ranks spread over several processes (under mpirun): a rank's memory is then
// not in every rank's address space.
bool across_processes();
// Seconds since an arbitrary origin, the same on every rank of the run.
double wtime();
// Whether the calling thread is running a rank.
bool in_rank();

// `context` (0: the run's own) separates groups of ranks that a layer above makes (vela/mpi.h's
// communicators): a message matches only receives and probes of its context.
void send(const void* buffer, std::size_t count, Type type, int dest, int tag,
          std::uint32_t context = 0);
Status recv(void* buffer, std::size_t count, Type type, int source, int tag,
            std::uint32_t context = 0);
Request isend(const void* buffer, std::size_t count, Type type, int dest, int tag,
              std::uint32_t context = 0);
Request irecv(void* buffer, std::size_t count, Type type, int source, int tag,
              std::uint32_t context = 0);
// A synchronous send (MPI_Ssend): complete once the destination has matched it with a receive (or
// a matched probe), not only once its data is copied.
void ssend(const void* buffer, std::size_t count, Type type, int dest, int tag,
           std::uint32_t context = 0);
Request issend(const void* buffer, std::size_t count, Type type, int dest, int tag,
               std::uint32_t context = 0);
// A buffered send (MPI_Bsend): the data is copied before it returns whatever its size (a large
// send() instead waits until the receiving side has taken it); the request is complete.
Request bsend(const void* buffer, std::size_t count, Type type, int dest, int tag,
              std::uint32_t context = 0);
Status sendrecv(const void* send_buffer, std::size_t send_count, Type send_type, int dest,
                int send_tag, void* recv_buffer, std::size_t recv_count, Type recv_type, int source,
                int recv_tag, std::uint32_t context = 0);

// Completes `request` (blocking) and nulls it.
Status wait(Request& request);
// Completes all; statuses (when not empty) must hold one per request.
void waitall(std::span<Request> requests, std::span<Status> statuses = {});
// Completes one and returns its position; -1 when every request is null.
int waitany(std::span<Request> requests, Status* status = nullptr);
// Completes `request` if it can without blocking (and nulls it).
bool test(Request& request, Status* status = nullptr);
// Whether `request` is complete (a null one is), without completing it.
bool ready(const Request& request);
// Its status once complete (nullopt before), without completing it.
std::optional<Status> status_of(const Request& request);
// Block until one (any) or every (all) request is complete, without completing them.
void wait_any_ready(std::span<const Request> requests);
void wait_all_ready(std::span<const Request> requests);

Status probe(int source, int tag, std::uint32_t context = 0);
std::optional<Status> iprobe(int source, int tag, std::uint32_t context = 0);
// A matched probe (MPI_Mprobe, MPI_Improbe): the first message that matches, taken out of
// matching (no other receive or probe sees it again), its bytes appended to `data`. take()
// returns nullopt when none has arrived; take_waiting() waits for one.
std::optional<Status> take(int source, int tag, std::uint32_t context,
                           std::vector<std::byte>& data);
Status take_waiting(int source, int tag, std::uint32_t context, std::vector<std::byte>& data);
// Cancels a receive not yet matched: it completes with status.cancelled. A send (copied when
// made) or a matched receive is not cancelled. Whether it was.
bool cancel(Request& request);

void barrier();
void bcast(void* buffer, std::size_t count, Type type, int root);
// `in` and `out` hold `count` elements (they may be the same buffer); the result lands in
// root's `out` (reduce: other ranks' `out` is not touched and may be null) or everyone's
// (allreduce). With Order::deterministic the values are combined along a tree fixed by the
// rank count, the lower ranks the left operand, so the bits do not depend on P, placement or
// balancing, and reduce and allreduce give the same bits.
void reduce(const void* in, void* out, std::size_t count, Type type, Op op, int root,
            Order order = Order::deterministic);
void allreduce(const void* in, void* out, std::size_t count, Type type, Op op,
               Order order = Order::deterministic);
// Each rank contributes `count` elements; root's `out` receives size() * count, in rank order
// (other ranks' `out` is not touched; likewise scatter reads `in` on the root only).
void gather(const void* in, std::size_t count, Type type, void* out, int root);
void allgather(const void* in, std::size_t count, Type type, void* out);
// Root's `in` holds size() * count elements; each rank receives its `count`.
void scatter(const void* in, std::size_t count, Type type, void* out, int root);
// `in` holds size() blocks of `count` elements, block d for rank d; `out` receives block r from
// rank r.
void alltoall(const void* in, std::size_t count, Type type, void* out);

// ---- collectives over some of the ranks (for layers such as vela/mpi.h) ----

// Ranks taking part in a collective, numbered 0..size-1: member i is rank `ranks[i]`, or
// `first + i * stride` when `ranks` is null (the whole run is {size(), first 0, stride 1}).
// `context` must differ from that of every other group the calling rank belongs to, and `calls`
// points to the caller's count of collectives made on this group (it numbers their messages:
// every member makes the same collectives in the same order).
struct Members {
  std::uint32_t context = 0;
  int size = 0;
  int index = 0;  // the caller's position
  int first = 0;
  int stride = 1;
  const std::int32_t* ranks = nullptr;
  std::uint32_t* calls = nullptr;
  int rank_of(int member) const {
    return ranks != nullptr ? ranks[member] : first + member * stride;
  }
};

// A reduction's combination of two runs of `count` elements: inout[i] = in[i] op inout[i], where
// `in` holds the lower members' values (MPI's user-function convention).
struct Combine {
  void (*function)(const void* in, void* inout, std::size_t count, const void* data) = nullptr;
  const void* data = nullptr;
  // Whether any run of whole elements may be combined on its own (an elementwise operator): a
  // large reduce-scatter then combines by blocks, each at another member.
  bool splittable = false;
  // Whether `in op inout` has the bits of `inout op in` (integer, logical and bitwise operators,
  // and sums and products of floating-point numbers, whose IEEE operations commute, but for
  // which of two NaNs' payloads survives): a reduction may then combine an arrival into its
  // running result straight from where the arrival lies, without copying it first.
  bool symmetric = false;
  // Whether every grouping and order of the operands gives the same bits (integer, logical and
  // bitwise operators): a reduction among many members may then combine the members of each PE
  // as they come, whatever the placement (src/vp/messaging/per_pe.cpp).
  bool exact = false;
  // Whether the operator is the library's own, no program code: it may then run outside the
  // rank that gave it (on its PE, combining what other ranks sent).
  bool predefined = false;
};

// The primitives of a layer's own collective algorithms: one collective call on `members`, its
// messages on the collective channel under the call's number.
class Collective {
 public:
  Collective(const Members& members, const char* call);
  const Members& members() const { return members_; }
  // Sends `bytes` bytes to member `to` (eager: returns once the data is copied or delivered).
  void put(const void* data, std::size_t bytes, int to) const;
  // put() that never waits for the receiver, whatever the size: the bytes are copied now.
  void put_and_go(const void* data, std::size_t bytes, int to) const;
  // put() of every piece, all under way at once (a large piece is read where it lies until its
  // receiver takes it: several receivers copy in parallel, each straight into its buffer);
  // returns once all are copied or delivered. Only for receives sure to be posted whatever the
  // sender does next.
  struct Piece {
    const void* data;
    std::size_t bytes;
    int to;
  };
  void put_each(std::span<const Piece> pieces) const;
  // Receives from member `from` into `data`, which holds `capacity` bytes; returns the bytes.
  std::size_t get(void* data, std::size_t capacity, int from) const;
  // get() that hands the bytes (at most `capacity`) to take(taker, bytes, size) where they lie,
  // instead of copying them: take runs on whichever fiber or PE thread matches the message, and
  // must neither throw nor block.
  std::size_t get_taken(void (*take)(void* taker, const std::byte* bytes, std::size_t size),
                        void* taker, std::size_t capacity, int from) const;
  // The same receive posted, to complete later (wait, test): for nonblocking collectives.
  Request post(void* data, std::size_t capacity, int from) const;

 private:
  Members members_;
  int tag_;
  const char* call_;
  void* rank_;
};

namespace group {
// vp's collectives on `members` (bytes in, bytes out; `element` bytes per reduced element).
// Every deterministic reduction combines along one tree fixed by the member count, the lower
// members the left operand (combine_along_tree): the same bits for any placement, PE count and
// balancer, for reduce, allreduce and reduce_scatter alike (which path a call takes:
// src/vp/messaging/collectives.cpp). Among more than 64 members, barriers, broadcasts,
// reductions, gathers, scatters and allgathers combine per PE (src/vp/messaging/per_pe.cpp),
// reductions whose operator is not exact gathered and combined along the tree.
void barrier(const Members& members, const char* call);
void bcast(const Members& members, void* buffer, std::size_t bytes, int root, const char* call);
void reduce(const Members& members, const void* in, void* out, std::size_t count,
            std::size_t element, Combine combine, int root, const char* call);
void allreduce(const Members& members, const void* in, void* out, std::size_t count,
               std::size_t element, Combine combine, const char* call);
// Member i gets into `out` the reduction of every member's block i (counts[i] elements; the
// blocks side by side in member order in `in`), each element combined along the tree: the bits
// of reduce() (by blocks from 32 KiB in all with an elementwise operator among at most 64
// members, each member combining its own; else reduced at member 0 and scattered).
void reduce_scatter(const Members& members, const void* in, void* out,
                    std::span<const std::size_t> counts, std::size_t element, Combine combine,
                    const char* call);
// Blocks of `bytes` per member in member order.
void gather(const Members& members, const void* in, std::size_t bytes, void* out, int root,
            const char* call);
void scatter(const Members& members, const void* in, std::size_t bytes, void* out, int root,
             const char* call);
void allgather(const Members& members, const void* in, std::size_t bytes, void* out,
               const char* call);
void alltoall(const Members& members, const void* in, std::size_t bytes, void* out,
              const char* call);
// The reductions' tree over vectors 0 .. n - 1 all at hand: step(left, right) for each inner
// node, children before parents, where vector `left` holds the node's left child's result and
// `right` its right child's and takes the node's (right = left op right); the whole reduction
// ends in vector n - 1. For layers that gather the vectors first (nonblocking collectives).
void combine_along_tree(int n, const std::function<void(int left, int right)>& step);
}  // namespace group

// ---- remote operations (for one-sided layers such as vela/mpi.h's windows) ----

// A remote message runs the layer's handler for the destination rank, on that rank's PE and
// outside its fiber (the rank is suspended or not running then), after every earlier message
// from the same sender to that rank: the handler may read and write the destination rank's memory
// (a window's bytes, at the same addresses in whatever process the rank lives) and reply with
// answer(). `source` is the sending rank, `data` the bytes sent (valid during the call only).
using RemoteHandler = void (*)(int source, std::span<const std::byte> data);
// Installs the handler of every remote message of this process (once; a layer's initializer).
void set_remote_handler(RemoteHandler handler);
// Sends a remote message to rank `dest`. Its bytes are copied: the caller never waits.
void remote(int dest, std::span<const std::byte> data);
// Inside a remote handler: a message from the rank the handler runs for to rank `dest`, received
// as any message of `context` and `tag` (copied: the handler never waits).
void answer(int dest, const void* data, std::size_t bytes, int tag, std::uint32_t context);

// How a balancing point balances (MPI_Migrate_info's hints): as the run says (--lb-async or
// not), inline, or asynchronously (the strategy runs on the balancing thread; the ranks go on
// once measured and its answer is applied at a later point). Every rank gives the same.
enum class MigrateHint : std::uint8_t { as_run, inline_step, asynchronous };

// The balancing point (AMPI's MPI_Migrate): collective over all ranks. The runtime's strategy
// (--lb, or --lb-policy) runs on the ranks' measured loads and moved ranks resume on their new
// PE (asynchronously: an earlier point's answer, when one is ready). Without --lb it is a
// barrier.
void migrate(MigrateHint hint = MigrateHint::as_run);
// Lets the other ranks and messages of this PE run, then continues.
void yield();
// Ends the whole run with `code` (MPI_Abort).
[[noreturn]] void abort(int code);

// ---- typed conveniences ----

template <class T>
void send(std::span<const T> values, int dest, int tag) {
  send(values.data(), values.size(), type_of<T>(), dest, tag);
}
template <class T>
Status recv(std::span<T> values, int source, int tag) {
  return recv(values.data(), values.size(), type_of<T>(), source, tag);
}
template <class T>
Request isend(std::span<const T> values, int dest, int tag) {
  return isend(values.data(), values.size(), type_of<T>(), dest, tag);
}
template <class T>
Request irecv(std::span<T> values, int source, int tag) {
  return irecv(values.data(), values.size(), type_of<T>(), source, tag);
}
template <class T>
void bcast(std::span<T> values, int root) {
  bcast(values.data(), values.size(), type_of<T>(), root);
}
template <class T>
T allreduce(const T& value, Op op, Order order = Order::deterministic) {
  T out{};
  allreduce(&value, &out, 1, type_of<T>(), op, order);
  return out;
}
template <class T>
void allreduce(std::span<const T> in, std::span<T> out, Op op, Order order = Order::deterministic) {
  if (in.size() != out.size()) throw Error("vela::vp::allreduce: in and out differ in size");
  allreduce(in.data(), out.data(), in.size(), type_of<T>(), op, order);
}

}  // namespace vela::vp
