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
#include "vela/vp/privatized.hpp"

namespace vela::mpi {

namespace detail {

std::atomic<RunState*> current_run{nullptr};
vp::privatized<RankMpi> rank_mpi;

}  // namespace detail

using namespace detail;

namespace {

// --vp-balance-every: its K checked for callers that fill vp::Options themselves (the command
// line's parse checks both parts).
void set_balancing(RunState& state, const vp::Options& options) {
  if (options.balance_at == vp::BalanceAt::none) return;
  if (options.balance_every < 1) {
    throw Error("--vp-balance-every: K " + std::to_string(options.balance_every) +
                ": expected CALL:K with K a positive integer");
  }
  state.balance_at = options.balance_at;
  state.balance_every = static_cast<std::uint64_t>(options.balance_every);
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
  state.pid = static_cast<int>(::getpid());
  set_balancing(state, options);
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
    // A child the rank forked (osu_latency_mp forks senders) is a copy of one thread of this
    // process, without the runtime's other threads: it ends here, as a process whose main
    // returned, after flushing what it printed.
    if (static_cast<int>(::getpid()) != current_run.load(std::memory_order_acquire)->pid) {
      std::fflush(nullptr);
      ::_exit(returned);
    }
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

namespace detail {

// ---- error handlers ----

Errhandler& errhandler_of(const char* call, Objects& objects, MPI_Errhandler handler) {
  const auto value = reinterpret_cast<std::uintptr_t>(handler);
  Errhandler* found = nullptr;
  if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) == VMPI_ERRHANDLER_BASE)
    found = objects.errhandlers.find(static_cast<int>(value & VMPI_INDEX_MASK));
  if (found == nullptr) {
    fail(call, MPI_ERR_ARG,
         "errhandler " +
             (handler == MPI_ERRHANDLER_NULL ? std::string("MPI_ERRHANDLER_NULL")
                                             : handle_text(handler)) +
             " is not an error handler of this rank (never made, or freed)");
  }
  return *found;
}

int errhandler_index(MPI_Errhandler handler) {
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(handler) & VMPI_INDEX_MASK);
}

MPI_Errhandler errhandler_handle(int index) {
  return reinterpret_cast<MPI_Errhandler>(
      static_cast<std::uintptr_t>(VMPI_ERRHANDLER_BASE + index));
}

}  // namespace detail

