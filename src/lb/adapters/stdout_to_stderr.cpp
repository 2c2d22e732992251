// The standard output redirection around library calls (stdout_to_stderr.hpp).
#include "stdout_to_stderr.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace vela::lb::builtin {

namespace {

std::mutex& redirect_mutex() {
  static std::mutex m;
  return m;
}

int dup2_retrying(int from, int to) {
  int rc = 0;
  do {
    rc = ::dup2(from, to);
  } while (rc < 0 && errno == EINTR);
  return rc;
}

}  // namespace

StdoutToStderr::StdoutToStderr() : lock_(redirect_mutex()) {
  std::fflush(stdout);
  saved_ = ::dup(STDOUT_FILENO);
  if (saved_ >= 0 && dup2_retrying(STDERR_FILENO, STDOUT_FILENO) < 0) {
    ::close(saved_);
    saved_ = -1;
  }
}

StdoutToStderr::~StdoutToStderr() {
  if (saved_ < 0) return;
  std::fflush(stdout);
  dup2_retrying(saved_, STDOUT_FILENO);
  ::close(saved_);
}

}  // namespace vela::lb::builtin
