// Windows (windows.hpp): their creation and freeing, the synchronization calls (fence,
// post-start-complete-wait, locks, flushes), their names, error handlers, attributes and info.
//
// Creation is collective over the communicator: a private context is agreed (the window's answers
// and its post and complete messages travel there), then every member's base, size, displacement
// unit and Window address is gathered by all. Costs: creation and freeing O(members) per rank and
// one reduction and one allgather (plus a barrier to free); the synchronization costs are in
// windows.hpp.
#include "windows.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "operators.hpp"

namespace vela::mpi::detail {

namespace {

// Installed before main: every process of a run has it (they run the same program).
[[maybe_unused]] const bool remote_handler_installed =
    (vp::set_remote_handler(&serve_remote), true);

MPI_Win window_handle(int index) {
  return reinterpret_cast<MPI_Win>(static_cast<std::uintptr_t>(VMPI_WIN_BASE + index));
}

int window_index(MPI_Win win) {
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(win) & VMPI_INDEX_MASK);
}

// The window `win` names, or nullptr (before MPI_Init, or not a window of this rank).
const Window* window_or_null(MPI_Win win) {
  const RankMpi& mine = rank_mpi.get();
  if (mine.objects == nullptr || !vp::in_rank()) return nullptr;
  const auto value = reinterpret_cast<std::uintptr_t>(win);
  if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) != VMPI_WIN_BASE) return nullptr;
  return mine.objects->windows.find(window_index(win));
}

void check_info(const char* call, Objects& objects, MPI_Info info) {
  if (info == MPI_INFO_NULL) return;
  const auto value = reinterpret_cast<std::uintptr_t>(info);
  if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) != VMPI_INFO_BASE ||
      objects.infos.find(static_cast<int>(value & VMPI_INDEX_MASK)) == nullptr) {
    fail(call, MPI_ERR_INFO, "info " + handle_text(info) + " is not an info object of this rank");
  }
}

struct Made {
  Window* window;
  MPI_Win handle;
};

// A new window of this rank over `comm` (collective): its members' memory gathered.
Made make_window(const char* call, const Label& label, MPI_Comm comm, MPI_Info info, void* base,
                 MPI_Aint size, int disp_unit, int flavor) {
  Communicator& c = collective_comm(call, label, comm);
  Objects& objects = active(call, label);
  check_info(call, objects, info);
  if (size < 0) fail(call, MPI_ERR_SIZE, "size " + std::to_string(size) + " is negative");
  if (disp_unit <= 0) {
    fail(call, MPI_ERR_DISP, "disp_unit " + std::to_string(disp_unit) + " is not positive");
  }
  const std::uint32_t context = agree_context(objects, c.members(), call);
  const InRankHeap heap;
  const int index = objects.windows.add(Window{});
  Window& w = *objects.windows.find(index);
  w.comm.group = c.group;
  w.comm.context = context;
  w.comm.rank = c.rank;
  w.flavor = flavor;
  w.base = base;
  w.size = size;
  w.disp_unit = disp_unit;
  const auto n = static_cast<std::size_t>(c.group.size());
  w.members.resize(n);
  w.touched.assign(n, 0);
  w.locked.assign(n, LockState::none);
  w.unchecked.assign(n, 0);
  w.access.assign(n, 0);
  w.lock_wanted.assign(n, LockState::none);
  w.lock_tag.assign(n, 0);
  WindowMember mine;
  mine.base = reinterpret_cast<std::uintptr_t>(base);
  mine.size = size;
  mine.disp_unit = disp_unit;
  mine.window = reinterpret_cast<std::uintptr_t>(&w);
  vp::group::allgather(w.comm.members(), &mine, sizeof mine, w.members.data(), call);
  return {&w, window_handle(index)};
}

// Memory of `bytes` (at least one) in the rank's own heap, so that it moves with the rank.
void* rank_memory(const char* call, MPI_Aint bytes) {
  const InRankHeap heap;
  void* p = std::aligned_alloc(64, (static_cast<std::size_t>(bytes) + 63) / 64 * 64 + 64);
  if (p == nullptr) {
    fail(call, MPI_ERR_NO_MEM, "cannot allocate " + std::to_string(bytes) + " bytes");
  }
  return p;
}

void free_rank_memory(void* p) {
  const InRankHeap heap;
  std::free(p);
}

// Completes the pending gets (their answers arrived or arrive next), unpacking derived ones.
void finish_gets(Window& w) {
  for (PendingGet& g : w.gets) {
    vp::wait(g.request);
    if (g.map) g.map->unpack(g.scratch.data(), g.scratch.size(), g.buffer, g.count);
  }
  const InRankHeap heap;
  w.gets.clear();
}

