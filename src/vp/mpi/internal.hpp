// What the files of Vela's MPI share (one file per chapter of the MPI standard: environment,
// point-to-point, collectives, communicators and groups, datatypes, operators; Vela's own calls
// in extensions.cpp; the objects behind the handles in objects.hpp).
//
// Each call is defined under its profiling name (VPMPI_Send), its MPI name a weak alias
// (VMPI_PROFILED below). Its body runs in guarded(), which names the call in a deadlock report
// and in every error; checks its arguments with the checks below; maps the handles onto the
// rank's objects and vp's types; and calls vp. An error is thrown as an MpiError (an error
// class and a message naming the call and the argument) and caught by guarded(), which hands it
// to the communicator's error handler: fatal (rethrown: it ends the run, vp::run rethrows it,
// main prints it), returned as the call's result, or the program's function, then returned.
//
// The checks run on every call: each is an inline test, and a cold function out of line that
// words the error.
#pragma once

// The library has no program main for vela/mpi.h to rename.
#ifndef VELA_MPI_NO_MAIN
#define VELA_MPI_NO_MAIN
#endif
#include "vela/mpi.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "objects.hpp"
#include "vela/vp/privatized.hpp"
#include "vela/vp/vp.hpp"

// Makes VMPI_name a weak alias of the call's profiling entry VPMPI_name (defined before it in
// the same file), so that a tool's own MPI_name takes its place.
#define VMPI_PROFILED(name) \
  extern "C" __typeof__(VPMPI_##name) VMPI_##name __attribute__((weak, alias("VPMPI_" #name)))

namespace vela::mpi::detail {

using vp::Error;

// An error with its MPI error class.
class MpiError : public Error {
 public:
  MpiError(int error_class, const std::string& what) : Error(what), class_(error_class) {}
  int error_class() const { return class_; }

 private:
  int class_;
};

// What an MPI run keeps in each process; each rank touches only its own entries.
struct RunState {
  std::string program;
  std::vector<int> returned;  // by rank: what its main returned (in the process it ended in)
  vp::BalanceAt balance_at = vp::BalanceAt::none;  // --vp-balance-every CALL:K
  std::uint64_t balance_every = 0;
  int pid = 0;  // the process's, when the run began (a rank that forks: its child has another)
};

// The run under way in this process (vela::mpi::run), or nullptr.
extern std::atomic<RunState*> current_run;

// A balancing point (MPI_Migrate's), with the rank's migration callbacks around it.
void balancing_point(Objects& objects, vp::MigrateHint hint);
// After a collective `call` on `comm` completed: a balancing point when `comm` is
// MPI_COMM_WORLD and this is the K-th such call of --vp-balance-every CALL:K.
void after_world_collective(Objects& objects, MPI_Comm comm, vp::BalanceAt call);

// What each rank keeps of MPI's state: a privatized global, so it moves with the rank (to
// another process too). Its objects are made at MPI_Init in the rank's heap; a copy (the main
// copy's, made for each rank as it starts) has none.
struct RankMpi {
  unsigned char initialized = 0;
  unsigned char finalized = 0;
  int thread_level = MPI_THREAD_SINGLE;
  Objects* objects = nullptr;

  RankMpi() = default;
  RankMpi(const RankMpi& other)
      : initialized(other.initialized),
        finalized(other.finalized),
        thread_level(other.thread_level) {}
  RankMpi& operator=(const RankMpi&) = delete;
  ~RankMpi();
};
extern vp::privatized<RankMpi> rank_mpi;

// A predefined datatype: its MPI name, the vp element type it is sent as, its size, and how
// reductions combine it (operators.cpp).
enum class Reducible : std::uint8_t {
  none,  // MPI_BYTE, MPI_PACKED, MPI_LB, MPI_UB: not reducible
  signed_integer,
  unsigned_integer,
  floating,
  complex,
  logical,    // C and C++ bool, Fortran LOGICAL
  pair,       // {value, int index} for MPI_MAXLOC / MPI_MINLOC
  pair_same,  // Fortran's {value, index} of one type (MPI_2REAL, MPI_2INTEGER, ...)
  character,
  quad,          // Fortran REAL*16 (__float128)
  quad_complex,  // Fortran COMPLEX*32
};
class Typemap;
struct Datatype {
  const char* name;
  vp::Type type;
  std::size_t size;  // bytes of data in one element
  Reducible reducible;
  std::uint8_t part;  // the bytes of one component (a complex's, a pair's value)
  // The layout: a predefined type is `size` bytes; a derived one has its type map.
  std::int64_t extent = 0;
  std::int64_t true_lb = 0;
  bool contiguous = true;  // count elements are count * size bytes from buffer + true_lb
  bool committed = true;
  const Typemap* map = nullptr;       // a derived type's
  const Datatype* element = nullptr;  // a derived type of one basic type: that type's (reductions)
};

// In the order of the indices vela/mpi.h gives the datatypes (datatypes.cpp).
extern const Datatype datatypes[VMPI_DATATYPE_COUNT];

// The handle as a number, for an error message.
std::string handle_text(const void* handle);

[[noreturn]] void fail(const char* call, int error_class, const std::string& what);

// Rethrows the exception being handled as an MpiError that begins with `call` (vp's messages
// begin with vp's own call, "recv: ...": it is replaced).
[[noreturn]] void rethrow_named(const char* call);

// Called in a catch block: the error's class, after `comm`'s error handler (MPI_COMM_WORLD's
// when `comm` is not a valid communicator) ran; rethrows when the handler is fatal.
int raise(const char* call, MPI_Comm comm);

using Label = vp::detail::CallLabel;

// Runs a call's body (given the call's Label, or nothing); errors go to `comm`'s handler. Only
// std::exceptions are caught, so that the unwinding of a cancelled rank passes through.
template <class Body>
int guarded_on(const char* call, MPI_Comm comm, Body&& body) {
  const Label label(call);  // a deadlock report names the MPI call
  try {
    if constexpr (std::is_invocable_v<Body&, const Label&>) {
      body(label);
    } else {
      body();
    }
  } catch (const std::exception&) {
    return raise(call, comm);
  }
  return MPI_SUCCESS;
}

// A call not on a communicator: its errors go to MPI_COMM_WORLD's handler.
template <class Body>
int guarded(const char* call, Body&& body) {
  return guarded_on(call, MPI_COMM_WORLD, std::forward<Body>(body));
}

// The errors of the checks below.
[[gnu::cold, gnu::noinline, noreturn]] void fail_outside(const char* call);
[[gnu::cold, gnu::noinline, noreturn]] void fail_not_started(const char* call);
[[gnu::cold, gnu::noinline, noreturn]] void fail_rank(const char* call, int rank);
[[gnu::cold, gnu::noinline, noreturn]] void fail_inactive(const char* call, bool initialized);
[[gnu::cold, gnu::noinline, noreturn]] void fail_comm(const char* call, MPI_Comm comm,
                                                      const char* what);
[[gnu::cold, gnu::noinline, noreturn]] void fail_datatype(const char* call, MPI_Datatype datatype,
                                                          const char* what);
[[gnu::cold, gnu::noinline, noreturn]] void fail_count(const char* call, int count,
                                                       const char* what);
[[gnu::cold, gnu::noinline, noreturn]] void fail_buffer(const char* call, const void* buffer,
                                                        std::size_t count, const Datatype& type,
                                                        const char* what);
[[gnu::cold, gnu::noinline, noreturn]] void fail_out(const char* call, const char* what);
[[gnu::cold, gnu::noinline, noreturn]] void fail_peer(const char* call, const char* what, int peer,
                                                      int size, bool proc_null, bool any);
[[gnu::cold, gnu::noinline, noreturn]] void fail_tag(const char* call, const char* what, int tag,
                                                     bool any);

// The run's state, for a call made in a rank that vela::mpi::run started.
inline RunState& run_state(const char* call, const Label& label) {
  if (label.rank() < 0) [[unlikely]]
    fail_outside(call);
  RunState* state = current_run.load(std::memory_order_acquire);
  if (state == nullptr) [[unlikely]]
    fail_not_started(call);
  return *state;
}

// The calling rank's index into the run's per-rank state.
inline std::size_t my_rank(const char* call, const RunState& state, const Label& label) {
  const int rank = label.rank();
  if (rank < 0 || static_cast<std::size_t>(rank) >= state.returned.size()) [[unlikely]]
    fail_rank(call, rank);
  return static_cast<std::size_t>(rank);
}

// Checks that the calling rank may make MPI calls now; its objects.
inline Objects& active(const char* call, const Label& label) {
  my_rank(call, run_state(call, label), label);
  const RankMpi& mine = rank_mpi.get();
  if (mine.initialized == 0 || mine.finalized != 0 || mine.objects == nullptr) [[unlikely]]
    fail_inactive(call, mine.initialized != 0);
  return *mine.objects;
}

// The communicator a handle names (`what`: the argument's name).
inline Communicator& comm_of(const char* call, Objects& objects, MPI_Comm comm,
                             const char* what = "comm") {
  const auto value = reinterpret_cast<std::uintptr_t>(comm);
  Communicator* c = nullptr;
  if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) == VMPI_COMM_BASE) [[likely]]
    c = objects.comms.find(static_cast<int>(value & VMPI_INDEX_MASK));
  if (c == nullptr) [[unlikely]]
    fail_comm(call, comm, what);
  return *c;
}

