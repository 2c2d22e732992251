// The MPI C subset of vela/mpi.h over the rank API (vela/vp/vp.hpp). Each call checks its
// arguments with MPI's names, maps the handles onto vp's types, calls vp and translates vp's
// errors so that they name the MPI call. Errors are fatal: they are thrown as vp::Error out of
// the call, end the run (vp::run rethrows them) and reach main, which prints them.
#define VELA_MPI_NO_MAIN
#include "vela/mpi.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "vela/mpi/run.hpp"
#include "vela/vp/privatized.hpp"
#include "vela/vp/vp.hpp"

namespace vela::mpi {

namespace {

using vp::Error;

// What an MPI run keeps in each process; each rank touches only its own entries.
struct RunState {
  std::string program;
  std::vector<int> returned;  // by rank: what its main returned (in the process it ended in)
};

std::atomic<RunState*> current_run{nullptr};

// What each rank keeps of MPI's state: a privatized global, so it moves with the rank (to
// another process too).
struct RankMpi {
  unsigned char initialized = 0;
  unsigned char finalized = 0;
  int thread_level = MPI_THREAD_SINGLE;
};
vp::privatized<RankMpi> rank_mpi;

struct Datatype {
  const char* name;
  vp::Type type;
};

// In the order of the indices vela/mpi.h gives the datatypes.
constexpr Datatype datatypes[VMPI_DATATYPE_COUNT] = {
    {"MPI_CHAR", vp::Type::char8},
    {"MPI_SIGNED_CHAR", vp::type_of<signed char>()},
    {"MPI_UNSIGNED_CHAR", vp::type_of<unsigned char>()},
    {"MPI_BYTE", vp::Type::bytes},
    {"MPI_SHORT", vp::type_of<short>()},
    {"MPI_UNSIGNED_SHORT", vp::type_of<unsigned short>()},
    {"MPI_INT", vp::type_of<int>()},
    {"MPI_UNSIGNED", vp::type_of<unsigned>()},
    {"MPI_LONG", vp::type_of<long>()},
    {"MPI_UNSIGNED_LONG", vp::type_of<unsigned long>()},
    {"MPI_LONG_LONG", vp::type_of<long long>()},
    {"MPI_UNSIGNED_LONG_LONG", vp::type_of<unsigned long long>()},
    {"MPI_FLOAT", vp::Type::f32},
    {"MPI_DOUBLE", vp::Type::f64},
    {"MPI_LONG_DOUBLE", vp::Type::f128},
    {"MPI_DOUBLE_INT", vp::Type::pair_f64_i32},
    {"MPI_2INT", vp::Type::pair_i32_i32},
    {"MPI_INT8_T", vp::Type::i8},
    {"MPI_UINT8_T", vp::Type::u8},
    {"MPI_INT16_T", vp::Type::i16},
    {"MPI_UINT16_T", vp::Type::u16},
    {"MPI_INT32_T", vp::Type::i32},
    {"MPI_UINT32_T", vp::Type::u32},
    {"MPI_INT64_T", vp::Type::i64},
    {"MPI_UINT64_T", vp::Type::u64},
    {"MPI_C_BOOL", vp::Type::u8},
    {"MPI_WCHAR", vp::type_of<wchar_t>()},
};
static_assert(sizeof(bool) == 1, "MPI_C_BOOL is sent as one byte");

struct Operator {
  const char* name;
  vp::Op op;
};

constexpr Operator operators[VMPI_OP_COUNT] = {
    {"MPI_MAX", vp::Op::max},       {"MPI_MIN", vp::Op::min},   {"MPI_SUM", vp::Op::sum},
    {"MPI_PROD", vp::Op::prod},     {"MPI_LAND", vp::Op::land}, {"MPI_LOR", vp::Op::lor},
    {"MPI_BAND", vp::Op::band},     {"MPI_BOR", vp::Op::bor},   {"MPI_MAXLOC", vp::Op::maxloc},
    {"MPI_MINLOC", vp::Op::minloc},
};

// Stands for a request on MPI_PROC_NULL: it completes at once with MPI_PROC_NULL's status.
char proc_null_request_tag;
MPI_Request proc_null_request() {
  return reinterpret_cast<MPI_Request>(&proc_null_request_tag);
}

std::string handle_text(const void* handle) {
  char text[32];
  std::snprintf(text, sizeof text, "%#jx",
                static_cast<std::uintmax_t>(reinterpret_cast<std::uintptr_t>(handle)));
  return text;
}

[[noreturn]] void fail(const char* call, const std::string& what) {
  throw Error(std::string(call) + ": " + what);
}

// vp's messages begin with vp's own call ("recv: ..."); they are given the MPI call's name.
[[noreturn]] void rethrow_named(const char* call) {
  try {
    throw;
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.rfind(std::string(call) + ": ", 0) == 0) throw;
    std::size_t skip = 0;
    const std::size_t colon = what.find(": ");
    if (colon != std::string::npos &&
        std::all_of(what.begin(), what.begin() + static_cast<std::ptrdiff_t>(colon), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
        })) {
      skip = colon + 2;
    }
    throw Error(std::string(call) + ": " + what.substr(skip));
  } catch (const std::exception& e) {
    throw Error(std::string(call) + ": " + e.what());
  }
}