void forget_touched(Window& w) {
  for (const int m : w.touched_list) w.touched[static_cast<std::size_t>(m)] = 0;
  const InRankHeap heap;
  w.touched_list.clear();
}

// Sends `kind` to each member of `targets` at once and waits for every answer.
void round_trips(Window& w, const std::vector<std::int32_t>& targets, std::uint8_t kind) {
  std::vector<vp::Request> answers;
  answers.reserve(targets.size());
  for (const int m : targets) {
    const int rank = w.comm.group.rank_of(m);
    Wire h;
    h.kind = kind;
    h.tag = next_answer_tag(w);
    h.context = w.comm.context;
    h.window = w.members[static_cast<std::size_t>(m)].window;
    answers.push_back(vp::irecv(nullptr, 0, vp::Type::bytes, rank, h.tag, w.comm.context));
    vp::remote(rank, {reinterpret_cast<const std::byte*>(&h), sizeof h});
  }
  vp::waitall(answers);
}

// 0 .. members - 1 (lock_all and unlock_all reach every member).
std::vector<std::int32_t> every_member(const Window& w) {
  std::vector<std::int32_t> all(w.members.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int32_t>(i);
  return all;
}

int lock_type_checked(const char* call, int lock_type) {
  if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE) {
    fail(call, MPI_ERR_LOCKTYPE,
         "lock_type " + std::to_string(lock_type) +
             " is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE");
  }
  return lock_type;
}

void check_assert(const char* call, int mpi_assert) {
  constexpr int known = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                        MPI_MODE_NOSUCCEED;
  if ((mpi_assert & ~known) != 0) {
    fail(call, MPI_ERR_ASSERT,
         "assert " + std::to_string(mpi_assert) + " holds bits that are no MPI_MODE_* assertion");
  }
}

// The window members of a group's ranks (MPI_ERR_GROUP for a rank not in the window).
std::vector<std::int32_t> members_of(const char* call, Objects& objects, const Window& w,
                                     MPI_Group group) {
  const Group& g = group_of(call, objects, group);
  std::vector<std::int32_t> out;
  out.reserve(static_cast<std::size_t>(g.size()));
  for (int i = 0; i < g.size(); ++i) {
    const int m = w.comm.group.index_of(g.rank_of(i));
    if (m < 0) {
      fail(call, MPI_ERR_GROUP,
           "rank " + std::to_string(i) + " of group is not a member of the window");
    }
    out.push_back(m);
  }
  return out;
}

// Receives the MPI_Win_complete messages of the exposure's origins (all of them, or those that
// arrived when `block` is false); whether all arrived.
bool take_completes(Window& w, bool block) {
  while (static_cast<std::size_t>(w.completes_seen) < w.exposure.size()) {
    const int rank = w.comm.group.rank_of(w.exposure[static_cast<std::size_t>(w.completes_seen)]);
    if (!block && !vp::iprobe(rank, complete_tag, w.comm.context)) return false;
    vp::recv(nullptr, 0, vp::Type::bytes, rank, complete_tag, w.comm.context);
    ++w.completes_seen;
  }
  w.exposure_epoch = false;
  return true;
}

// The program's key `keyval` (MPI_ERR_KEYVAL for a predefined window key or an unknown one).
Keyval& window_keyval(const char* call, Objects& objects, int keyval) {
  const auto it = objects.keyvals.find(keyval);
  if (it == objects.keyvals.end()) {
    const bool predefined = keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL;
    fail(call, MPI_ERR_KEYVAL,
         "win_keyval " + std::to_string(keyval) +
             (predefined ? " is predefined: it can be read, not set or deleted"
                         : " is not a key of this rank (never made, or freed)"));
  }
  return it->second;
}

// Runs the delete function of `win`'s attribute `keyval` holding `value`.
void delete_window_attribute(const char* call, Objects& objects, MPI_Win win, int keyval,
                             void* value) {
  const Keyval& k = window_keyval(call, objects, keyval);
  if (k.remove == nullptr) return;
  const InRankHeap heap;  // the program's code allocates from the rank's heap
  const int code =
      reinterpret_cast<MPI_Win_delete_attr_function*>(k.remove)(win, keyval, value, k.extra);
  if (code != MPI_SUCCESS) {
    fail(call, code,
         "the delete function of win_keyval " + std::to_string(keyval) + " returned error " +
             std::to_string(code));
  }
}

