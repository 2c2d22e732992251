// One-sided communication (MPI 3.1 chapter 11): windows and the remote operations on them.
//
// A window's memory is addressed absolutely: every member tells the others, at creation, the
// address of its memory and of its Window object. A rank's memory (its stack, its heap, its
// program image) sits at the same addresses in whatever process it lives, and moves with it, so
// these addresses stay valid when ranks migrate, between PEs or between processes.
//
// An operation is a vp remote message (vp.hpp) to the target rank, carrying the target address,
// the runs of bytes the target datatype covers there and the origin's data packed; the target's
// handler (rma.cpp) applies it on the target's PE outside the target's fiber, so a target that is
// blocked or waiting in any call makes progress without calling MPI (passive target). Remote
// messages from one origin arrive in the order they were made, after nothing the origin sent
// later: a flush is one more remote message whose answer comes back once every earlier operation
// was applied, and MPI_Win_complete's message reaches the target after the access epoch's
// operations. Operations that return data (get, the fetching accumulates) are answered with an
// ordinary message on the window's private context, received into the origin's buffer (or a
// scratch block unpacked at the next synchronization).
//
// Invariants: a remote handler never allocates in a rank's heap and never blocks (it touches the
// target's Window only in the fixed-size lock table made at creation); an origin's unfinished
// gets are completed, in order, by the next synchronization of the window (fence, complete,
// unlock, flush).
//
// Costs: an operation is one message (plus its answer when it returns data); a fence is a
// round trip with each target the rank reached since the last synchronization, then a barrier;
// lock and unlock a round trip each; a window costs O(members) memory per rank.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "internal.hpp"
#include "typemap.hpp"

namespace vela::mpi::detail {

// What each member of a window tells the others when it is made.
struct WindowMember {
  std::uint64_t base = 0;  // the address of its memory (0 for a dynamic window)
  std::int64_t size = 0;   // bytes
  std::int32_t disp_unit = 1;
  std::int32_t unused = 0;
  std::uint64_t window = 0;  // the address of its Window
};

// A get whose answer the origin has yet to complete: its receive, and where a derived origin
// datatype unpacks from.
struct PendingGet {
  vp::Request request;
  std::vector<std::byte> scratch;
  std::optional<Typemap> map;
  void* buffer = nullptr;
  std::size_t count = 0;
};

enum class LockState : std::uint8_t { none, shared, exclusive };

struct Window {
  Communicator comm;  // a private duplicate of the communicator it was made on
  int flavor = MPI_WIN_FLAVOR_CREATE;
  void* base = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
  void* owned = nullptr;  // memory MPI_Win_allocate(_shared) made (freed with the window)
  std::vector<WindowMember> members;
  std::string name;
  int errhandler = fatal_index;
  std::map<int, void*> attributes;  // the program's, by key (MPI_Win_set_attr)

  // As an origin.
  std::uint32_t next_tag = 0;         // answers' tags
  std::vector<std::uint8_t> touched;  // per member: reached since the last synchronization
  std::vector<std::int32_t> touched_list;
  std::vector<PendingGet> gets;
  bool fence_epoch = false;             // between fences
  std::vector<LockState> locked;        // per member: this rank's lock on it
  std::vector<std::uint8_t> unchecked;  // per member: locked with MPI_MODE_NOCHECK (no request)
  bool all_locked = false;              // MPI_Win_lock_all
  std::vector<std::uint8_t> access;     // per member: in MPI_Win_start's group
  bool access_epoch = false;

  // As a target (the remote handlers' state: sized at creation, never reallocated).
  int exclusive_holder = -1;  // member holding the exclusive lock
  int shared_holders = 0;
  std::vector<LockState> lock_wanted;  // per member: a lock request waiting
  std::vector<std::int32_t> lock_tag;  // its answer's tag
  std::vector<std::int32_t> exposure;  // MPI_Win_post's group (members), until MPI_Win_wait
  bool exposure_epoch = false;
  std::int32_t completes_seen = 0;  // MPI_Win_complete messages received in this exposure
};

// Tags of the window's own messages on its context (answers use 0 .. answer_tags - 1).
inline constexpr int post_tag = vp::max_tag;
inline constexpr int complete_tag = vp::max_tag - 1;
inline constexpr int answer_tags = vp::max_tag - 1;

// The window a handle names (MPI_ERR_WIN when none of this rank).
Window& window_of(const char* call, Objects& objects, MPI_Win win);
// Runs a call on a window: its errors go to the window's error handler.
int raise_on_window(const char* call, MPI_Win win);
template <class Body>
int guarded_win(const char* call, MPI_Win win, Body&& body) {
  const Label label(call);
  try {
    body(label);
  } catch (const std::exception&) {
    return raise_on_window(call, win);
  }
  return MPI_SUCCESS;
}

// The remote handler of every window operation (installed once per process).
void serve_remote(int source, std::span<const std::byte> data);
// Completes the origin's operations on `w`: a flush round trip with each member reached since
// the last synchronization, then the gets' answers unpacked.
void settle_origin(Window& w);
// Completes the origin's operations on member `target` only (MPI_Win_flush, MPI_Win_unlock) and
// sends it `kind` (flush or unlock), waiting for its answer.
void settle_target(Window& w, int target, std::uint8_t kind);

// Remote message kinds (rma.cpp).
enum Kind : std::uint8_t {
  put,
  get,
  accumulate,
  get_accumulate,
  compare_and_swap,
  flush,
  lock_shared,
  lock_exclusive,
  unlock
};

// A remote message's header; `runs` (offset, bytes) pairs follow, then the data.
struct Wire {
  std::uint8_t kind = put;
  std::uint8_t op = 0;        // predefined operator index (accumulates)
  std::uint16_t element = 0;  // datatypes[] index of the element type (accumulates)
  std::int32_t tag = 0;       // the answer's tag
  std::uint32_t context = 0;  // the answer's context
  std::uint32_t runs = 0;     // 0: `bytes` contiguous bytes at `target`
  std::uint64_t target = 0;   // address at the target
  std::uint64_t bytes = 0;    // bytes at the target
  std::uint64_t window = 0;   // the target's Window (locks)
};
struct Run {
  std::int64_t offset = 0;
  std::uint64_t bytes = 0;
};

// The next answer tag of `w`.
int next_answer_tag(Window& w);
// Sends a header without data to member `target` and waits for its answer (flush, lock, unlock).
void round_trip(Window& w, int target, std::uint8_t kind);

}  // namespace vela::mpi::detail
