// MPI's environment (the standard's chapters on the environment and on process initialization):
// the run of an MPI program as ranks (vela::mpi::run), MPI_Init and MPI_Finalize and the
// questions about them, the clock, MPI_Abort, the processor's name, the version and the error
// strings.
#include "internal.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "vela/mpi/run.hpp"

namespace vela::mpi {

namespace detail {

std::atomic<RunState*> current_run{nullptr};
vp::privatized<RankMpi> rank_mpi;

}  // namespace detail

using namespace detail;

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

namespace {

// Marks the calling rank initialized (once).
void initialize(const char* call, const Label& label) {
  my_rank(call, run_state(call, label), label);
  if (rank_mpi.get().initialized != 0) fail(call, "called twice");
  rank_mpi.get().initialized = 1;
}

// MPI_Initialized and MPI_Finalized: `which` of the calling rank's state, 0 outside a rank of a
// run.
int state_flag(const char* call, int* flag, unsigned char RankMpi::*which) {
  return guarded(call, [&] {
    check_out(call, flag, "flag");
    *flag = 0;
    RunState* state = current_run.load(std::memory_order_acquire);
    if (state == nullptr || !vp::in_rank()) return;
    *flag = rank_mpi.get().*which != 0;
  });
}

}  // namespace

}  // namespace vela::mpi

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VMPI_Init(int* argc, char*** argv) {
  constexpr const char* call = "MPI_Init";
  static_cast<void>(argc);  // the runtime's options were taken out before main
  static_cast<void>(argv);
  return guarded(call, [&](const Label& label) { vela::mpi::initialize(call, label); });
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
    vela::mpi::initialize(call, label);
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
  return vela::mpi::state_flag("MPI_Initialized", flag, &RankMpi::initialized);
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
  return vela::mpi::state_flag("MPI_Finalized", flag, &RankMpi::finalized);
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

// The profiling interface's control: nothing to control.
int VMPI_Pcontrol(const int level, ...) {
  static_cast<void>(level);
  return MPI_SUCCESS;
}

}  // extern "C"