void check_target(const char* call, const Window& w, int rank) {
  check_peer(w.comm.group.size(), call, "rank", rank, false, false);
}

}  // namespace

Window& window_of(const char* call, Objects& objects, MPI_Win win) {
  const auto value = reinterpret_cast<std::uintptr_t>(win);
  Window* w = nullptr;
  if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) == VMPI_WIN_BASE)
    w = objects.windows.find(window_index(win));
  if (w == nullptr) {
    fail(call, MPI_ERR_WIN,
         "win " + (win == MPI_WIN_NULL ? std::string("MPI_WIN_NULL") : handle_text(win)) +
             " is not a window of this rank (never made, or freed)");
  }
  return *w;
}

int raise_on_window(const char* call, MPI_Win win) {
  const Window* w = window_or_null(win);
  if (w == nullptr) return raise(call, MPI_COMM_WORLD);  // no window: MPI_COMM_WORLD's handler
  const Errhandler* handler = rank_mpi.get().objects->errhandlers.find(w->errhandler);
  int error_class = MPI_ERR_OTHER;
  try {
    throw;
  } catch (const MpiError& e) {
    error_class = e.error_class();
  } catch (const std::exception&) {
  }
  if (handler == nullptr || handler->kind == Errhandler::Kind::fatal) rethrow_named(call);
  if (handler->kind == Errhandler::Kind::function) {
    MPI_Win handle = win;
    int code = error_class;
    reinterpret_cast<MPI_Win_errhandler_function*>(handler->function)(&handle, &code);
  }
  return error_class;
}

int next_answer_tag(Window& w) {
  const int tag = static_cast<int>(w.next_tag % static_cast<std::uint32_t>(answer_tags));
  ++w.next_tag;
  return tag;
}

void round_trip(Window& w, int target, std::uint8_t kind) {
  round_trips(w, {target}, kind);
}

void settle_origin(Window& w) {
  round_trips(w, w.touched_list, flush);
  finish_gets(w);
  forget_touched(w);
}

void settle_target(Window& w, int target, std::uint8_t kind) {
  round_trip(w, target, kind);
  finish_gets(w);  // answers of other targets arrive by themselves
  if (w.touched[static_cast<std::size_t>(target)] != 0) {
    w.touched[static_cast<std::size_t>(target)] = 0;
    auto& list = w.touched_list;
    list.erase(std::remove(list.begin(), list.end(), target), list.end());
  }
}

}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

// ---- creation and freeing ----

int VPMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                     MPI_Win* win) {
  constexpr const char* call = "MPI_Win_create";
  return guarded_on(call, comm, [&](const Label& label) {
    check_out(call, win, "win");
    if (size > 0 && base == nullptr) fail(call, MPI_ERR_BASE, "base is NULL for a size > 0");
    *win =
        make_window(call, label, comm, info, base, size, disp_unit, MPI_WIN_FLAVOR_CREATE).handle;
  });
}

int VPMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                       MPI_Win* win) {
  constexpr const char* call = "MPI_Win_allocate";
  return guarded_on(call, comm, [&](const Label& label) {
    check_out(call, win, "win");
    check_out(call, baseptr, "baseptr");
    if (size < 0) fail(call, MPI_ERR_SIZE, "size " + std::to_string(size) + " is negative");
    void* memory = rank_memory(call, size);
    Made made{};
    try {
      made = make_window(call, label, comm, info, memory, size, disp_unit, MPI_WIN_FLAVOR_ALLOCATE);
    } catch (...) {
      free_rank_memory(memory);
      throw;
    }
    made.window->owned = memory;
    std::memcpy(baseptr, &memory, sizeof memory);
    *win = made.handle;
  });
}

int VPMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                              void* baseptr, MPI_Win* win) {
  constexpr const char* call = "MPI_Win_allocate_shared";
  return guarded_on(call, comm, [&](const Label& label) {
    check_out(call, win, "win");
    check_out(call, baseptr, "baseptr");
    Communicator& c = collective_comm(call, label, comm);
    if (vp::across_processes() && c.group.size() > 1) {
      fail(call, MPI_ERR_RMA_SHARED,
           "the ranks run over several processes (under mpirun) and may move between them: "
           "their memory cannot be shared (run them in one process, or use MPI_Win_allocate)");
    }
    if (size < 0) fail(call, MPI_ERR_SIZE, "size " + std::to_string(size) + " is negative");
    // Member 0 allocates every member's part, contiguous in member order (the standard's
    // default), each part rounded up to 64 bytes.
    const auto rounded = static_cast<std::int64_t>((size + 63) / 64 * 64);
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(c.group.size()));
    vp::group::allgather(c.members(), &rounded, sizeof rounded, sizes.data(), call);
    std::int64_t offset = 0;
    for (int i = 0; i < c.rank; ++i) offset += sizes[static_cast<std::size_t>(i)];
    std::int64_t total = 0;
    for (const std::int64_t s : sizes) total += s;
    std::uintptr_t block = 0;
    if (c.rank == 0) block = reinterpret_cast<std::uintptr_t>(rank_memory(call, total));
    vp::group::bcast(c.members(), &block, sizeof block, 0, call);
    void* memory = reinterpret_cast<void*>(block + static_cast<std::uintptr_t>(offset));
    const Made made =
        make_window(call, label, comm, info, memory, size, disp_unit, MPI_WIN_FLAVOR_SHARED);
    if (c.rank == 0) made.window->owned = reinterpret_cast<void*>(block);
    std::memcpy(baseptr, &memory, sizeof memory);
    *win = made.handle;
  });
}

int VPMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  constexpr const char* call = "MPI_Win_shared_query";
  return guarded_win(call, win, [&](const Label& label) {
    Window& w = window_of(call, active(call, label), win);
    if (w.flavor != MPI_WIN_FLAVOR_SHARED) {
      fail(call, MPI_ERR_RMA_FLAVOR, "win was not made by MPI_Win_allocate_shared");
    }
    check_out(call, size, "size");
    check_out(call, disp_unit, "disp_unit");
    check_out(call, baseptr, "baseptr");
    int m = rank;
    if (rank == MPI_PROC_NULL) {  // the first member with memory
      m = 0;
      while (m + 1 < static_cast<int>(w.members.size()) &&
             w.members[static_cast<std::size_t>(m)].size == 0) {
        ++m;
      }
    } else {
      check_target(call, w, rank);
    }
    const WindowMember& member = w.members[static_cast<std::size_t>(m)];
    *size = static_cast<MPI_Aint>(member.size);
    *disp_unit = member.disp_unit;
    void* base = reinterpret_cast<void*>(member.base);
    std::memcpy(baseptr, &base, sizeof base);
  });
}

int VPMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  constexpr const char* call = "MPI_Win_create_dynamic";
  return guarded_on(call, comm, [&](const Label& label) {
    check_out(call, win, "win");
    *win = make_window(call, label, comm, info, nullptr, 0, 1, MPI_WIN_FLAVOR_DYNAMIC).handle;
  });
}

int VPMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  constexpr const char* call = "MPI_Win_attach";
  return guarded_win(call, win, [&](const Label& label) {
    const Window& w = window_of(call, active(call, label), win);
    if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC) {
      fail(call, MPI_ERR_RMA_FLAVOR, "win was not made by MPI_Win_create_dynamic");
    }
    if (size < 0) fail(call, MPI_ERR_SIZE, "size " + std::to_string(size) + " is negative");
    if (size > 0 && base == nullptr) fail(call, MPI_ERR_RMA_ATTACH, "base is NULL");
    // Targets address attached memory by its address (MPI_Get_address): nothing to record.
  });
}

int VPMPI_Win_detach(MPI_Win win, const void* base) {
  constexpr const char* call = "MPI_Win_detach";
  return guarded_win(call, win, [&](const Label& label) {
    const Window& w = window_of(call, active(call, label), win);
    if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC) {
      fail(call, MPI_ERR_RMA_FLAVOR, "win was not made by MPI_Win_create_dynamic");
    }
    static_cast<void>(base);
  });
}

int VPMPI_Win_free(MPI_Win* win) {
  constexpr const char* call = "MPI_Win_free";
  return guarded_win(call, win != nullptr ? *win : MPI_WIN_NULL, [&](const Label& label) {
    check_out(call, win, "win");
    Objects& objects = active(call, label);
    Window& w = window_of(call, objects, *win);
    if (w.all_locked || w.access_epoch || w.exposure_epoch ||
        std::any_of(w.locked.begin(), w.locked.end(),
                    [](LockState s) { return s != LockState::none; })) {
      fail(call, MPI_ERR_RMA_SYNC,
           "an epoch is still open on the window (a lock, MPI_Win_start or MPI_Win_post)");
    }
    for (const auto& [keyval, value] : w.attributes) {
      delete_window_attribute(call, objects, *win, keyval, value);
    }
    settle_origin(w);
    // Nobody may reach this rank's memory any more once every member got here.
    vp::group::barrier(w.comm.members(), call);
    if (w.owned != nullptr) free_rank_memory(w.owned);
    const InRankHeap heap;
    objects.windows.remove(window_index(*win));
    *win = MPI_WIN_NULL;
  });
}