// active(), then the communicator: the start of every call on a communicator.
inline Communicator& active(const char* call, const Label& label, MPI_Comm comm) {
  return comm_of(call, active(call, label), comm);
}

inline MPI_Comm comm_handle(int index) {
  return reinterpret_cast<MPI_Comm>(static_cast<std::uintptr_t>(VMPI_COMM_BASE + index));
}

// A derived datatype of the calling rank (datatypes.cpp); `committed`: only a committed one.
const Datatype& derived_of(const char* call, MPI_Datatype datatype, const char* what,
                           bool committed);

// The datatype a handle names, committed (what communication takes).
inline const Datatype& datatype_of(const char* call, MPI_Datatype datatype,
                                   const char* what = "datatype") {
  const auto value = reinterpret_cast<std::uintptr_t>(datatype);
  if (value - VMPI_DATATYPE_BASE < VMPI_DATATYPE_COUNT) [[likely]]
    return datatypes[value - VMPI_DATATYPE_BASE];
  return derived_of(call, datatype, what, true);
}

inline std::size_t count_of(const char* call, int count, const char* what = "count") {
  if (count < 0) [[unlikely]]
    fail_count(call, count, what);
  return static_cast<std::size_t>(count);
}

inline void check_buffer(const char* call, const void* buffer, std::size_t count,
                         const Datatype& type, const char* what = "buf") {
  // A derived type may hold absolute addresses (MPI_Get_address) with MPI_BOTTOM as buffer.
  if (buffer == MPI_IN_PLACE || (count > 0 && buffer == nullptr && type.map == nullptr))
      [[unlikely]]
    fail_buffer(call, buffer, count, type, what);
}

