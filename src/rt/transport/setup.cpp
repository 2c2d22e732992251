// Setting up runs across processes: the layout of the run (which process this is, which PEs it
// runs), MPI's initialization, and the transport's start-up handshake, where every process
// checks that all of them run the same program with the same runtime options; and the
// transport's tear-down.
//
// Invariants: MPI is initialized only under mpirun with more than one process, once per
// process, with MPI_THREAD_MULTIPLE (the progress-maker and the balancer both call MPI), and
// finalized at exit unless someone else did. The handshake is collective: every process learns
// the same verdict, so all of them stop with the error and none waits for the others.
//
// Costs: start-up only. Two allreduces of two words for the handshake, a communicator split for
// the machine's processes, and the rings' collective set-up (shm.cpp).
#include <malloc.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "impl.hpp"

namespace vela::rt::detail {

namespace {

bool mpi_launched(int& size) {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}) {
    if (const char* v = std::getenv(name)) {
      size = std::atoi(v);
      return true;
    }
  }
  return false;
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
}

void initialize_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized != 0) {
    int provided = 0;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_MULTIPLE) {
      throw std::runtime_error(
          "MPI was initialized before the runtime without MPI_THREAD_MULTIPLE; the runtime's "
          "communication thread and the balancer (Zoltan) both call MPI");
    }
    return;
  }
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Init_thread failed: cannot run across processes");
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    throw std::runtime_error("this MPI library does not give MPI_THREAD_MULTIPLE (it gave " +
                             std::to_string(provided) + "): cannot run across processes");
  }
  std::atexit(finalize_at_exit);
}