// ---- synchronization ----

int VPMPI_Win_fence(int mpi_assert, MPI_Win win) {
  constexpr const char* call = "MPI_Win_fence";
  return guarded_win(call, win, [&](const Label& label) {
    Window& w = window_of(call, active(call, label), win);
    check_assert(call, mpi_assert);
    if (w.access_epoch || w.exposure_epoch || w.all_locked) {
      fail(call, MPI_ERR_RMA_SYNC, "a passive-target or start/post epoch is open on the window");
    }
    settle_origin(w);
    vp::group::barrier(w.comm.members(), call);
    w.fence_epoch = (mpi_assert & MPI_MODE_NOSUCCEED) == 0;
  });
}

int VPMPI_Win_post(MPI_Group group, int mpi_assert, MPI_Win win) {
  constexpr const char* call = "MPI_Win_post";
  return guarded_win(call, win, [&](const Label& label) {
    Objects& objects = active(call, label);
    Window& w = window_of(call, objects, win);
    check_assert(call, mpi_assert);
    if (w.exposure_epoch) fail(call, MPI_ERR_RMA_SYNC, "an exposure epoch is already open");
    const std::vector<std::int32_t> origins = members_of(call, objects, w, group);
    {
      const InRankHeap heap;  // copied, not moved: the list must be in the rank's own heap
      w.exposure.assign(origins.begin(), origins.end());
    }
    w.exposure_epoch = true;
    w.completes_seen = 0;
    for (const int m : w.exposure) {
      vp::send(nullptr, 0, vp::Type::bytes, w.comm.group.rank_of(m), post_tag, w.comm.context);
    }
  });
}

int VPMPI_Win_start(MPI_Group group, int mpi_assert, MPI_Win win) {
  constexpr const char* call = "MPI_Win_start";
  return guarded_win(call, win, [&](const Label& label) {
    Objects& objects = active(call, label);
    Window& w = window_of(call, objects, win);
    check_assert(call, mpi_assert);
    if (w.access_epoch) fail(call, MPI_ERR_RMA_SYNC, "an access epoch is already open");
    const std::vector<std::int32_t> targets = members_of(call, objects, w, group);
    // Each target's MPI_Win_post first (the standard lets MPI_Win_start wait for them).
    for (const int m : targets) {
      vp::recv(nullptr, 0, vp::Type::bytes, w.comm.group.rank_of(m), post_tag, w.comm.context);
    }
    for (const int m : targets) w.access[static_cast<std::size_t>(m)] = 1;
    w.access_epoch = true;
  });
}

int VPMPI_Win_complete(MPI_Win win) {
  constexpr const char* call = "MPI_Win_complete";
  return guarded_win(call, win, [&](const Label& label) {
    Window& w = window_of(call, active(call, label), win);
    if (!w.access_epoch) fail(call, MPI_ERR_RMA_SYNC, "no MPI_Win_start epoch is open");
    // After the epoch's operations in each target's arrival order: the target's MPI_Win_wait
    // returns with them applied.
    for (std::size_t m = 0; m < w.access.size(); ++m) {
      if (w.access[m] == 0) continue;
      vp::send(nullptr, 0, vp::Type::bytes, w.comm.group.rank_of(static_cast<int>(m)), complete_tag,
               w.comm.context);
      w.access[m] = 0;
    }
    finish_gets(w);
    forget_touched(w);
    w.access_epoch = false;
  });
}

int VPMPI_Win_wait(MPI_Win win) {
  constexpr const char* call = "MPI_Win_wait";
  return guarded_win(call, win, [&](const Label& label) {
    Window& w = window_of(call, active(call, label), win);
    if (!w.exposure_epoch) fail(call, MPI_ERR_RMA_SYNC, "no MPI_Win_post epoch is open");
    take_completes(w, true);
  });
}

int VPMPI_Win_test(MPI_Win win, int* flag) {
  constexpr const char* call = "MPI_Win_test";
  return guarded_win(call, win, [&](const Label& label) {
    Window& w = window_of(call, active(call, label), win);
    check_out(call, flag, "flag");
    if (!w.exposure_epoch) fail(call, MPI_ERR_RMA_SYNC, "no MPI_Win_post epoch is open");
    *flag = take_completes(w, false) ? 1 : 0;
    if (*flag == 0) vp::yield();  // a polling loop lets the origins of this PE run
  });
}

