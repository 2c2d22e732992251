// MPI and Zoltan set-up for the hypergraph strategy (see zoltan_session.hpp).
#include "zoltan_session.hpp"

#include <mpi.h>
#include <stdlib.h>
#include <zoltan.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define VELA_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define VELA_LEAK_CHECKED 1
#endif
#endif
#ifdef VELA_LEAK_CHECKED
#include <sanitizer/lsan_interface.h>
#endif

namespace vela::lb::builtin {

namespace {

std::mutex& zoltan_mutex() {
  static std::mutex mutex;
  return mutex;
}

// Open MPI keeps what its initialisation allocates until exit and frees only part of it in
// MPI_Finalize; LeakSanitizer would report the rest as our leaks. Its allocations are not ours
// to check, so leak checking pauses while it runs (this thread only; no effect without LSan).
class LeakCheckPause {
 public:
#ifdef VELA_LEAK_CHECKED
  LeakCheckPause() {
    __lsan_disable();
  }
  ~LeakCheckPause() {
    __lsan_enable();
  }
#else
  LeakCheckPause() {}  // user-provided, so that a pause is not an "unused variable"
#endif
  LeakCheckPause(const LeakCheckPause&) = delete;
  LeakCheckPause& operator=(const LeakCheckPause&) = delete;
};

// Set by mpirun / mpiexec / srun's PMI for the processes they start.
bool started_by_an_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

// The session directory of this process's Open MPI singleton (see SingletonSettings), removed
// after MPI_Finalize; empty when Open MPI chose its own.
std::string& private_session_base() {
  static std::string path;
  return path;
}

void remove_private_session_base() {
  std::string& path = private_session_base();
  if (path.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
  path.clear();
}

// Open MPI settings for a process that is its own, only MPI job (a "singleton"): no daemon
// process beside it, no probing of network hardware (slow, and noisy in containers), no crash
// handlers of Open MPI's replacing the program's own, and a CPU-only topology from hwloc (its
// I/O plugins start OpenCL and GL drivers, which is slow, and the OpenCL loader's thread-local
// storage crashes LeakSanitizer's scan of the threads at exit). Set only where the environment
// does not set them, and only for the initialisation, so that programs this process starts
// (mpirun jobs among them) do not inherit them.
//
// Also a session directory of its own (orte_tmpdir_base, a fresh directory under $TMPDIR or
// /tmp): isolated singletons all take job family 0, so they would share
// /tmp/ompi.HOST.UID/jf.0, and one finishing removes it while another creates it ("A call to
// mkdir was unable to create the desired directory"; about 2% of vela-lb runs four at a time).
class SingletonSettings {
 public:
  SingletonSettings() {
    if (started_by_an_mpi_launcher()) return;
    if (std::getenv("OMPI_MCA_orte_tmpdir_base") == nullptr) {
      const char* tmp = std::getenv("TMPDIR");
      std::string pattern = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
      pattern += "/vela-mpi-XXXXXX";
      if (::mkdtemp(pattern.data()) != nullptr) {
        if (::setenv("OMPI_MCA_orte_tmpdir_base", pattern.c_str(), 0) == 0) {
          set_.push_back("OMPI_MCA_orte_tmpdir_base");
        }
        private_session_base() = pattern;
      }
    }
    static constexpr std::array<std::array<const char*, 2>, 5> settings = {{
        {"OMPI_MCA_ess_singleton_isolated", "1"},
        {"OMPI_MCA_pml", "ob1"},
        {"OMPI_MCA_btl", "self"},
        {"OMPI_MCA_opal_signal", ""},
        {"HWLOC_COMPONENTS", "-opencl,-gl,-pci"},
    }};
    for (const auto& [name, value] : settings) {
      if (std::getenv(name) != nullptr) continue;
      if (::setenv(name, value, 0) == 0) set_.push_back(name);
    }
  }
  ~SingletonSettings() {
    for (const char* name : set_) ::unsetenv(name);
  }
  SingletonSettings(const SingletonSettings&) = delete;
  SingletonSettings& operator=(const SingletonSettings&) = delete;

 private:
  std::vector<const char*> set_;
};

void finalize_mpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) {
    LeakCheckPause pause;
    MPI_Finalize();
  }
  remove_private_session_base();
}

void initialise_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized != 0) return;
  int provided = 0;
  int rc = MPI_SUCCESS;
  {
    SingletonSettings settings;
    LeakCheckPause pause;
    // Serialised: every MPI call of this library is made under the session lock.
    rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  }
  if (rc != MPI_SUCCESS) {
    remove_private_session_base();
    throw std::runtime_error("hypergraph: MPI_Init_thread failed with code " + std::to_string(rc) +
                             "; Zoltan needs MPI");
  }
  std::atexit(finalize_mpi);
}

}  // namespace

ZoltanSession::ZoltanSession() : lock_(zoltan_mutex()) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized != 0) {
    throw std::runtime_error(
        "hypergraph: MPI has already been finalised; Zoltan needs MPI (a program that uses MPI "
        "itself must keep it initialised while it balances)");
  }
  static bool zoltan_ready = false;
  if (zoltan_ready) return;
  initialise_mpi();
  float version = 0.0F;
  int rc = ZOLTAN_OK;
  {
    LeakCheckPause pause;
    rc = Zoltan_Initialize(0, nullptr, &version);
  }
  if (rc != ZOLTAN_OK) {
    throw std::runtime_error("hypergraph: Zoltan_Initialize failed with code " +
                             std::to_string(rc));
  }
  zoltan_ready = true;
}

}  // namespace vela::lb::builtin