namespace {

// The rank's objects as MPI_Init leaves them: MPI_COMM_WORLD, MPI_COMM_SELF, the predefined
// error handlers, MPI_GROUP_EMPTY and MPI_INFO_ENV, in the rank's heap.
Objects* make_objects(int rank, int size) {
  const InRankHeap heap;
  auto* objects = new Objects;
  Communicator world;
  world.group = Group::strided(0, 1, size);
  world.rank = rank;
  world.context = 0;
  world.name = "MPI_COMM_WORLD";
  Communicator self;
  self.group = Group::strided(rank, 1, 1);
  self.context = 1;
  self.name = "MPI_COMM_SELF";
  objects->comms.add(std::move(world));
  objects->comms.add(std::move(self));
  objects->by_context[0] = world_index;
  objects->by_context[1] = self_index;
  objects->errhandlers.add(Errhandler{Errhandler::Kind::fatal, nullptr});
  objects->errhandlers.add(Errhandler{Errhandler::Kind::give_back, nullptr});
  objects->groups.add(Group{});
  objects->infos.add(Info{});                                  // MPI_INFO_ENV
  objects->infos.add(Info{{{"ampi_load_balance", "sync"}}});   // MPI_INFO_LB_SYNC
  objects->infos.add(Info{{{"ampi_load_balance", "async"}}});  // MPI_INFO_LB_ASYNC
  objects->tag_ub = vp::max_tag;
  objects->host = MPI_PROC_NULL;
  objects->io = MPI_ANY_SOURCE;
  objects->universe_size = size;
  objects->last_used_code = MPI_ERR_LASTCODE;
  objects->next_idup_context = idup_contexts + static_cast<std::uint32_t>(rank);
  objects->idup_stride = static_cast<std::uint32_t>(size);
  return objects;
}

// Marks the calling rank initialized (once).
void initialize(const char* call, const Label& label) {
  my_rank(call, run_state(call, label), label);
  RankMpi& mine = rank_mpi.get();
  if (mine.initialized != 0) fail(call, MPI_ERR_OTHER, "called twice");
  mine.objects = make_objects(label.rank(), label.size());
  mine.initialized = 1;
  // What every call on MPI_COMM_WORLD reads first, asked for ahead of the rank's resumption
  // when its PE resumes many ranks in a row (vp::detail::note_resume_line).
  const Communicator* world = mine.objects->comms.find(world_index);
  vp::detail::note_resume_line(&mine);
  vp::detail::note_resume_line(&mine.objects->comms);
  vp::detail::note_resume_line(world);
  vp::detail::note_resume_line(&world->calls);
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

// The words of each error class, by class (vela/mpi.h's numbering).
constexpr const char* error_texts[MPI_ERR_LASTCODE] = {
    "MPI_SUCCESS: no error",
    "MPI_ERR_BUFFER: invalid buffer pointer",
    "MPI_ERR_COUNT: invalid count argument",
    "MPI_ERR_TYPE: invalid datatype",
    "MPI_ERR_TAG: invalid tag",
    "MPI_ERR_COMM: invalid communicator",
    "MPI_ERR_RANK: invalid rank",
    "MPI_ERR_REQUEST: invalid request",
    "MPI_ERR_ROOT: invalid root",
    "MPI_ERR_GROUP: invalid group",
    "MPI_ERR_OP: invalid reduce operation",
    "MPI_ERR_TOPOLOGY: invalid topology",
    "MPI_ERR_DIMS: invalid dimension argument",
    "MPI_ERR_ARG: invalid argument of some other kind",
    "MPI_ERR_UNKNOWN: unknown error",
    "MPI_ERR_TRUNCATE: message truncated",
    "MPI_ERR_OTHER: known error not in this list",
    "MPI_ERR_INTERN: internal error",
    "MPI_ERR_IN_STATUS: error code is in status",
    "MPI_ERR_PENDING: pending request",
    "MPI_ERR_KEYVAL: invalid keyval",
    "MPI_ERR_NO_MEM: out of memory",
    "MPI_ERR_BASE: invalid base argument to MPI_Free_mem",
    "MPI_ERR_INFO_KEY: key longer than MPI_MAX_INFO_KEY",
    "MPI_ERR_INFO_VALUE: value longer than MPI_MAX_INFO_VAL",
    "MPI_ERR_INFO_NOKEY: key not defined in the info object",
    "MPI_ERR_SPAWN: error in spawning processes",
    "MPI_ERR_PORT: invalid port name",
    "MPI_ERR_SERVICE: invalid service name",
    "MPI_ERR_NAME: invalid service name in MPI_Lookup_name",
    "MPI_ERR_WIN: invalid window",
    "MPI_ERR_SIZE: invalid size argument",
    "MPI_ERR_DISP: invalid displacement argument",
    "MPI_ERR_INFO: invalid info argument",
    "MPI_ERR_LOCKTYPE: invalid lock type",
    "MPI_ERR_ASSERT: invalid assert argument",
    "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
    "MPI_ERR_RMA_SYNC: wrong synchronization of one-sided calls",
    "MPI_ERR_RMA_RANGE: target memory outside the window",
    "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    "MPI_ERR_RMA_SHARED: memory cannot be shared",
    "MPI_ERR_RMA_FLAVOR: wrong flavor of window",
    "MPI_ERR_FILE: invalid file handle",
    "MPI_ERR_NOT_SAME: collective argument not identical on all processes",
    "MPI_ERR_AMODE: invalid access mode",
    "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
    "MPI_ERR_NO_SUCH_FILE: file does not exist",
    "MPI_ERR_FILE_EXISTS: file exists",
    "MPI_ERR_BAD_FILE: invalid file name",
    "MPI_ERR_ACCESS: permission denied",
    "MPI_ERR_NO_SPACE: not enough space",
    "MPI_ERR_QUOTA: quota exceeded",
    "MPI_ERR_READ_ONLY: read-only file or file system",
    "MPI_ERR_FILE_IN_USE: file in use",
    "MPI_ERR_DUP_DATAREP: data representation already defined",
    "MPI_ERR_CONVERSION: error in a data conversion function",
    "MPI_ERR_IO: other I/O error",
};

// The calling rank's objects if it has any (MPI_Init done), else nullptr: error codes may be
// asked about before MPI_Init, when only the predefined ones exist.
Objects* objects_if_any() {
  if (current_run.load(std::memory_order_acquire) == nullptr || !vp::in_rank()) return nullptr;
  return rank_mpi.get().objects;
}

// The program's error entry of `errorcode`, or nullptr for a predefined code; fails on a code
// that is neither.
const Objects::UserError* check_error_code(const char* call, int errorcode) {
  if (errorcode >= 0 && errorcode < MPI_ERR_LASTCODE) return nullptr;
  const Objects* objects = objects_if_any();
  const std::size_t added = objects == nullptr ? 0 : objects->user_errors.size();
  const long index = static_cast<long>(errorcode) - (MPI_ERR_LASTCODE + 1);
  if (index < 0 || static_cast<std::size_t>(index) >= added) {
    fail(call, MPI_ERR_ARG,
         "errorcode " + std::to_string(errorcode) + " is neither a predefined code (0.." +
             std::to_string(MPI_ERR_LASTCODE - 1) + ") nor one the rank added" +
             (added == 0 ? std::string(" (it added none)")
                         : " (" + std::to_string(MPI_ERR_LASTCODE + 1) + ".." +
                               std::to_string(MPI_ERR_LASTCODE + added) + ")"));
  }
  return &objects->user_errors[static_cast<std::size_t>(index)];
}

// The text of a valid error code.
std::string error_text(const char* call, int errorcode) {
  const Objects::UserError* user = check_error_code(call, errorcode);
  return user == nullptr ? error_texts[errorcode] : user->text;
}

// Copies `text` into `out` (room for `room` characters and the terminating zero); its length.
void copy_text(const std::string& text, char* out, int room, int* length) {
  const std::size_t n = std::min(text.size(), static_cast<std::size_t>(room));
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
  if (length != nullptr) *length = static_cast<int>(n);
}

// ---- info objects ----

Info& info_of(const char* call, Objects& objects, MPI_Info info, const char* what = "info") {
  const auto value = reinterpret_cast<std::uintptr_t>(info);
  Info* found = nullptr;
  if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) == VMPI_INFO_BASE)
    found = objects.infos.find(static_cast<int>(value & VMPI_INDEX_MASK));
  if (found == nullptr) {
    fail(call, MPI_ERR_INFO,
         std::string(what) + " " + (info == MPI_INFO_NULL ? "MPI_INFO_NULL" : handle_text(info)) +
             " is not an info object of this rank (never made, or freed)");
  }
  return *found;
}

