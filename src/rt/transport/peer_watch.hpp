// Silent processes. Open MPI ends a job when one of its processes dies, but not when one stops
// (SIGSTOP, a hang in the kernel, a machine that stops answering while its connections stay
// up): the others would wait for it for ever. Every process sends every other one a heartbeat
// (an empty message) each second (four per timeout when the timeout is shorter than 4 s) on a
// communicator of its own, from a thread of its own (so a
// process whose PEs all compute for minutes without polling still answers), and reads theirs. A
// process from which nothing came for --peer-timeout seconds ends the job: one line on stderr
// naming it (its number, host and pid, and for how long it has been silent), then MPI_Abort
// with status 143, as a process ended by a signal, so that vela-run relaunches the job.
//
// Invariants: the thread makes only its own MPI calls, on its own communicator (MPI is
// initialized with MPI_THREAD_MULTIPLE); it runs between the transport's start and its closing
// handshake, which every process passes together, so a process that has finished is never
// taken for a silent one. Costs: per second and process, one empty send to and one receive
// from every other process.
#pragma once

#include <mpi.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vela::rt::detail {

class PeerWatch {
 public:
  // Collective over `comm`'s processes: a communicator of its own, every process's host and pid.
  PeerWatch(MPI_Comm comm, double timeout_seconds);
  ~PeerWatch();
  PeerWatch(const PeerWatch&) = delete;
  PeerWatch& operator=(const PeerWatch&) = delete;

  void start();  // the thread (nothing with one process or a timeout of 0)
  void stop();   // joins it; then drains what arrived and frees the communicator

 private:
  void run();
  void beat(std::vector<MPI_Request>& sends);
  void listen(std::vector<double>& heard);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int process_ = 0;
  int processes_ = 1;
  double timeout_;
  std::vector<std::string> hosts_;
  std::vector<long> pids_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace vela::rt::detail
