// Heartbeats between processes and the end of a job with a silent one (peer_watch.hpp).
#include "peer_watch.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>

namespace vela::rt::detail {
namespace {

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A heartbeat a second, or four per timeout when it is shorter: a process is declared silent
// only after several beats went missing, never for one late by a scheduling delay.
double beat_seconds(double timeout) {
  return timeout < 4.0 ? timeout / 4 : 1.0;
}

constexpr int host_bytes = 64;

}  // namespace

PeerWatch::PeerWatch(MPI_Comm comm, double timeout_seconds) : timeout_(timeout_seconds) {
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &process_);
  MPI_Comm_size(comm_, &processes_);
  char host[host_bytes] = {};
  gethostname(host, sizeof host - 1);
  std::vector<char> all(static_cast<std::size_t>(host_bytes) * processes_);
  MPI_Allgather(host, host_bytes, MPI_CHAR, all.data(), host_bytes, MPI_CHAR, comm_);
  const long pid = static_cast<long>(getpid());
  pids_.resize(processes_);
  MPI_Allgather(&pid, 1, MPI_LONG, pids_.data(), 1, MPI_LONG, comm_);
  for (int p = 0; p < processes_; ++p)
    hosts_.emplace_back(all.data() + static_cast<std::size_t>(p) * host_bytes);
}

PeerWatch::~PeerWatch() {
  stop();
}

void PeerWatch::start() {
  if (processes_ < 2 || timeout_ <= 0 || thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void PeerWatch::stop() {
  if (thread_.joinable()) {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  if (comm_ == MPI_COMM_NULL) return;
  std::vector<double> ignored(processes_);
  listen(ignored);
  MPI_Comm_free(&comm_);
}

// One empty message to every other process; the last second's sends are complete by now
// (empty sends go eagerly), or freed (MPI completes them without us).
void PeerWatch::beat(std::vector<MPI_Request>& sends) {
  for (MPI_Request& r : sends) {
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  }
  for (int p = 0; p < processes_; ++p) {
    if (p != process_) MPI_Isend(nullptr, 0, MPI_BYTE, p, 0, comm_, &sends[p]);
  }
}

void PeerWatch::listen(std::vector<double>& heard) {
  for (;;) {
    int flag = 0;
    MPI_Message message;
    MPI_Status status;
    MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &message, &status);
    if (flag == 0) return;
    MPI_Mrecv(nullptr, 0, MPI_BYTE, &message, MPI_STATUS_IGNORE);
    heard[status.MPI_SOURCE] = seconds_now();
  }
}

void PeerWatch::run() {
  std::vector<MPI_Request> sends(processes_, MPI_REQUEST_NULL);
  std::vector<double> heard(processes_, seconds_now());
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    beat(sends);
    listen(heard);
    const double now = seconds_now();
    for (int p = 0; p < processes_; ++p) {
      if (p == process_ || now - heard[p] <= timeout_) continue;
      std::fprintf(stderr,
                   "vela: process %d (host %s, pid %ld) has not answered for %.0f s "
                   "(--peer-timeout %g: stopped, hung, or its machine lost): ending the job "
                   "with status 143\n",
                   p, hosts_[p].c_str(), pids_[p], now - heard[p], timeout_);
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 143);
    }
    lock.lock();
    wake_.wait_for(lock, std::chrono::duration<double>(beat_seconds(timeout_)),
                   [this] { return stopping_; });
  }
  lock.unlock();
  for (MPI_Request& r : sends) {
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  }
}

}  // namespace vela::rt::detail