// Runs a call's body; only std::exceptions are translated, so that the unwinding of a
// cancelled rank (not a std::exception) passes through.
using Label = vp::detail::CallLabel;

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

// The checks below run on every call: each is a test, inlined, and a cold function that words
// the error.

[[gnu::cold, gnu::noinline, noreturn]] void fail_outside(const char* call) {
  fail(call,
       "called outside a rank (the file that defines main must include vela/mpi.h, and the "
       "program link vela::mpi_main)");
}

[[gnu::cold, gnu::noinline, noreturn]] void fail_not_started(const char* call) {
  fail(call, "called in a rank that vela::mpi::run did not start");
}

RunState& run_state(const char* call, const Label& label) {
  if (label.rank() < 0) [[unlikely]]
    fail_outside(call);
  RunState* state = current_run.load(std::memory_order_acquire);
  if (state == nullptr) [[unlikely]]
    fail_not_started(call);
  return *state;
}

[[gnu::cold, gnu::noinline, noreturn]] void fail_rank(const char* call, int rank) {
  fail(call, "rank " + std::to_string(rank) + " is unknown to vela::mpi::run");
}

// The calling rank's index into the run's per-rank state.
std::size_t my_rank(const char* call, const RunState& state, const Label& label) {
  const int rank = label.rank();
  if (rank < 0 || static_cast<std::size_t>(rank) >= state.returned.size()) [[unlikely]]
    fail_rank(call, rank);
  return static_cast<std::size_t>(rank);
}

[[gnu::cold, gnu::noinline, noreturn]] void fail_inactive(const char* call, bool initialized) {
  fail(call, initialized ? "called after MPI_Finalize" : "called before MPI_Init");
}

// Checks that the calling rank may make MPI calls now.
// (The label read the rank once, for all of the call's checks.)
void active(const char* call, const Label& label) {
  my_rank(call, run_state(call, label), label);
  const RankMpi& mine = rank_mpi.get();
  if (mine.initialized == 0 || mine.finalized != 0) [[unlikely]]
    fail_inactive(call, mine.initialized != 0);
}

[[gnu::cold, gnu::noinline, noreturn]] void fail_comm(const char* call, MPI_Comm comm) {
  fail(call, "communicator " +
                 std::string(comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : handle_text(comm)) +
                 " is not MPI_COMM_WORLD (the only communicator)");
}

void check_comm(const char* call, MPI_Comm comm) {
  if (comm != MPI_COMM_WORLD) [[unlikely]]
    fail_comm(call, comm);
}

[[gnu::cold, gnu::noinline, noreturn]] void fail_datatype(const char* call, MPI_Datatype datatype,
                                                          const char* what) {
  fail(call, std::string(what) + " " +
                 (datatype == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : handle_text(datatype)) +
                 " is not one of vela/mpi.h's datatypes");
}

const Datatype& datatype_of(const char* call, MPI_Datatype datatype,
                            const char* what = "datatype") {
  const auto value = reinterpret_cast<std::uintptr_t>(datatype);
  if (value < VMPI_DATATYPE_BASE || value >= VMPI_DATATYPE_BASE + VMPI_DATATYPE_COUNT) [[unlikely]]
    fail_datatype(call, datatype, what);
  return datatypes[value - VMPI_DATATYPE_BASE];
}

const Operator& operator_of(const char* call, MPI_Op op) {
  const auto value = reinterpret_cast<std::uintptr_t>(op);
  if (value < VMPI_OP_BASE || value >= VMPI_OP_BASE + VMPI_OP_COUNT) {
    fail(call, "op " + (op == MPI_OP_NULL ? std::string("MPI_OP_NULL") : handle_text(op)) +
                   " is not one of vela/mpi.h's operators");
  }
  return operators[value - VMPI_OP_BASE];
}

[[gnu::cold, gnu::noinline, noreturn]] void fail_count(const char* call, int count,
                                                       const char* what) {
  fail(call, std::string(what) + " " + std::to_string(count) + " is negative");
}

std::size_t count_of(const char* call, int count, const char* what = "count") {
  if (count < 0) [[unlikely]]
    fail_count(call, count, what);
  return static_cast<std::size_t>(count);
}

