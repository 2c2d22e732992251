// Faults in rank code: a segmentation fault or bus error on a PE thread while a rank runs is
// reported on stderr with the rank, its PE and process, and whether it was its stack
// overflowing into the guard page below it (then with the stack's size and the option that
// sets it), before the process dies of the signal as it would have (status 139 for SIGSEGV; a
// handler installed before, such as Open MPI's under mpirun, still runs).
//
// Invariants: the handlers run on an alternate signal stack of the PE thread (a rank whose
// stack overflowed has none left); they only read memory and call write(2) and dladdr; they
// are not installed in sanitizer builds, whose own reports are more precise. Cost: one
// thread-local test per switch into a rank (the alternate stack is made once per thread).
#pragma once

#include <cstddef>

namespace vela::vp::detail {

// For a run of ranks with `stack_bytes` stacks in process `process`: installs the handlers
// (restored by the destructor). Only one run of ranks at a time installs them.
class FaultReports {
 public:
  FaultReports(std::size_t stack_bytes, int process);
  ~FaultReports();
  FaultReports(const FaultReports&) = delete;
  FaultReports& operator=(const FaultReports&) = delete;

 private:
  bool installed_ = false;
};

// On the calling PE thread, before it runs a rank: its alternate signal stack, made once.
void ensure_signal_stack();

}  // namespace vela::vp::detail