int VPMPI_Win_lock(int lock_type, int rank, int mpi_assert, MPI_Win win) {
  constexpr const char* call = "MPI_Win_lock";
  return guarded_win(call, win, [&](const Label& label) {
    Window& w = window_of(call, active(call, label), win);
    lock_type_checked(call, lock_type);
    check_target(call, w, rank);
    check_assert(call, mpi_assert);
    const auto m = static_cast<std::size_t>(rank);
    if (w.locked[m] != LockState::none || w.all_locked) {
      fail(call, MPI_ERR_RMA_SYNC, "this rank holds a lock on target " + std::to_string(rank));
    }
    if (w.fence_epoch && !w.touched_list.empty()) {
      fail(call, MPI_ERR_RMA_SYNC, "a fence epoch with operations under way is open");
    }
    const bool exclusive = lock_type == MPI_LOCK_EXCLUSIVE;
    if ((mpi_assert & MPI_MODE_NOCHECK) == 0) {
      round_trip(w, rank, exclusive ? lock_exclusive : lock_shared);
    }
    w.locked[m] = exclusive ? LockState::exclusive : LockState::shared;
    w.unchecked[m] = (mpi_assert & MPI_MODE_NOCHECK) != 0 ? 1 : 0;  // ended by a flush
  });
}

int VPMPI_Win_unlock(int rank, MPI_Win win) {
  constexpr const char* call = "MPI_Win_unlock";
  return guarded_win(call, win, [&](const Label& label) {
    Window& w = window_of(call, active(call, label), win);
    check_target(call, w, rank);
    const auto m = static_cast<std::size_t>(rank);
    if (w.locked[m] == LockState::none) {
      fail(call, MPI_ERR_RMA_SYNC, "this rank holds no lock on target " + std::to_string(rank));
    }
    settle_target(w, rank, w.unchecked[m] != 0 ? flush : unlock);
    w.locked[m] = LockState::none;
    w.unchecked[m] = 0;
  });
}

int VPMPI_Win_lock_all(int mpi_assert, MPI_Win win) {
  constexpr const char* call = "MPI_Win_lock_all";
  return guarded_win(call, win, [&](const Label& label) {
    Window& w = window_of(call, active(call, label), win);
    check_assert(call, mpi_assert);
    if (w.all_locked || std::any_of(w.locked.begin(), w.locked.end(),
                                    [](LockState s) { return s != LockState::none; })) {
      fail(call, MPI_ERR_RMA_SYNC, "this rank holds a lock on the window already");
    }
    if ((mpi_assert & MPI_MODE_NOCHECK) == 0) {
      round_trips(w, every_member(w), lock_shared);
    }
    w.all_locked = true;
    w.unchecked.assign(w.unchecked.size(), (mpi_assert & MPI_MODE_NOCHECK) != 0 ? 1 : 0);
  });
}

int VPMPI_Win_unlock_all(MPI_Win win) {
  constexpr const char* call = "MPI_Win_unlock_all";
  return guarded_win(call, win, [&](const Label& label) {
    Window& w = window_of(call, active(call, label), win);
    if (!w.all_locked) fail(call, MPI_ERR_RMA_SYNC, "no MPI_Win_lock_all epoch is open");
    const bool unchecked = !w.unchecked.empty() && w.unchecked[0] != 0;
    round_trips(w, every_member(w), unchecked ? flush : unlock);
    finish_gets(w);
    forget_touched(w);
    w.all_locked = false;
    w.unchecked.assign(w.unchecked.size(), 0);
  });
}

int VPMPI_Win_flush(int rank, MPI_Win win) {
  constexpr const char* call = "MPI_Win_flush";
  return guarded_win(call, win, [&](const Label& label) {
    Window& w = window_of(call, active(call, label), win);
    check_target(call, w, rank);
    settle_target(w, rank, flush);
  });
}

int VPMPI_Win_flush_all(MPI_Win win) {
  constexpr const char* call = "MPI_Win_flush_all";
  return guarded_win(call, win, [&](const Label& label) {
    settle_origin(window_of(call, active(call, label), win));
  });
}

// Local completion: the origin's buffers may be reused (puts copied them when made) and the
// gets' data is in place.
int VPMPI_Win_flush_local(int rank, MPI_Win win) {
  constexpr const char* call = "MPI_Win_flush_local";
  return guarded_win(call, win, [&](const Label& label) {
    Window& w = window_of(call, active(call, label), win);
    check_target(call, w, rank);
    finish_gets(w);
  });
}