[[gnu::cold, gnu::noinline, noreturn]] void fail_buffer(const char* call, const void* buffer,
                                                        std::size_t count, const Datatype& type,
                                                        const char* what) {
  if (buffer == MPI_IN_PLACE) fail(call, std::string(what) + " cannot be MPI_IN_PLACE here");
  fail(call,
       std::string(what) + " is NULL for " + std::to_string(count) + " elements of " + type.name);
}

void check_buffer(const char* call, const void* buffer, std::size_t count, const Datatype& type,
                  const char* what = "buf") {
  if (buffer == MPI_IN_PLACE || (count > 0 && buffer == nullptr)) [[unlikely]]
    fail_buffer(call, buffer, count, type, what);
}

void check_out(const char* call, const void* pointer, const char* what) {
  if (pointer == nullptr) fail(call, std::string(what) + " is NULL");
}

[[gnu::cold, gnu::noinline, noreturn]] void fail_peer(const char* call, const char* what, int peer,
                                                      int size, bool proc_null, bool any) {
  std::string also;
  if (any) also = "MPI_ANY_SOURCE";
  if (proc_null) also += also.empty() ? "MPI_PROC_NULL" : ", MPI_PROC_NULL";
  fail(call, std::string(what) + " " + std::to_string(peer) + " is outside 0.." +
                 std::to_string(size - 1) + (also.empty() ? "" : " (or " + also + ")"));
}

// `dest`/`source`/`root` within 0..size-1, or one of the special values the call allows.
void check_peer(const Label& label, const char* call, const char* what, int peer, bool proc_null,
                bool any) {
  if (peer >= 0 && peer < label.size()) [[likely]]
    return;
  if (proc_null && peer == MPI_PROC_NULL) return;
  if (any && peer == MPI_ANY_SOURCE) return;
  fail_peer(call, what, peer, label.size(), proc_null, any);
}

[[gnu::cold, gnu::noinline, noreturn]] void fail_tag(const char* call, const char* what, int tag,
                                                     bool any) {
  fail(call, std::string(what) + " " + std::to_string(tag) + " is outside 0.." +
                 std::to_string(vp::max_tag) + (any ? " (or MPI_ANY_TAG)" : ""));
}

void check_tag(const char* call, const char* what, int tag, bool any) {
  if (tag >= 0 && tag <= vp::max_tag) [[likely]]
    return;
  if (any && tag == MPI_ANY_TAG) return;
  fail_tag(call, what, tag, any);
}

bool is_pair(vp::Type type) {
  return type == vp::Type::pair_f64_i32 || type == vp::Type::pair_i32_i32;
}

// The element type a reduction combines: MPI_BYTE is reduced as unsigned bytes.
vp::Type reduction_type(const char* call, const Datatype& type, const Operator& op) {
  const bool located = op.op == vp::Op::maxloc || op.op == vp::Op::minloc;
  if (located && !is_pair(type.type)) {
    fail(call, std::string(op.name) + " of " + type.name +
                   ": it needs a {value, index} datatype (MPI_DOUBLE_INT or MPI_2INT)");
  }
  if (!located && is_pair(type.type)) {
    fail(call, std::string(op.name) + " of " + type.name +
                   ": a {value, index} datatype takes MPI_MAXLOC or MPI_MINLOC");
  }
  const bool floating =
      type.type == vp::Type::f32 || type.type == vp::Type::f64 || type.type == vp::Type::f128;
  if ((op.op == vp::Op::band || op.op == vp::Op::bor) && floating) {
    fail(call, std::string(op.name) + " of " + type.name +
                   ": bitwise operators need an integer datatype");
  }
  return type.type == vp::Type::bytes ? vp::Type::u8 : type.type;
}

std::size_t bytes_of(std::size_t count, const Datatype& type) {
  return count * vp::size_of(type.type);
}

void fill(MPI_Status* status, const vp::Status& s) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = s.source;
  status->MPI_TAG = s.tag;
  status->MPI_ERROR = MPI_SUCCESS;
  status->vmpi_type = static_cast<int>(s.type);
  status->vmpi_bytes = s.bytes;
}

// What a receive from MPI_PROC_NULL finds.
vp::Status proc_null_status() {
  vp::Status s;
  s.source = MPI_PROC_NULL;
  s.tag = MPI_ANY_TAG;
  return s;
}

vp::Request to_vp(MPI_Request request) {
  return vp::Request(reinterpret_cast<vp::detail::RequestState*>(request));
}

MPI_Request to_mpi(const vp::Request& request) {
  return reinterpret_cast<MPI_Request>(request.state());
}

// The call's rank in the communicator (after the common checks).
int me() {
  return vp::rank();
}

}  // namespace