inline std::size_t bytes_of(std::size_t count, const Datatype& type) {
  return count * type.size;
}

// The data of `count` elements at `buffer` as one run of bytes: at the buffer itself where the
// layout is contiguous, else packed into `scratch`.
const void* gathered(const void* buffer, std::size_t count, const Datatype& type,
                     std::vector<std::byte>& scratch);
// Where `count` elements for `buffer` are received as bytes: the buffer itself where the
// layout is contiguous, else `scratch`, unpacked by scattered() once `bytes` arrived.
void* receiving(void* buffer, std::size_t count, const Datatype& type,
                std::vector<std::byte>& scratch);
void scattered(const std::vector<std::byte>& scratch, std::size_t bytes, void* buffer,
               std::size_t count, const Datatype& type);
// The element type vp checks a message against: a derived type's data is raw bytes.
inline vp::Type wire_type(const Datatype& type) {
  return type.map == nullptr ? type.type : vp::Type::bytes;
}

// The names a call gives a buffer's arguments, for its errors.
struct BufferNames {
  const char* buffer = "buf";
  const char* count = "count";
  const char* datatype = "datatype";
};

// A buffer's arguments, checked: its datatype, its count, then the buffer.
struct Buffer {
  const Datatype& type;
  std::size_t count;
};

inline Buffer buffer_of(const char* call, const void* buffer, int count, MPI_Datatype datatype,
                        const BufferNames& names = {}) {
  const Datatype& type = datatype_of(call, datatype, names.datatype);
  const std::size_t n = count_of(call, count, names.count);
  check_buffer(call, buffer, n, type, names.buffer);
  return {type, n};
}

// An output argument (a pointer the call writes through).
inline void check_out(const char* call, const void* pointer, const char* what) {
  if (pointer == nullptr) [[unlikely]]
    fail_out(call, what);
}

