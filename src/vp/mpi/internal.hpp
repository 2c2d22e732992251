// What the files of the MPI C subset share (one file per chapter of the MPI standard: environment,
// point-to-point, collectives, communicators, datatypes; Vela's own calls in extensions.cpp).
// Each call runs its body in guarded(), which names the call in a deadlock report and in every
// error; checks its arguments with the checks below; maps the
// handles onto vp's types; and calls vp. Errors are fatal: they are thrown as vp::Error out of
// the call, end the run (vp::run rethrows them) and reach main, which prints them.
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

#include "vela/vp/privatized.hpp"
#include "vela/vp/vp.hpp"

namespace vela::mpi::detail {

using vp::Error;

// What an MPI run keeps in each process; each rank touches only its own entries.
struct RunState {
  std::string program;
  std::vector<int> returned;  // by rank: what its main returned (in the process it ended in)
};

// The run under way in this process (vela::mpi::run), or nullptr.
extern std::atomic<RunState*> current_run;

// What each rank keeps of MPI's state: a privatized global, so it moves with the rank (to
// another process too).
struct RankMpi {
  unsigned char initialized = 0;
  unsigned char finalized = 0;
  int thread_level = MPI_THREAD_SINGLE;
};
extern vp::privatized<RankMpi> rank_mpi;

// A predefined datatype: its MPI name and the vp element type it is sent as.
struct Datatype {
  const char* name;
  vp::Type type;
};

// In the order of the indices vela/mpi.h gives the datatypes (datatypes.cpp).
extern const Datatype datatypes[VMPI_DATATYPE_COUNT];

// The handle as a number, for an error message.
std::string handle_text(const void* handle);

[[noreturn]] void fail(const char* call, const std::string& what);

// Rethrows the exception being handled as a vp::Error that begins with `call` (vp's messages
// begin with vp's own call, "recv: ...": it is replaced).
[[noreturn]] void rethrow_named(const char* call);

using Label = vp::detail::CallLabel;

// Runs a call's body (given the call's Label, or nothing); only std::exceptions are translated,
// so that the unwinding of a cancelled rank (not a std::exception) passes through.
template <class Body>
int guarded(const char* call, Body&& body) {
  const Label label(call);  // a deadlock report names the MPI call
  try {
    if constexpr (std::is_invocable_v<Body&, const Label&>) {
      body(label);
    } else {
      body();
    }
  } catch (const std::exception&) {
    rethrow_named(call);
  }
  return MPI_SUCCESS;
}

// The errors of the checks below.
[[gnu::cold, gnu::noinline, noreturn]] void fail_outside(const char* call);
[[gnu::cold, gnu::noinline, noreturn]] void fail_not_started(const char* call);
[[gnu::cold, gnu::noinline, noreturn]] void fail_rank(const char* call, int rank);
[[gnu::cold, gnu::noinline, noreturn]] void fail_inactive(const char* call, bool initialized);
[[gnu::cold, gnu::noinline, noreturn]] void fail_comm(const char* call, MPI_Comm comm);
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

// Checks that the calling rank may make MPI calls now.
// (The label read the rank once, for all of the call's checks.)
inline void active(const char* call, const Label& label) {
  my_rank(call, run_state(call, label), label);
  const RankMpi& mine = rank_mpi.get();
  if (mine.initialized == 0 || mine.finalized != 0) [[unlikely]]
    fail_inactive(call, mine.initialized != 0);
}

inline void check_comm(const char* call, MPI_Comm comm) {
  if (comm != MPI_COMM_WORLD) [[unlikely]]
    fail_comm(call, comm);
}

// active(), then the communicator: the start of every call on a communicator.
inline void active(const char* call, const Label& label, MPI_Comm comm) {
  active(call, label);
  check_comm(call, comm);
}

inline const Datatype& datatype_of(const char* call, MPI_Datatype datatype,
                                   const char* what = "datatype") {
  const auto value = reinterpret_cast<std::uintptr_t>(datatype);
  if (value < VMPI_DATATYPE_BASE || value >= VMPI_DATATYPE_BASE + VMPI_DATATYPE_COUNT) [[unlikely]]
    fail_datatype(call, datatype, what);
  return datatypes[value - VMPI_DATATYPE_BASE];
}

inline std::size_t count_of(const char* call, int count, const char* what = "count") {
  if (count < 0) [[unlikely]]
    fail_count(call, count, what);
  return static_cast<std::size_t>(count);
}

inline void check_buffer(const char* call, const void* buffer, std::size_t count,
                         const Datatype& type, const char* what = "buf") {
  if (buffer == MPI_IN_PLACE || (count > 0 && buffer == nullptr)) [[unlikely]]
    fail_buffer(call, buffer, count, type, what);
}

inline std::size_t bytes_of(std::size_t count, const Datatype& type) {
  return count * vp::size_of(type.type);
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
inline void check_peer(const Label& label, const char* call, const char* what, int peer,
                       bool proc_null, bool any) {
  if (peer >= 0 && peer < label.size()) [[likely]]
    return;
  if (proc_null && peer == MPI_PROC_NULL) return;
  if (any && peer == MPI_ANY_SOURCE) return;
  fail_peer(call, what, peer, label.size(), proc_null, any);
}

inline void check_tag(const char* call, const char* what, int tag, bool any) {
  if (tag >= 0 && tag <= vp::max_tag) [[likely]]
    return;
  if (any && tag == MPI_ANY_TAG) return;
  fail_tag(call, what, tag, any);
}

// The call's rank in the communicator (after the common checks).
inline int me() {
  return vp::rank();
}

}  // namespace vela::mpi::detail