int run(rt::Runtime& runtime, const vp::Options& options, Main main, int argc, char** argv) {
  if (argc < 0 || (argc > 0 && argv == nullptr)) throw Error("vela::mpi::run: no argv given");
  return run(runtime, options, main, std::vector<std::string>(argv, argv + argc));
}

int run(rt::Runtime& runtime, const vp::Options& options, Main main,
        std::vector<std::string> arguments) {
  if (main == nullptr) throw Error("vela::mpi::run: no main given");
  RunState state;
  state.program =
      !arguments.empty() ? std::filesystem::path(arguments[0]).filename().string() : "mpi";
  const std::size_t ranks =
      static_cast<std::size_t>(std::max(options.ranks > 0 ? options.ranks : runtime.pes(), 0));
  state.returned.assign(ranks, 0);
  RunState* none = nullptr;
  if (!current_run.compare_exchange_strong(none, &state)) {
    throw Error("vela::mpi::run: another MPI run is under way in this process");
  }
  struct Clear {
    ~Clear() { current_run.store(nullptr); }
  } clear;
  // A checkpoint of the ranks belongs to these arguments (not the program's path).
  vp::Options with_identity = options;
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    with_identity.identity += (i > 1 ? " " : "") + arguments[i];
  }
  const int code = vp::run(runtime, with_identity, [&] {
    // Each rank gets its own argv: programs may change it (getopt permutes it).
    std::vector<std::string> own(arguments);
    std::vector<char*> pointers;
    pointers.reserve(own.size() + 1);
    for (std::string& a : own) pointers.push_back(a.data());
    pointers.push_back(nullptr);
    const int returned = main(static_cast<int>(own.size()), pointers.data());
    // The rank may have moved to another process meanwhile: only what is at the same address
    // in every process may be used from here on (the run's state is found again, not
    // reached through this lambda's captures).
    RunState& here = *current_run.load(std::memory_order_acquire);
    const auto rank = static_cast<std::size_t>(vp::rank());
    if (rank < here.returned.size()) here.returned[rank] = returned;
  });
  if (code != 0) return code;
  for (const int returned : state.returned) {
    if (returned != 0) return returned;
  }
  return 0;
}

}  // namespace vela::mpi

using namespace vela;
using namespace vela::mpi;

extern "C" {

int VMPI_Init(int* argc, char*** argv) {
  constexpr const char* call = "MPI_Init";
  static_cast<void>(argc);  // the runtime's options were taken out before main
  static_cast<void>(argv);
  return guarded(call, [&](const Label& label) {
    my_rank(call, run_state(call, label), label);
    if (rank_mpi.get().initialized != 0) fail(call, "called twice");
    rank_mpi.get().initialized = 1;
  });
}

int VMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  constexpr const char* call = "MPI_Init_thread";
  static_cast<void>(argc);
  static_cast<void>(argv);
  return guarded(call, [&](const Label& label) {
    check_out(call, provided, "provided");
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
      fail(call, "required " + std::to_string(required) +
                     " is not one of MPI_THREAD_SINGLE..MPI_THREAD_MULTIPLE");
    }
    my_rank(call, run_state(call, label), label);
    if (rank_mpi.get().initialized != 0) fail(call, "called twice");
    rank_mpi.get().initialized = 1;
    // Only the thread that runs the rank may call MPI: at most funneled.
    *provided = std::min(required, MPI_THREAD_FUNNELED);
    rank_mpi.get().thread_level = *provided;
  });
}

int VMPI_Query_thread(int* provided) {
  constexpr const char* call = "MPI_Query_thread";
  return guarded(call, [&](const Label& label) {
    check_out(call, provided, "provided");
    active(call, label);
    *provided = rank_mpi.get().thread_level;
  });
}

int VMPI_Initialized(int* flag) {
  constexpr const char* call = "MPI_Initialized";
  return guarded(call, [&] {
    check_out(call, flag, "flag");
    *flag = 0;
    RunState* state = current_run.load(std::memory_order_acquire);
    if (state == nullptr || !vp::in_rank()) return;
    *flag = rank_mpi.get().initialized != 0;
  });
}

int VMPI_Finalize(void) {
  constexpr const char* call = "MPI_Finalize";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    vp::barrier();
    rank_mpi.get().finalized = 1;
  });
}

int VMPI_Finalized(int* flag) {
  constexpr const char* call = "MPI_Finalized";
  return guarded(call, [&] {
    check_out(call, flag, "flag");
    *flag = 0;
    RunState* state = current_run.load(std::memory_order_acquire);
    if (state == nullptr || !vp::in_rank()) return;
    *flag = rank_mpi.get().finalized != 0;
  });
}

int VMPI_Comm_rank(MPI_Comm comm, int* rank) {
  constexpr const char* call = "MPI_Comm_rank";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    check_out(call, rank, "rank");
    *rank = label.rank();
  });
}

