// Keeps the C libraries' printing off standard output: METIS reports some failures with printf,
// and vela-lb's standard output must stay machine-readable (compare --format csv|json).
#pragma once

#include <mutex>

namespace vela::lb::builtin {

// While alive, what the process writes to its standard output (file descriptor 1) goes to
// standard error instead; the destructor puts standard output back. Wrap a library call in one.
//
// Thread safety: file descriptor 1 belongs to the process, not to a thread, so one process-wide
// mutex is held for the guard's whole life: two guards never overlap (the second would save
// the first's redirection and restore it for good), and the calls they wrap run one at a time.
// While a guard is alive, whatever another thread writes to standard output goes to standard
// error too: moved, never lost. C stdio's buffer (which std::cout writes through while it is
// synchronised with stdio, the default) is flushed before the switch and again before the
// restore, so output from before stays on stdout and the library's leaves on stderr. When the
// descriptors cannot be duplicated (say, standard output is closed) nothing is redirected.
class StdoutToStderr {
 public:
  StdoutToStderr();
  ~StdoutToStderr();
  StdoutToStderr(const StdoutToStderr&) = delete;
  StdoutToStderr& operator=(const StdoutToStderr&) = delete;

 private:
  std::unique_lock<std::mutex> lock_;
  int saved_ = -1;  // a duplicate of the original standard output, -1 when not redirected
};

}  // namespace vela::lb::builtin