MPI_Info info_handle(int index) {
  return reinterpret_cast<MPI_Info>(static_cast<std::uintptr_t>(VMPI_INFO_BASE + index));
}

std::string info_key(const char* call, const char* key) {
  check_out(call, key, "key");
  const std::string k(key);
  if (k.empty() || k.size() > MPI_MAX_INFO_KEY) {
    fail(call, MPI_ERR_INFO_KEY,
         "key \"" + k + "\" is empty or longer than MPI_MAX_INFO_KEY (" +
             std::to_string(MPI_MAX_INFO_KEY) + ")");
  }
  return k;
}

std::pair<std::string, std::string>* find_key(Info& info, const std::string& key) {
  for (auto& entry : info.entries) {
    if (entry.first == key) return &entry;
  }
  return nullptr;
}

int create_errhandler(const char* call, MPI_Comm_errhandler_function* function,
                      MPI_Errhandler* errhandler) {
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, reinterpret_cast<const void*>(function), "function");
    check_out(call, errhandler, "errhandler");
    const InRankHeap heap;
    *errhandler = errhandler_handle(
        objects.errhandlers.add(Errhandler{Errhandler::Kind::function, function}));
  });
}

int set_errhandler(const char* call, MPI_Comm comm, MPI_Errhandler errhandler) {
  return guarded_on(call, comm, [&](const Label& label) {
    Objects& objects = active(call, label);
    Communicator& c = comm_of(call, objects, comm);
    errhandler_of(call, objects, errhandler);
    c.errhandler = errhandler_index(errhandler);
  });
}

