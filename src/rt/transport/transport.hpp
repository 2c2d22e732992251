// Runs across processes: K processes started by mpirun, T PE threads each, PE ids
// numbered process by process. Messages between PEs of one process never touch MPI; a message
// to a PE of another process is packed and handed to this process's communication thread,
// which alone calls MPI, or (the default, MpiProgress::pe) sent by the PE itself, the PEs
// polling MPI between messages and while idle. Only src/rt sees this.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vela/rt/index.hpp"
#include "vela/rt/options.hpp"

namespace vela::rt::detail {

struct RuntimeState;
struct Message;
struct CollectionInfo;

// Which process this is and which PEs it runs.
struct ProcessLayout {
  int process = 0;
  int processes = 1;
  PeId first_pe = 0;   // global id of this process's first PE
  PeId local_pes = 1;  // PEs run by this process
  PeId pes = 1;        // PEs of the whole run
};

// Processes started by mpirun with more than one process: MPI is initialized (once per
// process, MPI_THREAD_MULTIPLE) and the layout comes from the world communicator and
// --pes-per-process. Else one process with options.pes PEs (`cores` when 0). Throws
// std::invalid_argument naming the option for a --pes that disagrees with the processes.
ProcessLayout process_layout(const Options& options, PeId cores);

class Transport {
 public:
  explicit Transport(RuntimeState& state);  // a communicator of its own (MPI_Comm_dup)
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Main thread, before start(): every process takes process 0's value (the trace's origin).
  void broadcast(std::int64_t& value);
  // Main thread, before start(): every process takes process 0's text.
  void broadcast(std::string& text);
  // Main thread, before start(): every process's values, in process order (each gives as many).
  std::vector<double> allgather(const std::vector<double>& mine);
  // Main thread, before start(): the cluster of every process. node_clusters(): one per
  // machine (processes sharing memory); probe_clusters(): processes whose one-way latency
  // (the least of a few ping-pongs) is at most `threshold_us` share a cluster, found against
  // one leader per cluster (a process joins the first leader within the threshold, else
  // leads a new cluster). Numbered in order of their first process.
  std::vector<std::int32_t> node_clusters();
  // Main thread, before start(): whether the threads of this machine's processes (each
  // `threads`) outnumber the cores they may run on together (the union of their CPU sets).
  // mpirun usually binds each process to cores of its own, so a process alone seeing one core
  // is not oversubscribed when the machine's processes use different ones.
  bool node_oversubscribed(int threads);
  std::vector<std::int32_t> probe_clusters(double threshold_us);
  // Main thread, after finish(): process 0 gets every process's text (in process order, its
  // own first); the others get nothing.
  std::vector<std::string> gather(const std::string& mine);

  // Starts the communication thread (MpiProgress::thread).
  void start();
  // MpiProgress::pe, on a PE: sends what is queued and delivers what arrived, unless another
  // PE is doing so. True when something moved.
  bool poll();
  // Whether PEs make MPI progress (so an idle PE must not sleep for long).
  bool polled_by_pes() const;
  // Any thread: packs `message` for PE `to` of another process and frees it.
  void send(PeId to, Message* message);
  // Process 0, before the collection's create messages: every other process learns the
  // collection (name, shape, initial placement, factory, creation arguments).
  void publish_collection(const CollectionInfo& info);
  // This process stopped (Context::exit): the others stop with `code`.
  void stop_others(int code);
  // This process failed: the others stop and report `what`.
  void fail_others(const std::string& what);
  // After this process's PEs have stopped: the closing handshake with every process (nothing
  // is left in flight), then the thread ends. Sums the run's statistics over the processes.
  void finish();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace vela::rt::detail
