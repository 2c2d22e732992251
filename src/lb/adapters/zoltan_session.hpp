// Zoltan runs on MPI (here on MPI_COMM_SELF) and keeps process-wide state (its random number
// generator), so every use of it goes through a ZoltanSession: sessions are serialised, and the
// first one initialises MPI — only if the program has not — and Zoltan.
#pragma once

#include <mutex>

namespace vela::lb::builtin {

class ZoltanSession {
 public:
  // Blocks while another session is open. On first use: when MPI is not initialised, sets
  // Open MPI up for a lone process (no daemon, no network probing, a session directory of its
  // own, removed at exit; only when no MPI launcher started the process), initialises it and
  // finalises it at exit (std::atexit); a program
  // that initialised MPI itself keeps it, and finalises it itself. Throws std::runtime_error
  // when MPI cannot be initialised or has already been finalised.
  ZoltanSession();

  ZoltanSession(const ZoltanSession&) = delete;
  ZoltanSession& operator=(const ZoltanSession&) = delete;

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace vela::lb::builtin