int get_errhandler(const char* call, MPI_Comm comm, MPI_Errhandler* errhandler) {
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    check_out(call, errhandler, "errhandler");
    *errhandler = errhandler_handle(c.errhandler);
  });
}

}  // namespace
}  // namespace vela::mpi

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VPMPI_Init(int* argc, char*** argv) {
  constexpr const char* call = "MPI_Init";
  static_cast<void>(argc);  // the runtime's options were taken out before main
  static_cast<void>(argv);
  return guarded(call, [&](const Label& label) { vela::mpi::initialize(call, label); });
}

int VPMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  constexpr const char* call = "MPI_Init_thread";
  static_cast<void>(argc);
  static_cast<void>(argv);
  return guarded(call, [&](const Label& label) {
    check_out(call, provided, "provided");
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
      fail(call, MPI_ERR_ARG,
           "required " + std::to_string(required) +
               " is not one of MPI_THREAD_SINGLE..MPI_THREAD_MULTIPLE");
    }
    vela::mpi::initialize(call, label);
    // Only the thread that runs the rank may call MPI: at most funneled.
    *provided = std::min(required, MPI_THREAD_FUNNELED);
    rank_mpi.get().thread_level = *provided;
  });
}

int VPMPI_Query_thread(int* provided) {
  constexpr const char* call = "MPI_Query_thread";
  return guarded(call, [&](const Label& label) {
    check_out(call, provided, "provided");
    active(call, label);
    *provided = rank_mpi.get().thread_level;
  });
}

int VPMPI_Is_thread_main(int* flag) {
  constexpr const char* call = "MPI_Is_thread_main";
  return guarded(call, [&](const Label& label) {
    check_out(call, flag, "flag");
    active(call, label);
    *flag = 1;  // a rank's MPI calls come from the thread that runs it
  });
}

int VPMPI_Initialized(int* flag) {
  return vela::mpi::state_flag("MPI_Initialized", flag, &RankMpi::initialized);
}

int VPMPI_Finalize(void) {
  constexpr const char* call = "MPI_Finalize";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    vp::barrier();
    rank_mpi.get().finalized = 1;
  });
}

int VPMPI_Finalized(int* flag) {
  return vela::mpi::state_flag("MPI_Finalized", flag, &RankMpi::finalized);
}

double VPMPI_Wtime(void) {
  constexpr const char* call = "MPI_Wtime";
  double t = 0.0;
  guarded(call, [&](const Label& label) {
    run_state(call, label);
    t = vp::wtime();
  });
  return t;
}

double VPMPI_Wtick(void) {
  return 1e-9;  // steady_clock's resolution on Linux
}

int VPMPI_Abort(MPI_Comm comm, int errorcode) {
  constexpr const char* call = "MPI_Abort";
  return guarded(call, [&](const Label& label) {
    run_state(call, label);
    const RankMpi& mine = rank_mpi.get();
    if (mine.objects != nullptr) comm_of(call, *mine.objects, comm);
    std::fflush(stdout);
    // One line naming who ends the run, where, and with what (every process exits with it).
    std::fprintf(stderr, "MPI_Abort: rank %d (process %d) ends the run with code %d\n",
                 label.rank(), vp::process(), errorcode);
    std::fflush(stderr);
    vp::abort(errorcode);
  });
}