int VMPI_Comm_size(MPI_Comm comm, int* size) {
  constexpr const char* call = "MPI_Comm_size";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    check_out(call, size, "size");
    *size = label.size();
  });
}

int VMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  constexpr const char* call = "MPI_Send";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    const Datatype& type = datatype_of(call, datatype);
    const std::size_t n = count_of(call, count);
    check_buffer(call, buf, n, type);
    check_peer(label, call, "dest", dest, true, false);
    check_tag(call, "tag", tag, false);
    if (dest != MPI_PROC_NULL) vp::send(buf, n, type.type, dest, tag);
  });
}

int VMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status* status) {
  constexpr const char* call = "MPI_Recv";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    const Datatype& type = datatype_of(call, datatype);
    const std::size_t n = count_of(call, count);
    check_buffer(call, buf, n, type);
    check_peer(label, call, "source", source, true, true);
    check_tag(call, "tag", tag, true);
    fill(status,
         source == MPI_PROC_NULL ? proc_null_status() : vp::recv(buf, n, type.type, source, tag));
  });
}

int VMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  constexpr const char* call = "MPI_Isend";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    const Datatype& type = datatype_of(call, datatype);
    const std::size_t n = count_of(call, count);
    check_buffer(call, buf, n, type);
    check_peer(label, call, "dest", dest, true, false);
    check_tag(call, "tag", tag, false);
    check_out(call, request, "request");
    *request = dest == MPI_PROC_NULL ? proc_null_request()
                                     : to_mpi(vp::isend(buf, n, type.type, dest, tag));
  });
}

int VMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
  constexpr const char* call = "MPI_Irecv";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    const Datatype& type = datatype_of(call, datatype);
    const std::size_t n = count_of(call, count);
    check_buffer(call, buf, n, type);
    check_peer(label, call, "source", source, true, true);
    check_tag(call, "tag", tag, true);
    check_out(call, request, "request");
    *request = source == MPI_PROC_NULL ? proc_null_request()
                                       : to_mpi(vp::irecv(buf, n, type.type, source, tag));
  });
}

int VMPI_Wait(MPI_Request* request, MPI_Status* status) {
  constexpr const char* call = "MPI_Wait";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, request, "request");
    if (*request == proc_null_request()) {
      *request = MPI_REQUEST_NULL;
      fill(status, proc_null_status());
      return;
    }
    vp::Request r = to_vp(*request);
    *request = MPI_REQUEST_NULL;  // vp frees the request even when the wait fails
    fill(status, vp::wait(r));
  });
}

int VMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  constexpr const char* call = "MPI_Waitall";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    const std::size_t n = count_of(call, count);
    if (n > 0) check_out(call, requests, "requests");
    std::vector<vp::Request> pending(n);
    std::vector<vp::Status> found(statuses == MPI_STATUSES_IGNORE ? 0 : n);
    std::vector<std::size_t> proc_null;
    for (std::size_t i = 0; i < n; ++i) {
      if (requests[i] == proc_null_request()) {
        proc_null.push_back(i);
      } else {
        pending[i] = to_vp(requests[i]);
      }
      requests[i] = MPI_REQUEST_NULL;  // vp frees them all, also when one fails
    }
    vp::waitall(pending, found);
    for (const std::size_t i : proc_null) {
      if (!found.empty()) found[i] = proc_null_status();
    }
    for (std::size_t i = 0; i < found.size(); ++i) fill(&statuses[i], found[i]);
  });
}

int VMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  constexpr const char* call = "MPI_Waitany";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    const std::size_t n = count_of(call, count);
    if (n > 0) check_out(call, requests, "requests");
    check_out(call, index, "index");
    std::vector<vp::Request> pending(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (requests[i] == proc_null_request()) {
        requests[i] = MPI_REQUEST_NULL;
        *index = static_cast<int>(i);
        fill(status, proc_null_status());
        return;
      }
      pending[i] = to_vp(requests[i]);
    }
    vp::Status s;
    const int done = vp::waitany(pending, &s);
    if (done < 0) {
      *index = MPI_UNDEFINED;
    } else {
      *index = done;
      requests[done] = MPI_REQUEST_NULL;
    }
    fill(status, s);
  });
}

int VMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  constexpr const char* call = "MPI_Test";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, request, "request");
    check_out(call, flag, "flag");
    if (*request == proc_null_request()) {
      *request = MPI_REQUEST_NULL;
      *flag = 1;
      fill(status, proc_null_status());
      return;
    }
    vp::Request r = to_vp(*request);
    vp::Status s;
    *flag = 0;
    if (vp::test(r, &s)) {
      *request = MPI_REQUEST_NULL;
      *flag = 1;
      fill(status, s);
    }
  });
}

int VMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status* status) {
  constexpr const char* call = "MPI_Sendrecv";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    const Datatype& stype = datatype_of(call, sendtype, "sendtype");
    const std::size_t sn = count_of(call, sendcount, "sendcount");
    check_buffer(call, sendbuf, sn, stype, "sendbuf");
    check_peer(label, call, "dest", dest, true, false);
    check_tag(call, "sendtag", sendtag, false);
    const Datatype& rtype = datatype_of(call, recvtype, "recvtype");
    const std::size_t rn = count_of(call, recvcount, "recvcount");
    check_buffer(call, recvbuf, rn, rtype, "recvbuf");
    check_peer(label, call, "source", source, true, true);
    check_tag(call, "recvtag", recvtag, true);
    if (dest != MPI_PROC_NULL && source != MPI_PROC_NULL) {
      fill(status, vp::sendrecv(sendbuf, sn, stype.type, dest, sendtag, recvbuf, rn, rtype.type,
                                source, recvtag));
      return;
    }
    if (dest != MPI_PROC_NULL) vp::send(sendbuf, sn, stype.type, dest, sendtag);
    fill(status, source == MPI_PROC_NULL ? proc_null_status()
                                         : vp::recv(recvbuf, rn, rtype.type, source, recvtag));
  });
}

int VMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  constexpr const char* call = "MPI_Sendrecv_replace";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    const Datatype& type = datatype_of(call, datatype);
    const std::size_t n = count_of(call, count);
    check_buffer(call, buf, n, type);
    check_peer(label, call, "dest", dest, true, false);
    check_tag(call, "sendtag", sendtag, false);
    check_peer(label, call, "source", source, true, true);
    check_tag(call, "recvtag", recvtag, true);
    // Sends are copied when made, so sending first and receiving into buf needs no copy.
    if (dest != MPI_PROC_NULL) vp::send(buf, n, type.type, dest, sendtag);
    fill(status, source == MPI_PROC_NULL ? proc_null_status()
                                         : vp::recv(buf, n, type.type, source, recvtag));
  });
}

int VMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  constexpr const char* call = "MPI_Probe";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    check_peer(label, call, "source", source, true, true);
    check_tag(call, "tag", tag, true);
    fill(status, source == MPI_PROC_NULL ? proc_null_status() : vp::probe(source, tag));
  });
}

int VMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  constexpr const char* call = "MPI_Iprobe";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    check_peer(label, call, "source", source, true, true);
    check_tag(call, "tag", tag, true);
    check_out(call, flag, "flag");
    if (source == MPI_PROC_NULL) {
      *flag = 1;
      fill(status, proc_null_status());
      return;
    }
    const std::optional<vp::Status> s = vp::iprobe(source, tag);
    *flag = s.has_value();
    if (s) fill(status, *s);
  });
}

int VMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  constexpr const char* call = "MPI_Get_count";
  return guarded(call, [&] {
    if (status == MPI_STATUS_IGNORE) fail(call, "status is MPI_STATUS_IGNORE (NULL)");
    const Datatype& type = datatype_of(call, datatype);
    check_out(call, count, "count");
    const std::size_t element = vp::size_of(type.type);
    const std::size_t elements = status->vmpi_bytes / element;
    *count = status->vmpi_bytes % element != 0 || elements > INT_MAX ? MPI_UNDEFINED
                                                                     : static_cast<int>(elements);
  });
}

int VMPI_Barrier(MPI_Comm comm) {
  constexpr const char* call = "MPI_Barrier";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    vp::barrier();
  });
}

int VMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Bcast";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    const Datatype& type = datatype_of(call, datatype);
    const std::size_t n = count_of(call, count);
    check_buffer(call, buffer, n, type, "buffer");
    check_peer(label, call, "root", root, false, false);
    vp::bcast(buffer, n, type.type, root);
  });
}

int VMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Reduce";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    const Datatype& type = datatype_of(call, datatype);
    const Operator& o = operator_of(call, op);
    const vp::Type element = reduction_type(call, type, o);
    const std::size_t n = count_of(call, count);
    check_peer(label, call, "root", root, false, false);
    const bool at_root = me() == root;
    std::vector<std::byte> copy;
    if (sendbuf == MPI_IN_PLACE) {
      if (!at_root) fail(call, "MPI_IN_PLACE is the send buffer of the root only");
      check_buffer(call, recvbuf, n, type, "recvbuf");
      copy.resize(bytes_of(n, type));
      if (!copy.empty()) std::memcpy(copy.data(), recvbuf, copy.size());
      sendbuf = copy.data();
    }
    check_buffer(call, sendbuf, n, type, "sendbuf");
    if (at_root) check_buffer(call, recvbuf, n, type, "recvbuf");
    vp::reduce(sendbuf, recvbuf, n, element, o.op, root);
  });
}

int VMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm) {
  constexpr const char* call = "MPI_Allreduce";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    const Datatype& type = datatype_of(call, datatype);
    const Operator& o = operator_of(call, op);
    const vp::Type element = reduction_type(call, type, o);
    const std::size_t n = count_of(call, count);
    check_buffer(call, recvbuf, n, type, "recvbuf");
    std::vector<std::byte> copy;
    if (sendbuf == MPI_IN_PLACE) {
      copy.resize(bytes_of(n, type));
      if (!copy.empty()) std::memcpy(copy.data(), recvbuf, copy.size());
      sendbuf = copy.data();
    }
    check_buffer(call, sendbuf, n, type, "sendbuf");
    vp::allreduce(sendbuf, recvbuf, n, element, o.op);
  });
}

namespace {

// The bytes each rank contributes to a gather-like call: sendcount of sendtype, which must
// match recvcount of recvtype where the receive side counts.
std::size_t block_bytes(const char* call, int sendcount, MPI_Datatype sendtype, int recvcount,
                        MPI_Datatype recvtype, bool send_side, bool receive_side) {
  std::size_t send_bytes = 0;
  std::size_t receive_bytes = 0;
  const Datatype* stype = nullptr;
  const Datatype* rtype = nullptr;
  if (send_side) {
    stype = &datatype_of(call, sendtype, "sendtype");
    send_bytes = bytes_of(count_of(call, sendcount, "sendcount"), *stype);
  }
  if (receive_side) {
    rtype = &datatype_of(call, recvtype, "recvtype");
    receive_bytes = bytes_of(count_of(call, recvcount, "recvcount"), *rtype);
  }
  if (send_side && receive_side && send_bytes != receive_bytes) {
    fail(call, "recvcount " + std::to_string(recvcount) + " of " + rtype->name + " (" +
                   std::to_string(receive_bytes) + " bytes) does not match sendcount " +
                   std::to_string(sendcount) + " of " + stype->name + " (" +
                   std::to_string(send_bytes) + " bytes)");
  }
  return send_side ? send_bytes : receive_bytes;
}

void check_bytes(const char* call, const void* buffer, std::size_t bytes, const char* what) {
  if (buffer == MPI_IN_PLACE) fail(call, std::string(what) + " cannot be MPI_IN_PLACE here");
  if (bytes > 0 && buffer == nullptr) {
    fail(call, std::string(what) + " is NULL for " + std::to_string(bytes) + " bytes");
  }
}

std::vector<std::byte> copy_of(const void* from, std::size_t bytes) {
  std::vector<std::byte> copy(bytes);
  if (bytes > 0) std::memcpy(copy.data(), from, bytes);
  return copy;
}

// A copy of block `index` (of `bytes` bytes) of `buffer`: an in-place caller's own contribution.
std::vector<std::byte> block_of(const void* buffer, int index, std::size_t bytes) {
  return copy_of(static_cast<const std::byte*>(buffer) + static_cast<std::size_t>(index) * bytes,
                 bytes);
}

}  // namespace

int VMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Gather";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    check_peer(label, call, "root", root, false, false);
    const bool at_root = me() == root;
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (in_place && !at_root) fail(call, "MPI_IN_PLACE is the send buffer of the root only");
    // The receive arguments count at the root only.
    const std::size_t bytes =
        block_bytes(call, sendcount, sendtype, recvcount, recvtype, !in_place, at_root);
    std::vector<std::byte> own;
    if (at_root)
      check_bytes(call, recvbuf, bytes * static_cast<std::size_t>(label.size()), "recvbuf");
    if (in_place) {
      own = block_of(recvbuf, root, bytes);
      sendbuf = own.data();
    }
    check_bytes(call, sendbuf, bytes, "sendbuf");
    vp::gather(sendbuf, bytes, vp::Type::bytes, recvbuf, root);
  });
}

int VMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr const char* call = "MPI_Allgather";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const std::size_t bytes =
        block_bytes(call, sendcount, sendtype, recvcount, recvtype, !in_place, true);
    check_bytes(call, recvbuf, bytes * static_cast<std::size_t>(label.size()), "recvbuf");
    std::vector<std::byte> own;
    if (in_place) {
      own = block_of(recvbuf, me(), bytes);
      sendbuf = own.data();
    }
    check_bytes(call, sendbuf, bytes, "sendbuf");
    vp::allgather(sendbuf, bytes, vp::Type::bytes, recvbuf);
  });
}

int VMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  constexpr const char* call = "MPI_Scatter";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    check_peer(label, call, "root", root, false, false);
    const bool at_root = me() == root;
    const bool in_place = recvbuf == MPI_IN_PLACE;
    if (in_place && !at_root) fail(call, "MPI_IN_PLACE is the receive buffer of the root only");
    // The send arguments count at the root only.
    const std::size_t bytes =
        block_bytes(call, sendcount, sendtype, recvcount, recvtype, at_root, !in_place);
    if (at_root)
      check_bytes(call, sendbuf, bytes * static_cast<std::size_t>(label.size()), "sendbuf");
    std::vector<std::byte> discarded;
    if (in_place) {
      discarded.resize(bytes);  // the root's block stays where it is in sendbuf
      recvbuf = discarded.data();
    }
    check_bytes(call, recvbuf, bytes, "recvbuf");
    vp::scatter(sendbuf, bytes, vp::Type::bytes, recvbuf, root);
  });
}

int VMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  constexpr const char* call = "MPI_Alltoall";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_comm(call, comm);
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const std::size_t bytes =
        block_bytes(call, sendcount, sendtype, recvcount, recvtype, !in_place, true);
    const std::size_t all = bytes * static_cast<std::size_t>(label.size());
    check_bytes(call, recvbuf, all, "recvbuf");
    std::vector<std::byte> copy;
    if (in_place) {
      copy = copy_of(recvbuf, all);
      sendbuf = copy.data();
    }
    check_bytes(call, sendbuf, all, "sendbuf");
    vp::alltoall(sendbuf, bytes, vp::Type::bytes, recvbuf);
  });
}

double VMPI_Wtime(void) {
  constexpr const char* call = "MPI_Wtime";
  double t = 0.0;
  guarded(call, [&](const Label& label) {
    run_state(call, label);
    t = vp::wtime();
  });
  return t;
}

double VMPI_Wtick(void) {
  return 1e-9;  // steady_clock's resolution on Linux
}

int VMPI_Abort(MPI_Comm comm, int errorcode) {
  constexpr const char* call = "MPI_Abort";
  return guarded(call, [&](const Label& label) {
    run_state(call, label);
    check_comm(call, comm);
    std::fflush(stdout);
    vp::abort(errorcode);
  });
}

int VMPI_Get_processor_name(char* name, int* resultlen) {
  constexpr const char* call = "MPI_Get_processor_name";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, name, "name");
    check_out(call, resultlen, "resultlen");
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
    std::strcpy(name, host);
    *resultlen = static_cast<int>(std::strlen(name));
  });
}

int VMPI_Get_version(int* version, int* subversion) {
  constexpr const char* call = "MPI_Get_version";
  return guarded(call, [&] {
    check_out(call, version, "version");
    check_out(call, subversion, "subversion");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
  });
}

int VMPI_Error_string(int errorcode, char* string, int* resultlen) {
  constexpr const char* call = "MPI_Error_string";
  static const char* const texts[MPI_ERR_LASTCODE] = {
      "MPI_SUCCESS: no error",
      "MPI_ERR_BUFFER: invalid buffer pointer",
      "MPI_ERR_COUNT: invalid count argument",
      "MPI_ERR_TYPE: invalid datatype",
      "MPI_ERR_TAG: invalid tag",
      "MPI_ERR_COMM: invalid communicator",
      "MPI_ERR_RANK: invalid rank",
      "MPI_ERR_REQUEST: invalid request",
      "MPI_ERR_ROOT: invalid root",
      "MPI_ERR_OP: invalid reduce operation",
      "MPI_ERR_ARG: invalid argument of some other kind",
      "MPI_ERR_UNKNOWN: unknown error",
      "MPI_ERR_TRUNCATE: message truncated",
      "MPI_ERR_OTHER: known error not in this list",
      "MPI_ERR_INTERN: internal error",
  };
  return guarded(call, [&] {
    check_out(call, string, "string");
    check_out(call, resultlen, "resultlen");
    if (errorcode < 0 || errorcode >= MPI_ERR_LASTCODE) {
      fail(call, "errorcode " + std::to_string(errorcode) + " is outside 0.." +
                     std::to_string(MPI_ERR_LASTCODE - 1));
    }
    std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", texts[errorcode]);
    *resultlen = static_cast<int>(std::strlen(string));
  });
}

int VMPI_Type_size(MPI_Datatype datatype, int* size) {
  constexpr const char* call = "MPI_Type_size";
  return guarded(call, [&] {
    const Datatype& type = datatype_of(call, datatype);
    check_out(call, size, "size");
    *size = static_cast<int>(vp::size_of(type.type));
  });
}

int VMPI_Pcontrol(const int level, ...) {
  static_cast<void>(level);
  return MPI_SUCCESS;
}

int VMPI_Migrate(void) {
  constexpr const char* call = "MPI_Migrate";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    vp::migrate();
  });
}

int VMPI_Yield(void) {
  constexpr const char* call = "MPI_Yield";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    vp::yield();
  });
}

}  // extern "C"