int VPMPI_Win_flush_local_all(MPI_Win win) {
  constexpr const char* call = "MPI_Win_flush_local_all";
  return guarded_win(call, win, [&](const Label& label) {
    finish_gets(window_of(call, active(call, label), win));
  });
}

int VPMPI_Win_sync(MPI_Win win) {
  constexpr const char* call = "MPI_Win_sync";
  return guarded_win(call, win, [&](const Label& label) {
    window_of(call, active(call, label), win);
    // A full barrier between the rank's loads and stores and the others' (one copy of the
    // memory: the unified model). A read-modify-write rather than atomic_thread_fence, which
    // ThreadSanitizer builds refuse.
    static std::atomic<int> barrier{0};
    barrier.fetch_add(0, std::memory_order_seq_cst);
  });
}

// ---- names, groups, error handlers, attributes, info ----

int VPMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  constexpr const char* call = "MPI_Win_get_group";
  return guarded_win(call, win, [&](const Label& label) {
    Objects& objects = active(call, label);
    const Window& w = window_of(call, objects, win);
    check_out(call, group, "group");
    *group = add_group(objects, w.comm.group);
  });
}

int VPMPI_Win_set_name(MPI_Win win, const char* win_name) {
  constexpr const char* call = "MPI_Win_set_name";
  return guarded_win(call, win, [&](const Label& label) {
    Window& w = window_of(call, active(call, label), win);
    check_out(call, win_name, "win_name");
    const InRankHeap heap;
    w.name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
  });
}

int VPMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  constexpr const char* call = "MPI_Win_get_name";
  return guarded_win(call, win, [&](const Label& label) {
    const Window& w = window_of(call, active(call, label), win);
    check_out(call, win_name, "win_name");
    check_out(call, resultlen, "resultlen");
    std::memcpy(win_name, w.name.c_str(), w.name.size() + 1);
    *resultlen = static_cast<int>(w.name.size());
  });
}

int VPMPI_Win_create_errhandler(MPI_Win_errhandler_function* function, MPI_Errhandler* errhandler) {
  constexpr const char* call = "MPI_Win_create_errhandler";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, reinterpret_cast<const void*>(function), "win_errhandler_fn");
    check_out(call, errhandler, "errhandler");
    const InRankHeap heap;
    // Kept as the communicators' kind of function; raise_on_window calls it with the window.
    *errhandler = errhandler_handle(objects.errhandlers.add(Errhandler{
        Errhandler::Kind::function, reinterpret_cast<MPI_Comm_errhandler_function*>(function)}));
  });
}

int VPMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  constexpr const char* call = "MPI_Win_set_errhandler";
  return guarded_win(call, win, [&](const Label& label) {
    Objects& objects = active(call, label);
    Window& w = window_of(call, objects, win);
    errhandler_of(call, objects, errhandler);
    w.errhandler = errhandler_index(errhandler);
  });
}

int VPMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  constexpr const char* call = "MPI_Win_get_errhandler";
  return guarded_win(call, win, [&](const Label& label) {
    const Window& w = window_of(call, active(call, label), win);
    check_out(call, errhandler, "errhandler");
    *errhandler = errhandler_handle(w.errhandler);
  });
}

int VPMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  constexpr const char* call = "MPI_Win_call_errhandler";
  return guarded_win(call, win, [&](const Label& label) {
    window_of(call, active(call, label), win);
    throw MpiError(errorcode, std::string(call) + ": error code " + std::to_string(errorcode) +
                                  " raised by the program");
  });
}

int VPMPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  constexpr const char* call = "MPI_Win_get_attr";
  return guarded_win(call, win, [&](const Label& label) {
    Window& w = window_of(call, active(call, label), win);
    check_out(call, attribute_val, "attribute_val");
    check_out(call, flag, "flag");
    // The value is a pointer to the attribute: MPI_WIN_BASE's is the base itself.
    void* value = nullptr;
    switch (win_keyval) {
      case MPI_WIN_BASE:
        value = w.base;
        break;
      case MPI_WIN_SIZE:
        value = &w.size;
        break;
      case MPI_WIN_DISP_UNIT:
        value = &w.disp_unit;
        break;
      case MPI_WIN_CREATE_FLAVOR:
        value = &w.flavor;
        break;
      case MPI_WIN_MODEL: {
        static int unified = MPI_WIN_UNIFIED;
        value = &unified;
        break;
      }
      default: {
        window_keyval(call, *rank_mpi.get().objects, win_keyval);
        const auto it = w.attributes.find(win_keyval);
        *flag = it != w.attributes.end() ? 1 : 0;
        if (*flag == 0) return;
        value = it->second;
      }
    }
    std::memcpy(attribute_val, &value, sizeof value);
    *flag = 1;
  });
}

int VPMPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                            MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval,
                            void* extra_state) {
  constexpr const char* call = "MPI_Win_create_keyval";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, win_keyval, "win_keyval");
    const InRankHeap heap;
    *win_keyval = objects.next_keyval++;
    objects.keyvals[*win_keyval] =
        Keyval{reinterpret_cast<void*>(win_copy_attr_fn),
               reinterpret_cast<void*>(win_delete_attr_fn), extra_state, false};
  });
}

int VPMPI_Win_free_keyval(int* win_keyval) {
  // Keys are shared with the communicators' (one number space): the same rules.
  return free_keyval("MPI_Win_free_keyval", win_keyval);
}

int VPMPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  constexpr const char* call = "MPI_Win_set_attr";
  return guarded_win(call, win, [&](const Label& label) {
    Objects& objects = active(call, label);
    Window& w = window_of(call, objects, win);
    window_keyval(call, objects, win_keyval);
    const auto it = w.attributes.find(win_keyval);
    if (it != w.attributes.end())
      delete_window_attribute(call, objects, win, win_keyval, it->second);
    const InRankHeap heap;
    w.attributes[win_keyval] = attribute_val;
  });
}

int VPMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  constexpr const char* call = "MPI_Win_delete_attr";
  return guarded_win(call, win, [&](const Label& label) {
    Objects& objects = active(call, label);
    Window& w = window_of(call, objects, win);
    window_keyval(call, objects, win_keyval);
    const auto it = w.attributes.find(win_keyval);
    if (it == w.attributes.end()) {
      fail(call, MPI_ERR_KEYVAL,
           "win_keyval " + std::to_string(win_keyval) + " has no attribute on this window");
    }
    delete_window_attribute(call, objects, win, win_keyval, it->second);
    const InRankHeap heap;
    w.attributes.erase(it);
  });
}

int VPMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  constexpr const char* call = "MPI_Win_set_info";
  return guarded_win(call, win, [&](const Label& label) {
    Objects& objects = active(call, label);
    window_of(call, objects, win);
    check_info(call, objects, info);  // hints only: none changes what the window does
  });
}

int VPMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  constexpr const char* call = "MPI_Win_get_info";
  return guarded_win(call, win, [&](const Label& label) {
    Objects& objects = active(call, label);
    window_of(call, objects, win);
    check_out(call, info_used, "info_used");
    const InRankHeap heap;
    *info_used = reinterpret_cast<MPI_Info>(
        static_cast<std::uintptr_t>(VMPI_INFO_BASE + objects.infos.add(Info{})));
  });
}

}  // extern "C"

VMPI_PROFILED(Win_create);
VMPI_PROFILED(Win_allocate);
VMPI_PROFILED(Win_allocate_shared);
VMPI_PROFILED(Win_shared_query);
VMPI_PROFILED(Win_create_dynamic);
VMPI_PROFILED(Win_attach);
VMPI_PROFILED(Win_detach);
VMPI_PROFILED(Win_free);
VMPI_PROFILED(Win_fence);
VMPI_PROFILED(Win_post);
VMPI_PROFILED(Win_start);
VMPI_PROFILED(Win_complete);
VMPI_PROFILED(Win_wait);
VMPI_PROFILED(Win_test);
VMPI_PROFILED(Win_lock);
VMPI_PROFILED(Win_unlock);
VMPI_PROFILED(Win_lock_all);
VMPI_PROFILED(Win_unlock_all);
VMPI_PROFILED(Win_flush);
VMPI_PROFILED(Win_flush_all);
VMPI_PROFILED(Win_flush_local);
VMPI_PROFILED(Win_flush_local_all);
VMPI_PROFILED(Win_sync);
VMPI_PROFILED(Win_get_group);
VMPI_PROFILED(Win_set_name);
VMPI_PROFILED(Win_get_name);
VMPI_PROFILED(Win_create_errhandler);
VMPI_PROFILED(Win_set_errhandler);
VMPI_PROFILED(Win_get_errhandler);
VMPI_PROFILED(Win_call_errhandler);
VMPI_PROFILED(Win_get_attr);
VMPI_PROFILED(Win_create_keyval);
VMPI_PROFILED(Win_free_keyval);
VMPI_PROFILED(Win_set_attr);
VMPI_PROFILED(Win_delete_attr);
VMPI_PROFILED(Win_set_info);
VMPI_PROFILED(Win_get_info);