int VPMPI_Get_processor_name(char* name, int* resultlen) {
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

int VPMPI_Get_version(int* version, int* subversion) {
  constexpr const char* call = "MPI_Get_version";
  return guarded(call, [&] {
    check_out(call, version, "version");
    check_out(call, subversion, "subversion");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
  });
}

int VPMPI_Get_library_version(char* version, int* resultlen) {
  constexpr const char* call = "MPI_Get_library_version";
  return guarded(call, [&] {
    check_out(call, version, "version");
    check_out(call, resultlen, "resultlen");
    vela::mpi::copy_text("Vela MPI (MPI 3.1 on migratable ranks)", version,
                         MPI_MAX_LIBRARY_VERSION_STRING - 1, resultlen);
  });
}

int VPMPI_Error_string(int errorcode, char* string, int* resultlen) {
  constexpr const char* call = "MPI_Error_string";
  return guarded(call, [&] {
    check_out(call, string, "string");
    check_out(call, resultlen, "resultlen");
    vela::mpi::copy_text(vela::mpi::error_text(call, errorcode), string, MPI_MAX_ERROR_STRING - 1,
                         resultlen);
  });
}

int VPMPI_Error_class(int errorcode, int* errorclass) {
  constexpr const char* call = "MPI_Error_class";
  return guarded(call, [&] {
    check_out(call, errorclass, "errorclass");
    const Objects::UserError* user = vela::mpi::check_error_code(call, errorcode);
    *errorclass = user == nullptr ? errorcode : user->error_class;  // a predefined code: itself
  });
}

// Adds entry `error_class` (-1: the new entry is a class) to the rank's errors; its code.
static int add_error(Objects& objects, int error_class) {
  const int code = MPI_ERR_LASTCODE + 1 + static_cast<int>(objects.user_errors.size());
  objects.user_errors.push_back({error_class < 0 ? code : error_class, std::string()});
  objects.last_used_code = code;
  return code;
}

int VPMPI_Add_error_class(int* errorclass) {
  constexpr const char* call = "MPI_Add_error_class";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, errorclass, "errorclass");
    *errorclass = add_error(objects, -1);
  });
}

int VPMPI_Add_error_code(int errorclass, int* errorcode) {
  constexpr const char* call = "MPI_Add_error_code";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, errorcode, "errorcode");
    const Objects::UserError* user = vela::mpi::check_error_code(call, errorclass);
    if (user != nullptr && user->error_class != errorclass) {
      fail(call, MPI_ERR_ARG,
           "errorclass " + std::to_string(errorclass) + " is an error code of class " +
               std::to_string(user->error_class) + ", not a class");
    }
    *errorcode = add_error(objects, errorclass);
  });
}

int VPMPI_Add_error_string(int errorcode, const char* string) {
  constexpr const char* call = "MPI_Add_error_string";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    if (string == nullptr) fail(call, MPI_ERR_ARG, "string is null");
    const std::size_t length = std::strlen(string);
    if (length >= MPI_MAX_ERROR_STRING) {
      fail(call, MPI_ERR_ARG,
           "string has " + std::to_string(length) +
               " characters, more than MPI_MAX_ERROR_STRING - 1 (" +
               std::to_string(MPI_MAX_ERROR_STRING - 1) + ")");
    }
    if (vela::mpi::check_error_code(call, errorcode) == nullptr) {
      fail(call, MPI_ERR_ARG,
           "errorcode " + std::to_string(errorcode) +
               " is predefined: only the codes and classes "
               "the rank added take a string");
    }
    objects.user_errors[static_cast<std::size_t>(errorcode - MPI_ERR_LASTCODE - 1)].text = string;
  });
}

namespace {

// A pointer handle's Fortran number (a request's, a message's): given at the first c2f, the same
// after (Objects::fortran_numbers); 0 outside a rank.
MPI_Fint pointer_number(const void* handle) {
  Objects* objects = vela::mpi::objects_if_any();
  if (objects == nullptr) return 0;
  const auto [at, added] = objects->fortran_numbers.try_emplace(
      handle, static_cast<MPI_Fint>(objects->fortran_pointers.size() + 1));
  if (added) objects->fortran_pointers.push_back(handle);
  return at->second;
}

// The pointer handle of Fortran number `number`, or null.
const void* numbered_pointer(MPI_Fint number) {
  const Objects* objects = vela::mpi::objects_if_any();
  if (objects == nullptr || number <= 0 ||
      static_cast<std::size_t>(number) > objects->fortran_pointers.size())
    return nullptr;
  return objects->fortran_pointers[static_cast<std::size_t>(number) - 1];
}

// MPI_MESSAGE_NO_PROC's number: its handle's, as the other handles' (not a pointer).
const MPI_Fint no_proc_number =
    static_cast<MPI_Fint>(reinterpret_cast<std::uintptr_t>(MPI_MESSAGE_NO_PROC));

}  // namespace