// Message buffers are allocated and freed at every hop, between processes as between the PEs
// of one. With glibc's defaults a freed buffer of a large message goes back to the kernel
// (trimmed from the top of the heap, or unmapped), and the next one faults every page in
// again: with a PE making MPI progress that was 30x the transfer time at 64 KiB and 1 MiB
// (docs/results/distribution.md), and within one process it was a quarter of a 1 MiB
// allreduce's time. So, in every run and unless the user tuned malloc, freed memory stays in
// the process up to 256 MiB and buffers up to the largest mmap threshold glibc allows (32 MiB)
// come from the heap.
void keep_freed_memory() {
  for (const char* tuned : {"GLIBC_TUNABLES", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_"}) {
    if (std::getenv(tuned) != nullptr) return;
  }
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

// FNV-1a over bytes, for comparing processes.
std::uint64_t fingerprint(std::string_view text, std::uint64_t h = 14695981039346656037ull) {
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

// The program: its entry methods (names and order give the handler ids) and element factories.
std::uint64_t program_fingerprint() {
  std::uint64_t h = fingerprint("vela");
  for (HandlerId id = 0; id < handler_count(); ++id) h = fingerprint(handler_name(id) + ";", h);
  return fingerprint(std::to_string(factory_count()), h);
}

// The options every process must share.
std::uint64_t options_fingerprint(const Options& o) {
  std::string text =
      std::to_string(o.pes_per_process) + ";" + std::to_string(static_cast<int>(o.mpi_progress)) +
      ";" + o.lb + ";" + std::to_string(o.lb_period) + ";" + o.lb_policy + ";" + o.trace + ";" +
      o.lb_dump + ";" + std::to_string(o.instrument) + ";" + std::to_string(o.measure_cpu) + ";" +
      std::to_string(o.lb_interval) + ";" + o.clusters + ";" +
      std::to_string(o.cluster_threshold_us) + ";" + std::to_string(o.wan_latency_ms) + ";" +
      std::to_string(o.grid_queue_period) + ";" + o.pe_speed + ";" + std::to_string(o.lb_fan_in) +
      ";" + std::to_string(o.mpi_shm);
  for (const std::string& p : o.lb_params) text += p + ",";
  for (const std::string& p : o.lb_policy_params) text += p + ",";
  return fingerprint(text);
}

// --lb-pes: PE 0's process needs a core per PE and per core set aside.
void check_cores_set_aside(const Options& options, const ProcessLayout& layout, PeId cores) {
  if (options.lb_pes == 0 || layout.first_pe != 0) return;
  if (layout.local_pes + options.lb_pes > cores) {
    throw std::invalid_argument("--lb-pes " + std::to_string(options.lb_pes) +
                                ": PE 0's process may use " + std::to_string(cores) +
                                " core(s), fewer than its " + std::to_string(layout.local_pes) +
                                " PE(s) and the " + std::to_string(options.lb_pes) +
                                " set aside; give fewer PEs (--pes) or fewer cores to set aside");
  }
}

}  // namespace

ProcessLayout process_layout(const Options& options, PeId cores) {
  ProcessLayout layout;
  int size = 1;
  keep_freed_memory();
  if (mpi_launched(size) && size > 1) {
    initialize_mpi();
    MPI_Comm_size(MPI_COMM_WORLD, &layout.processes);
    MPI_Comm_rank(MPI_COMM_WORLD, &layout.process);
    layout.local_pes = options.pes_per_process > 0 ? options.pes_per_process : 1;
    layout.pes = layout.processes * layout.local_pes;
    if (options.pes != 0 && options.pes != layout.pes) {
      throw std::invalid_argument("--pes " + std::to_string(options.pes) + ": this run has " +
                                  std::to_string(layout.processes) + " processes of " +
                                  std::to_string(layout.local_pes) +
                                  " PEs (--pes-per-process), so " + std::to_string(layout.pes) +
                                  " PEs; leave --pes out under mpirun or give that number");
    }
    layout.first_pe = layout.process * layout.local_pes;
    check_cores_set_aside(options, layout, cores);
    return layout;
  }
  if (options.pes_per_process > 0 && options.pes != 0 && options.pes != options.pes_per_process) {
    throw std::invalid_argument("--pes-per-process " + std::to_string(options.pes_per_process) +
                                " and --pes " + std::to_string(options.pes) +
                                " disagree in a run of one process");
  }
  layout.pes = options.pes != 0              ? options.pes
               : options.pes_per_process > 0 ? options.pes_per_process
                                             : std::max(cores - options.lb_pes, 1);
  layout.local_pes = layout.pes;
  check_cores_set_aside(options, layout, cores);
  return layout;
}

Transport::Transport(RuntimeState& state) : impl_(std::make_unique<Impl>(state)) {
  MPI_Comm_dup(MPI_COMM_WORLD, &impl_->comm);
  MPI_Comm_rank(impl_->comm, &impl_->process);
  MPI_Comm_size(impl_->comm, &impl_->processes);
  // Every process must run the same program with the same runtime options: handler and factory
  // ids, and the runtime's protocol, depend on both. Checked by every process at once, so all
  // of them stop with the error (none waits for the others).
  const std::uint64_t mine[2] = {program_fingerprint(), options_fingerprint(state.options)};
  std::uint64_t low[2] = {}, high[2] = {};
  MPI_Allreduce(mine, low, 2, MPI_UINT64_T, MPI_MIN, impl_->comm);
  MPI_Allreduce(mine, high, 2, MPI_UINT64_T, MPI_MAX, impl_->comm);
  if (low[0] != high[0] || low[1] != high[1]) {
    MPI_Comm_free(&impl_->comm);
    if (low[0] != high[0]) {
      throw std::invalid_argument(
          "mpirun: the processes run different programs (their entry methods or element types "
          "differ); start the same binary in every process");
    }
    throw std::invalid_argument(
        "mpirun: the processes were given different runtime options (--pes-per-process, "
        "--mpi-progress, --lb, --lb-param, --lb-policy, --trace, --lb-dump, --clusters, "
        "--wan-latency, --pe-speed, ...); give every process the same command line");
  }
  // The processes of this machine (shared memory): for the rings, the oversubscription count
  // and --clusters node.
  MPI_Comm_split_type(impl_->comm, MPI_COMM_TYPE_SHARED, impl_->process, MPI_INFO_NULL,
                      &impl_->node);
  if (state.options.mpi_shm) {
    impl_->shm.open(impl_->comm, impl_->node, impl_->process, impl_->processes);
  }
  impl_->watch = std::make_unique<PeerWatch>(impl_->comm, state.options.peer_timeout);
}

Transport::~Transport() {
  if (impl_->thread.joinable()) {
    impl_->closing.store(true, std::memory_order_release);
    impl_->thread.join();
  }
  impl_->watch.reset();
  impl_->outbox.cancel();
  impl_->shm.cancel();
  if (impl_->node != MPI_COMM_NULL) MPI_Comm_free(&impl_->node);
  MPI_Comm_free(&impl_->comm);
}

}  // namespace vela::rt::detail
