// Privatized globals: what each rank owns of the program's "global" state, and what
// the PE does with it when it switches a rank in and out. Three methods:
//   (a) vela::vp::privatized<T> variables: one block per rank, reached through the running
//       rank (a pointer set at each switch: O(1) whatever their number);
//   (b) thread_local variables of the program (Options::tls_globals): each rank has its own TLS
//       block and the switch moves the thread pointer (FS base) to it; the runtime's own
//       thread-locals keep their per-thread values;
//   (c) registered plain globals (vela::vp::register_global): copied in at each switch-in and
//       out at each switch-out, O(number of globals) — the baseline the seed compares with.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "vela/rt/index.hpp"
#include "vela/vp/vp.hpp"

namespace vela::vp::detail {

class SlotHeap;

class RankGlobals {
 public:
  // Made when rank `rank` starts, on its PE's thread: privatized<T> copies constructed from
  // their initial values, the rank's TLS block when `tls`, the save area of registered globals.
  // With a slot heap, the privatized copies are made in it (and what they allocate, under heap
  // routing), so that they move with the rank to another process.
  RankGlobals(int rank, bool tls, SlotHeap* heap = nullptr);
  ~RankGlobals();

  // Moving the rank to another process. Here: the privatized block left with the slot heap
  // (never destroyed here); what must travel is the block's address and the saved registered
  // globals. There: the globals rebuilt from them.
  void leave() noexcept;
  std::byte* block() const noexcept;
  const std::vector<std::byte>& saved() const noexcept;
  static std::unique_ptr<RankGlobals> arrive(int rank, SlotHeap* heap, std::byte* block,
                                             std::vector<std::byte> saved);
  RankGlobals(const RankGlobals&) = delete;
  RankGlobals& operator=(const RankGlobals&) = delete;

  // Where switch_in() and switch_out() read (a hint for asking for it ahead).
  const void* state() const noexcept { return impl_.get(); }

  // On the PE's thread, just before the rank's fiber resumes (after migration possibly another
  // thread than last time).
  void switch_in();
  // On the PE's thread, just after the rank's fiber suspended or finished.
  void switch_out();

 private:
  // An empty one, for arrive().
  RankGlobals(int rank, bool tls, SlotHeap* heap, std::nullptr_t);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Checks, before ranks start, that the options' privatization can run: throws Error naming
// the option (copying registered globals needs one PE: ranks on two PE threads would share the
// globals; the TLS method needs x86-64 Linux).
void check_privatization(const Options& options, rt::PeId pes);

}  // namespace vela::vp::detail