MPI_Fint VPMPI_Request_c2f(MPI_Request request) {
  return request == MPI_REQUEST_NULL ? 0 : pointer_number(request);
}

MPI_Request VPMPI_Request_f2c(MPI_Fint request) {
  return static_cast<MPI_Request>(const_cast<void*>(numbered_pointer(request)));
}

MPI_Fint VPMPI_Message_c2f(MPI_Message message) {
  if (message == MPI_MESSAGE_NULL) return 0;
  if (message == MPI_MESSAGE_NO_PROC) return no_proc_number;
  return pointer_number(message);
}

MPI_Message VPMPI_Message_f2c(MPI_Fint message) {
  if (message == no_proc_number) return MPI_MESSAGE_NO_PROC;
  return static_cast<MPI_Message>(const_cast<void*>(numbered_pointer(message)));
}

// The profiling interface's control: nothing to control.
int VPMPI_Pcontrol(const int level, ...) {
  static_cast<void>(level);
  return MPI_SUCCESS;
}

// Memory for one-sided communication and fast messages: the rank's own heap (it moves with it).
int VPMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  constexpr const char* call = "MPI_Alloc_mem";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    if (info != MPI_INFO_NULL) vela::mpi::info_of(call, objects, info);
    check_out(call, baseptr, "baseptr");
    if (size < 0) fail(call, MPI_ERR_SIZE, "size " + std::to_string(size) + " is negative");
    const InRankHeap heap;
    void* memory = std::malloc(size > 0 ? static_cast<std::size_t>(size) : 1);
    if (memory == nullptr)
      fail(call, MPI_ERR_NO_MEM, "no memory for " + std::to_string(size) + " bytes");
    std::memcpy(baseptr, &memory, sizeof memory);
  });
}

int VPMPI_Free_mem(void* base) {
  constexpr const char* call = "MPI_Free_mem";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    std::free(base);
  });
}

int VPMPI_Info_create(MPI_Info* info) {
  constexpr const char* call = "MPI_Info_create";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, info, "info");
    const InRankHeap heap;
    *info = vela::mpi::info_handle(objects.infos.add(Info{}));
  });
}

int VPMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  constexpr const char* call = "MPI_Info_set";
  return guarded(call, [&](const Label& label) {
    Info& i = vela::mpi::info_of(call, active(call, label), info);
    const std::string k = vela::mpi::info_key(call, key);
    check_out(call, value, "value");
    const std::string v(value);
    if (v.size() > MPI_MAX_INFO_VAL) {
      fail(call, MPI_ERR_INFO_VALUE,
           "value of key \"" + k + "\" is longer than MPI_MAX_INFO_VAL (" +
               std::to_string(MPI_MAX_INFO_VAL) + ")");
    }
    const InRankHeap heap;
    if (auto* entry = vela::mpi::find_key(i, k)) {
      entry->second = v;
    } else {
      i.entries.emplace_back(k, v);
    }
  });
}

int VPMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  constexpr const char* call = "MPI_Info_get";
  return guarded(call, [&](const Label& label) {
    Info& i = vela::mpi::info_of(call, active(call, label), info);
    const std::string k = vela::mpi::info_key(call, key);
    check_out(call, flag, "flag");
    count_of(call, valuelen, "valuelen");
    const auto* entry = vela::mpi::find_key(i, k);
    *flag = entry != nullptr;
    if (entry == nullptr) return;
    check_out(call, value, "value");
    vela::mpi::copy_text(entry->second, value, valuelen, nullptr);
  });
}

int VPMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  constexpr const char* call = "MPI_Info_get_valuelen";
  return guarded(call, [&](const Label& label) {
    Info& i = vela::mpi::info_of(call, active(call, label), info);
    const std::string k = vela::mpi::info_key(call, key);
    check_out(call, valuelen, "valuelen");
    check_out(call, flag, "flag");
    const auto* entry = vela::mpi::find_key(i, k);
    *flag = entry != nullptr;
    if (entry != nullptr) *valuelen = static_cast<int>(entry->second.size());
  });
}

int VPMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  constexpr const char* call = "MPI_Info_get_nkeys";
  return guarded(call, [&](const Label& label) {
    Info& i = vela::mpi::info_of(call, active(call, label), info);
    check_out(call, nkeys, "nkeys");
    *nkeys = static_cast<int>(i.entries.size());
  });
}

int VPMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  constexpr const char* call = "MPI_Info_get_nthkey";
  return guarded(call, [&](const Label& label) {
    Info& i = vela::mpi::info_of(call, active(call, label), info);
    check_out(call, key, "key");
    if (n < 0 || static_cast<std::size_t>(n) >= i.entries.size()) {
      fail(call, MPI_ERR_ARG,
           "n " + std::to_string(n) + " is outside 0.." +
               std::to_string(static_cast<int>(i.entries.size()) - 1));
    }
    vela::mpi::copy_text(i.entries[static_cast<std::size_t>(n)].first, key, MPI_MAX_INFO_KEY,
                         nullptr);
  });
}

int VPMPI_Info_delete(MPI_Info info, const char* key) {
  constexpr const char* call = "MPI_Info_delete";
  return guarded(call, [&](const Label& label) {
    Info& i = vela::mpi::info_of(call, active(call, label), info);
    const std::string k = vela::mpi::info_key(call, key);
    auto* entry = vela::mpi::find_key(i, k);
    if (entry == nullptr) fail(call, MPI_ERR_INFO_NOKEY, "key \"" + k + "\" is not set");
    i.entries.erase(i.entries.begin() + (entry - i.entries.data()));
  });
}

int VPMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  constexpr const char* call = "MPI_Info_dup";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    const Info& i = vela::mpi::info_of(call, objects, info);
    check_out(call, newinfo, "newinfo");
    const InRankHeap heap;
    Info copy = i;
    *newinfo = vela::mpi::info_handle(objects.infos.add(std::move(copy)));
  });
}

int VPMPI_Info_free(MPI_Info* info) {
  constexpr const char* call = "MPI_Info_free";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, info, "info");
    vela::mpi::info_of(call, objects, *info);
    if (*info == MPI_INFO_ENV || *info == MPI_INFO_LB_SYNC || *info == MPI_INFO_LB_ASYNC) {
      fail(call, MPI_ERR_INFO, "a predefined info object cannot be freed");
    }
    objects.infos.remove(
        static_cast<int>(reinterpret_cast<std::uintptr_t>(*info) & VMPI_INDEX_MASK));
    *info = MPI_INFO_NULL;
  });
}

int VPMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function,
                                 MPI_Errhandler* errhandler) {
  return vela::mpi::create_errhandler("MPI_Comm_create_errhandler", function, errhandler);
}

int VPMPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler) {
  return vela::mpi::create_errhandler("MPI_Errhandler_create", function, errhandler);
}

int VPMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return vela::mpi::set_errhandler("MPI_Comm_set_errhandler", comm, errhandler);
}

int VPMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return vela::mpi::set_errhandler("MPI_Errhandler_set", comm, errhandler);
}

int VPMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return vela::mpi::get_errhandler("MPI_Comm_get_errhandler", comm, errhandler);
}

int VPMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return vela::mpi::get_errhandler("MPI_Errhandler_get", comm, errhandler);
}

int VPMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  constexpr const char* call = "MPI_Errhandler_free";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, errhandler, "errhandler");
    vela::mpi::errhandler_of(call, objects, *errhandler);
    const int index = vela::mpi::errhandler_index(*errhandler);
    // A predefined handler stays; a program's stays while a communicator uses it.
    bool used = index <= give_back_index;
    for (std::size_t i = 0; !used && i < objects.comms.size(); ++i) {
      if (const Communicator* c = objects.comms.find(static_cast<int>(i)))
        used = c->errhandler == index;
    }
    if (!used) objects.errhandlers.remove(index);
    *errhandler = MPI_ERRHANDLER_NULL;
  });
}

int VPMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  constexpr const char* call = "MPI_Comm_call_errhandler";
  return guarded_on(call, comm, [&](const Label& label) {
    active(call, label, comm);
    const std::string text = vela::mpi::error_text(call, errorcode);
    throw MpiError(errorcode, std::string(call) + ": the program raised error " +
                                  std::to_string(errorcode) + " (" + text + ")");
  });
}

// Handles are numbers: the Fortran handle is the same number.
#define VMPI_CONVERSIONS(Name, Kind)                                        \
  MPI_Fint VPMPI_##Name##_c2f(MPI_##Kind handle) {                          \
    return static_cast<MPI_Fint>(reinterpret_cast<std::uintptr_t>(handle)); \
  }                                                                         \
  MPI_##Kind VPMPI_##Name##_f2c(MPI_Fint handle) {                          \
    return reinterpret_cast<MPI_##Kind>(                                    \
        static_cast<std::uintptr_t>(static_cast<std::uint32_t>(handle)));   \
  }
VMPI_CONVERSIONS(Comm, Comm)
VMPI_CONVERSIONS(Group, Group)
VMPI_CONVERSIONS(Type, Datatype)
VMPI_CONVERSIONS(Op, Op)
VMPI_CONVERSIONS(Errhandler, Errhandler)
VMPI_CONVERSIONS(Info, Info)
VMPI_CONVERSIONS(Win, Win)
#undef VMPI_CONVERSIONS

}  // extern "C"

// The MPI names, weak aliases of the profiling names (a tool's own MPI_x takes their place).
VMPI_PROFILED(Init);
VMPI_PROFILED(Init_thread);
VMPI_PROFILED(Query_thread);
VMPI_PROFILED(Is_thread_main);
VMPI_PROFILED(Initialized);
VMPI_PROFILED(Finalize);
VMPI_PROFILED(Finalized);
VMPI_PROFILED(Wtime);
VMPI_PROFILED(Wtick);
VMPI_PROFILED(Abort);
VMPI_PROFILED(Get_processor_name);
VMPI_PROFILED(Get_version);
VMPI_PROFILED(Get_library_version);
VMPI_PROFILED(Error_string);
VMPI_PROFILED(Error_class);
VMPI_PROFILED(Add_error_class);
VMPI_PROFILED(Add_error_code);
VMPI_PROFILED(Add_error_string);
VMPI_PROFILED(Request_c2f);
VMPI_PROFILED(Request_f2c);
VMPI_PROFILED(Message_c2f);
VMPI_PROFILED(Message_f2c);
VMPI_PROFILED(Pcontrol);
VMPI_PROFILED(Alloc_mem);
VMPI_PROFILED(Free_mem);
VMPI_PROFILED(Info_create);
VMPI_PROFILED(Info_set);
VMPI_PROFILED(Info_get);
VMPI_PROFILED(Info_get_valuelen);
VMPI_PROFILED(Info_get_nkeys);
VMPI_PROFILED(Info_get_nthkey);
VMPI_PROFILED(Info_delete);
VMPI_PROFILED(Info_dup);
VMPI_PROFILED(Info_free);
VMPI_PROFILED(Comm_create_errhandler);
VMPI_PROFILED(Errhandler_create);
VMPI_PROFILED(Comm_set_errhandler);
VMPI_PROFILED(Errhandler_set);
VMPI_PROFILED(Comm_get_errhandler);
VMPI_PROFILED(Errhandler_get);
VMPI_PROFILED(Errhandler_free);
VMPI_PROFILED(Comm_call_errhandler);
VMPI_PROFILED(Comm_c2f);
VMPI_PROFILED(Comm_f2c);
VMPI_PROFILED(Group_c2f);
VMPI_PROFILED(Group_f2c);
VMPI_PROFILED(Type_c2f);
VMPI_PROFILED(Type_f2c);
VMPI_PROFILED(Op_c2f);
VMPI_PROFILED(Op_f2c);
VMPI_PROFILED(Errhandler_c2f);
VMPI_PROFILED(Errhandler_f2c);
VMPI_PROFILED(Info_c2f);
VMPI_PROFILED(Info_f2c);
VMPI_PROFILED(Win_c2f);
VMPI_PROFILED(Win_f2c);