// `dest`/`source`/`root` within 0..size-1, or one of the special values the call allows.
inline void check_peer(int size, const char* call, const char* what, int peer, bool proc_null,
                       bool any) {
  if (peer >= 0 && peer < size) [[likely]]
    return;
  if (proc_null && peer == MPI_PROC_NULL) return;
  if (any && peer == MPI_ANY_SOURCE) return;
  fail_peer(call, what, peer, size, proc_null, any);
}

inline void check_tag(const char* call, const char* what, int tag, bool any) {
  if (tag >= 0 && tag <= vp::max_tag) [[likely]]
    return;
  if (any && tag == MPI_ANY_TAG) return;
  fail_tag(call, what, tag, any);
}

// Allocations of the calling rank's objects: in its own heap, so that they move with it.
using InRankHeap = vp::detail::RankHeapScope;

// The error handler a handle names (MPI_ERR_ARG when none of this rank), and handle <-> index.
Errhandler& errhandler_of(const char* call, Objects& objects, MPI_Errhandler handler);
int errhandler_index(MPI_Errhandler handler);
MPI_Errhandler errhandler_handle(int index);

// The group a handle names (MPI_ERR_GROUP when none of this rank); a new group's handle.
Group& group_of(const char* call, Objects& objects, MPI_Group group, const char* what = "group");
MPI_Group add_group(Objects& objects, Group group);

// The program's attribute key `keyval` (MPI_ERR_KEYVAL when none of this rank).
Keyval& keyval_of(const char* call, Objects& objects, int keyval);
// MPI_Comm_free_keyval and MPI_Win_free_keyval (one key space): named `call` in errors.
int free_keyval(const char* call, int* keyval);

// A context none of `members` uses, agreed by a reduction over them (collective).
std::uint32_t agree_context(Objects& objects, const vp::Members& members, const char* call);

// MPI_Comm_idup: the calling rank's proposal for the duplicate's context (each made once), and
// the duplicate of intracommunicator `c` (handle `comm`) with no context yet; the request's
// completion gives it the largest proposal (settle_context; nothing if it was freed meanwhile).
std::uint32_t propose_idup_context(const char* call, Objects& objects);
MPI_Comm add_unsettled_dup(const char* call, Objects& objects, MPI_Comm comm, Communicator& c);
void settle_context(Objects& objects, MPI_Comm comm, std::uint32_t context);

// The context of an intercommunicator's collective messages between its groups (collectives.cpp).
inline std::uint32_t inter_context(const Communicator& c) {
  return c.context | own_contexts;
}

// An intercommunicator's other group as the members of a nonblocking collective (nonblocking.cpp)
// on its collective channel under inter_context, numbered by the count of those calls, which both
// groups make alike: member i is rank i of the other group, and the caller none of them (index -1).
inline vp::Members remote_members(Communicator& c) {
  return c.remote.members(inter_context(c), -1, &c.remote_calls);
}

// Which side of a rooted intercommunicator call the rank is on: the root (MPI_ROOT), the rest
// of the root's group (MPI_PROC_NULL) or the other group (the root's rank there, checked).
enum class RootSide { root, idle, other };
RootSide root_side(const char* call, const Communicator& c, int root);

// MPI_IN_PLACE as `buffer` on an intercommunicator: MPI_ERR_BUFFER.
void no_in_place(const char* call, const void* buffer);

// The communicator whose messages carry `context` (world's for 0), or nullptr.
Communicator* comm_by_context(Objects& objects, std::uint32_t context);

// A new communicator in the rank's table: its handle. Records its context.
MPI_Comm add_comm(Objects& objects, Communicator comm);

// The calling rank's neighbours in `c`'s topology (MPI_ERR_TOPOLOGY without one).
Neighborhood neighborhood_of(const char* call, const Communicator& c);

// Collective over `c`: MPI_Comm_split's new communicator (MPI_COMM_NULL for MPI_UNDEFINED).
MPI_Comm split_comm(const char* call, Objects& objects, Communicator& c, int color, int key);
// Collective over `c`: a communicator of `group`, a subgroup of c's (MPI_COMM_NULL outside it).
MPI_Comm subcomm(const char* call, Objects& objects, Communicator& c, const Group& group);

}  // namespace vela::mpi::detail
