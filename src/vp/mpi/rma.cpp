// One-sided operations (windows.hpp): MPI_Put, MPI_Get, the accumulates, compare-and-swap and
// their request forms at the origin, and the remote handler that applies them at the target.
//
// An operation is checked at the origin (the access epoch, the target's bounds, the datatypes'
// sizes, the accumulate's operator and element type), so the handler only moves bytes. The
// target datatype travels as the runs of bytes it covers (Typemap::runs), the origin's data
// packed in the same order: a put scatters, a get gathers, an accumulate combines element by
// element along the runs. Costs: O(runs + bytes) at each side; one message, plus one answer for
// what returns data.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>

#include "operators.hpp"
#include "requests.hpp"
#include "windows.hpp"

namespace vela::mpi::detail {
namespace {

// ---- the target's side ----

// Calls visit(address, bytes, packed offset) for each run of `h` at the target.
template <class Visit>
void each_run(const Wire& h, const std::byte* runs, Visit&& visit) {
  auto* target = reinterpret_cast<std::byte*>(h.target);
  if (h.runs == 0) {
    visit(target, static_cast<std::size_t>(h.bytes), std::size_t{0});
    return;
  }
  std::size_t packed = 0;
  for (std::uint32_t i = 0; i < h.runs; ++i) {
    Run r;
    std::memcpy(&r, runs + i * sizeof(Run), sizeof r);  // a payload's bytes may be unaligned
    visit(target + r.offset, static_cast<std::size_t>(r.bytes), packed);
    packed += r.bytes;
  }
}

std::vector<std::byte> gather_target(const Wire& h, const std::byte* runs) {
  std::vector<std::byte> out(static_cast<std::size_t>(h.bytes));
  each_run(h, runs, [&](const std::byte* at, std::size_t n, std::size_t packed) {
    std::memcpy(out.data() + packed, at, n);
  });
  return out;
}

// target op= data, element by element of the accumulate's element type.
void combine_target(const Wire& h, const std::byte* runs, const std::byte* data) {
  if (h.op == no_op_index) return;
  const Datatype& element = datatypes[h.element];
  const CombineFunction function =
      h.op == replace_index ? nullptr : predefined_function(element, h.op);
  each_run(h, runs, [&](std::byte* at, std::size_t n, std::size_t packed) {
    if (function == nullptr) {
      std::memmove(at, data + packed, n);
    } else {
      function(data + packed, at, n / element.size, nullptr);
    }
  });
}

bool grantable(const Window& w, LockState s) {
  return s == LockState::exclusive ? w.exclusive_holder < 0 && w.shared_holders == 0
                                   : w.exclusive_holder < 0;
}

void grant(Window& w, int member, LockState s, int tag) {
  if (s == LockState::exclusive) {
    w.exclusive_holder = member;
  } else {
    ++w.shared_holders;
  }
  vp::answer(w.comm.group.rank_of(member), nullptr, 0, tag, w.comm.context);
}

// Grants waiting requests in member order from `after` + 1 (round robin: none starves), up to
// the first that cannot be granted yet.
void grant_waiting(Window& w, int after) {
  const int n = static_cast<int>(w.lock_wanted.size());
  for (int k = 1; k <= n; ++k) {
    const int m = (after + k) % n;
    const LockState s = w.lock_wanted[static_cast<std::size_t>(m)];
    if (s == LockState::none) continue;
    if (!grantable(w, s)) return;
    w.lock_wanted[static_cast<std::size_t>(m)] = LockState::none;
    grant(w, m, s, w.lock_tag[static_cast<std::size_t>(m)]);
  }
}

bool exclusive_waiting(const Window& w) {
  return std::find(w.lock_wanted.begin(), w.lock_wanted.end(), LockState::exclusive) !=
         w.lock_wanted.end();
}

void serve_lock(int source, const Wire& h) {
  Window& w = *reinterpret_cast<Window*>(h.window);
  const int member = w.comm.group.index_of(source);
  if (member < 0) return;  // not a member: the origin checked this
  if (h.kind == unlock) {
    if (w.exclusive_holder == member) {
      w.exclusive_holder = -1;
    } else if (w.shared_holders > 0) {
      --w.shared_holders;
    }
    vp::answer(source, nullptr, 0, h.tag, h.context);
    grant_waiting(w, member);
    return;
  }
  const LockState s = h.kind == lock_exclusive ? LockState::exclusive : LockState::shared;
  // A shared request waits behind a waiting exclusive one, so that writers are not starved.
  if (grantable(w, s) && (s == LockState::exclusive || !exclusive_waiting(w))) {
    grant(w, member, s, h.tag);
    return;
  }
  w.lock_wanted[static_cast<std::size_t>(member)] = s;
  w.lock_tag[static_cast<std::size_t>(member)] = h.tag;
}

}  // namespace

void serve_remote(int source, std::span<const std::byte> message) {
  Wire h;
  std::memcpy(&h, message.data(), sizeof h);
  const std::byte* runs = message.data() + sizeof h;
  const std::byte* data = runs + std::size_t{h.runs} * sizeof(Run);
  switch (h.kind) {
    case put:
      each_run(h, runs, [&](std::byte* at, std::size_t n, std::size_t packed) {
        std::memmove(at, data + packed, n);
      });
      return;
    case get: {
      const std::vector<std::byte> out = gather_target(h, runs);
      vp::answer(source, out.data(), out.size(), h.tag, h.context);
      return;
    }
    case accumulate:
      combine_target(h, runs, data);
      return;
    case get_accumulate: {
      const std::vector<std::byte> old = gather_target(h, runs);
      vp::answer(source, old.data(), old.size(), h.tag, h.context);
      combine_target(h, runs, data);
      return;
    }
    case compare_and_swap: {
      auto* at = reinterpret_cast<std::byte*>(h.target);
      const auto n = static_cast<std::size_t>(h.bytes);
      vp::answer(source, at, n, h.tag, h.context);
      if (std::memcmp(at, data, n) == 0) std::memcpy(at, data + n, n);
      return;
    }
    case flush:
      vp::answer(source, nullptr, 0, h.tag, h.context);
      return;
    case lock_shared:
    case lock_exclusive:
    case unlock:
      serve_lock(source, h);
      return;
    default:
      return;  // no such kind: an origin of this build never sends one
  }
}

namespace {

// ---- the origin's side ----

// The checked target of an operation: the member, its run rank, the address there and the runs.
struct Target {
  int member = -1;  // -1: MPI_PROC_NULL
  int rank = -1;
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  std::vector<Run> runs;  // empty: `bytes` contiguous bytes at `address`
  const Datatype* type = nullptr;
};

void check_epoch(const char* call, const Window& w, int member) {
  const auto m = static_cast<std::size_t>(member);
  if (w.fence_epoch || w.all_locked || w.locked[m] != LockState::none ||
      (w.access_epoch && w.access[m] != 0)) {
    return;
  }
  fail(call, MPI_ERR_RMA_SYNC,
       "no access epoch to target " + std::to_string(member) +
           " is open on the window (call MPI_Win_fence, MPI_Win_start or MPI_Win_lock first)");
}

Target target_of(const char* call, Window& w, int target_rank, MPI_Aint disp, int count,
                 MPI_Datatype datatype) {
  Target t;
  check_peer(w.comm.group.size(), call, "target_rank", target_rank, true, false);
  t.type = &datatype_of(call, datatype, "target_datatype");
  const std::size_t n = count_of(call, count, "target_count");
  if (target_rank == MPI_PROC_NULL) return t;
  check_epoch(call, w, target_rank);
  t.member = target_rank;
  t.rank = w.comm.group.rank_of(target_rank);
  const WindowMember& m = w.members[static_cast<std::size_t>(target_rank)];
  const std::int64_t start = static_cast<std::int64_t>(disp) * m.disp_unit;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  if (t.type->map == nullptr) {
    t.bytes = n * t.type->size;
    hi = static_cast<std::int64_t>(t.bytes);
  } else {
    bool first = true;
    t.type->map->runs(n, [&](std::int64_t offset, std::size_t bytes) {
      t.runs.push_back({offset, bytes});
      t.bytes += bytes;
      lo = first ? offset : std::min(lo, offset);
      hi = first ? offset + static_cast<std::int64_t>(bytes)
                 : std::max(hi, offset + static_cast<std::int64_t>(bytes));
      first = false;
    });
  }
  if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC && t.bytes > 0 &&
      (start + lo < 0 || start + hi > m.size)) {
    fail(call, MPI_ERR_RMA_RANGE,
         "target_disp " + std::to_string(disp) + " with " + std::to_string(n) + " of " +
             t.type->name + " reaches bytes " + std::to_string(start + lo) + ".." +
             std::to_string(start + hi) + " of target " + std::to_string(target_rank) +
             "'s window, which has " + std::to_string(m.size));
  }
  t.address = m.base + static_cast<std::uint64_t>(start);
  if (t.runs.size() == 1) {
    t.address += static_cast<std::uint64_t>(t.runs[0].offset);
    t.runs.clear();
  }
  return t;
}

// The header, the runs and `data` (`bytes` bytes) of one operation.
std::vector<std::byte> message(const Wire& h, const std::vector<Run>& runs, const void* data,
                               std::size_t bytes, const void* more = nullptr) {
  const std::size_t runs_bytes = runs.size() * sizeof(Run);
  std::vector<std::byte> m(sizeof h + runs_bytes + bytes * (more != nullptr ? 2 : 1));
  std::memcpy(m.data(), &h, sizeof h);
  if (runs_bytes != 0) std::memcpy(m.data() + sizeof h, runs.data(), runs_bytes);
  if (bytes != 0) std::memcpy(m.data() + sizeof h + runs_bytes, data, bytes);
  if (more != nullptr && bytes != 0)
    std::memcpy(m.data() + sizeof h + runs_bytes + bytes, more, bytes);
  return m;
}

Wire header_for(std::uint8_t kind, const Target& t) {
  Wire h;
  h.kind = kind;
  h.target = t.address;
  h.bytes = t.bytes;
  h.runs = static_cast<std::uint32_t>(t.runs.size());
  return h;
}

void send(Window& w, const Target& t, const std::vector<std::byte>& m) {
  vp::remote(t.rank, m);
  const auto member = static_cast<std::size_t>(t.member);
  if (w.touched[member] == 0) {
    const InRankHeap heap;
    w.touched[member] = 1;
    w.touched_list.push_back(t.member);
  }
}

void check_sizes(const char* call, std::size_t origin_bytes, const Target& t, const char* what) {
  if (origin_bytes != t.bytes) {
    fail(call, MPI_ERR_TYPE,
         std::string(what) + " holds " + std::to_string(origin_bytes) +
             " bytes of data, the target datatype and count " + std::to_string(t.bytes) +
             " (their type signatures must match)");
  }
}

// Where an answer of `count` elements of `type` at `buffer` is received: a new PendingGet whose
// request is posted (the caller sends the operation with `tag`).
PendingGet pending_answer(Window& w, const Target& t, void* buffer, std::size_t count,
                          const Datatype& type, int tag) {
  const InRankHeap heap;  // the scratch block and the request move with the rank
  PendingGet g;
  void* into = receiving(buffer, count, type, g.scratch);
  if (!type.contiguous) {
    g.map = *type.map;
    g.buffer = buffer;
    g.count = count;
  }
  g.request = vp::irecv(into, t.bytes, vp::Type::bytes, t.rank, tag, w.comm.context);
  return g;
}

// The element type every element of `type` is made of, for an accumulate under `op` (index).
const Datatype& accumulate_element(const char* call, const Datatype& type, MPI_Datatype handle,
                                   int op, const char* what) {
  if (type.map != nullptr && type.element == nullptr) {
    const std::optional<Basic> basic = type.map->homogeneous();
    const bool pairs =
        basic && (datatypes[static_cast<int>(*basic)].reducible == Reducible::pair ||
                  datatypes[static_cast<int>(*basic)].reducible == Reducible::pair_same);
    fail(call, MPI_ERR_TYPE,
         std::string(what) + " " + handle_text(handle) +
             (pairs ? " is a derived datatype of {value, index} pairs, which Vela packs without "
                      "their padding: accumulate the predefined pair type itself (with a count)"
                    : " is a derived datatype whose elements are not all of one predefined type"));
  }
  const Datatype& element = type.map == nullptr ? type : *type.element;
  if (op != replace_index && op != no_op_index && predefined_function(element, op) == nullptr) {
    fail(call, MPI_ERR_OP, std::string("the operator does not apply to ") + element.name);
  }
  return element;
}

std::uint16_t element_index(const Datatype& element) {
  return static_cast<std::uint16_t>(&element - datatypes);
}

// A request complete when made (a put's or an accumulate's: the data was copied).
MPI_Request completed_request() {
  const InRankHeap heap;
  auto* done = new Completed;
  done->status.MPI_SOURCE = MPI_ANY_SOURCE;
  done->status.MPI_TAG = MPI_ANY_TAG;
  return handle_of(done);
}

// A request for an answer: complete once it arrived and was unpacked.
MPI_Request answer_request(PendingGet g) {
  const InRankHeap heap;
  auto pc = std::make_unique<PendingCollective>();
  pc->receives.push_back(g.request);
  if (g.map) {
    pc->buffers.push_back(std::move(g.scratch));
    pc->steps.emplace_back(
        [map = *g.map, buffer = g.buffer, count = g.count](PendingCollective& p) {
          map.unpack(p.buffers[0].data(), p.buffers[0].size(), buffer, count);
        });
  }
  return handle_of(pc.release());
}

// An answer's pending receive: the request the program waits on, or the window's until its next
// synchronization.
void keep_answer(Window& w, PendingGet g, MPI_Request* request) {
  if (request != nullptr) {
    *request = answer_request(std::move(g));
    return;
  }
  const InRankHeap heap;
  w.gets.push_back(std::move(g));
}

struct Origin {
  const void* buffer;
  int count;
  MPI_Datatype datatype;
};
struct Result {
  void* buffer;
  int count;
  MPI_Datatype datatype;
};
struct Where {
  int rank;
  MPI_Aint disp;
  int count;
  MPI_Datatype datatype;
};

// MPI_Put / MPI_Rput.
void put_data(const char* call, const Label& label, MPI_Win win, const Origin& o, const Where& at,
              MPI_Request* request) {
  Objects& objects = active(call, label);
  Window& w = window_of(call, objects, win);
  const Buffer b = buffer_of(call, o.buffer, o.count, o.datatype,
                             {"origin_addr", "origin_count", "origin_datatype"});
  if (request != nullptr) check_out(call, request, "request");
  const Target t = target_of(call, w, at.rank, at.disp, at.count, at.datatype);
  if (t.member >= 0) {
    check_sizes(call, bytes_of(b.count, b.type), t, "the origin buffer");
    std::vector<std::byte> scratch;
    const void* data = gathered(o.buffer, b.count, b.type, scratch);
    send(w, t, message(header_for(put, t), t.runs, data, t.bytes));
  }
  if (request != nullptr) *request = completed_request();
}

// MPI_Get / MPI_Rget.
void get_data(const char* call, const Label& label, MPI_Win win, const Result& r, const Where& at,
              MPI_Request* request) {
  Objects& objects = active(call, label);
  Window& w = window_of(call, objects, win);
  const Buffer b = buffer_of(call, r.buffer, r.count, r.datatype,
                             {"origin_addr", "origin_count", "origin_datatype"});
  if (request != nullptr) check_out(call, request, "request");
  const Target t = target_of(call, w, at.rank, at.disp, at.count, at.datatype);
  if (t.member < 0) {
    if (request != nullptr) *request = completed_request();
    return;
  }
  check_sizes(call, bytes_of(b.count, b.type), t, "the origin buffer");
  Wire h = header_for(get, t);
  h.tag = next_answer_tag(w);
  h.context = w.comm.context;
  PendingGet g = pending_answer(w, t, r.buffer, b.count, b.type, h.tag);
  send(w, t, message(h, t.runs, nullptr, 0));
  keep_answer(w, std::move(g), request);
}

// MPI_Accumulate, MPI_Get_accumulate and their request forms (`result` null: no fetch).
void accumulate_data(const char* call, const Label& label, MPI_Win win, const Origin& o,
                     const Result* result, const Where& at, MPI_Op op, MPI_Request* request) {
  Objects& objects = active(call, label);
  Window& w = window_of(call, objects, win);
  const int index = predefined_index(call, op);
  if (result == nullptr && index == no_op_index) {
    fail(call, MPI_ERR_OP, "MPI_NO_OP is for MPI_Get_accumulate and MPI_Fetch_and_op only");
  }
  if (request != nullptr) check_out(call, request, "request");
  const Target t = target_of(call, w, at.rank, at.disp, at.count, at.datatype);
  const Datatype& element =
      accumulate_element(call, *t.type, at.datatype, index, "target_datatype");
  std::vector<std::byte> scratch;
  const void* data = nullptr;
  if (index != no_op_index) {  // MPI_NO_OP ignores the origin buffer
    const Buffer b = buffer_of(call, o.buffer, o.count, o.datatype,
                               {"origin_addr", "origin_count", "origin_datatype"});
    if (&accumulate_element(call, b.type, o.datatype, index, "origin_datatype") != &element) {
      fail(call, MPI_ERR_TYPE,
           std::string("origin_datatype's elements are not target_datatype's (") + element.name +
               ")");
    }
    if (t.member >= 0) {
      check_sizes(call, bytes_of(b.count, b.type), t, "the origin buffer");
      data = gathered(o.buffer, b.count, b.type, scratch);
    }
  }
  std::optional<Buffer> fetched;
  if (result != nullptr) {
    fetched.emplace(buffer_of(call, result->buffer, result->count, result->datatype,
                              {"result_addr", "result_count", "result_datatype"}));
  }
  if (t.member < 0) {
    if (request != nullptr) *request = completed_request();
    return;
  }
  Wire h = header_for(result != nullptr ? get_accumulate : accumulate, t);
  h.op = static_cast<std::uint8_t>(index);
  h.element = element_index(element);
  const std::size_t data_bytes = index == no_op_index ? 0 : t.bytes;
  if (result == nullptr) {
    send(w, t, message(h, t.runs, data, data_bytes));
    if (request != nullptr) *request = completed_request();
    return;
  }
  check_sizes(call, bytes_of(fetched->count, fetched->type), t, "the result buffer");
  h.tag = next_answer_tag(w);
  h.context = w.comm.context;
  PendingGet g = pending_answer(w, t, result->buffer, fetched->count, fetched->type, h.tag);
  send(w, t, message(h, t.runs, data, data_bytes));
  keep_answer(w, std::move(g), request);
}

void swap_if_equal(const char* call, const Label& label, MPI_Win win, const void* origin,
                   const void* compare, void* result, MPI_Datatype datatype, int target_rank,
                   MPI_Aint disp) {
  Objects& objects = active(call, label);
  Window& w = window_of(call, objects, win);
  const Datatype& type = datatype_of(call, datatype);
  if (type.map != nullptr ||
      (type.reducible != Reducible::signed_integer &&
       type.reducible != Reducible::unsigned_integer && type.reducible != Reducible::logical &&
       type.reducible != Reducible::character && type.type != vp::Type::bytes)) {
    fail(call, MPI_ERR_TYPE,
         std::string("datatype ") + type.name +
             " is not a predefined integer, logical or byte type (MPI_Compare_and_swap takes "
             "only those)");
  }
  check_buffer(call, origin, 1, type, "origin_addr");
  check_buffer(call, compare, 1, type, "compare_addr");
  check_buffer(call, result, 1, type, "result_addr");
  const Target t = target_of(call, w, target_rank, disp, 1, datatype);
  if (t.member < 0) return;
  Wire h = header_for(Kind::compare_and_swap, t);
  h.tag = next_answer_tag(w);
  h.context = w.comm.context;
  PendingGet g = pending_answer(w, t, result, 1, type, h.tag);
  send(w, t, message(h, t.runs, compare, t.bytes, origin));
  keep_answer(w, std::move(g), nullptr);
}

}  // namespace
}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VPMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Win win) {
  constexpr const char* call = "MPI_Put";
  return guarded_win(call, win, [&](const Label& label) {
    put_data(call, label, win, {origin_addr, origin_count, origin_datatype},
             {target_rank, target_disp, target_count, target_datatype}, nullptr);
  });
}

int VPMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, int target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  constexpr const char* call = "MPI_Rput";
  return guarded_win(call, win, [&](const Label& label) {
    check_out(call, request, "request");
    put_data(call, label, win, {origin_addr, origin_count, origin_datatype},
             {target_rank, target_disp, target_count, target_datatype}, request);
  });
}

int VPMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  constexpr const char* call = "MPI_Get";
  return guarded_win(call, win, [&](const Label& label) {
    get_data(call, label, win, {origin_addr, origin_count, origin_datatype},
             {target_rank, target_disp, target_count, target_datatype}, nullptr);
  });
}

int VPMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
               MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
               MPI_Request* request) {
  constexpr const char* call = "MPI_Rget";
  return guarded_win(call, win, [&](const Label& label) {
    check_out(call, request, "request");
    get_data(call, label, win, {origin_addr, origin_count, origin_datatype},
             {target_rank, target_disp, target_count, target_datatype}, request);
  });
}

int VPMPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  constexpr const char* call = "MPI_Accumulate";
  return guarded_win(call, win, [&](const Label& label) {
    accumulate_data(call, label, win, {origin_addr, origin_count, origin_datatype}, nullptr,
                    {target_rank, target_disp, target_count, target_datatype}, op, nullptr);
  });
}

int VPMPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, int target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  constexpr const char* call = "MPI_Raccumulate";
  return guarded_win(call, win, [&](const Label& label) {
    check_out(call, request, "request");
    accumulate_data(call, label, win, {origin_addr, origin_count, origin_datatype}, nullptr,
                    {target_rank, target_disp, target_count, target_datatype}, op, request);
  });
}

int VPMPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void* result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  constexpr const char* call = "MPI_Get_accumulate";
  return guarded_win(call, win, [&](const Label& label) {
    const Result result{result_addr, result_count, result_datatype};
    accumulate_data(call, label, win, {origin_addr, origin_count, origin_datatype}, &result,
                    {target_rank, target_disp, target_count, target_datatype}, op, nullptr);
  });
}

int VPMPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                          void* result_addr, int result_count, MPI_Datatype result_datatype,
                          int target_rank, MPI_Aint target_disp, int target_count,
                          MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                          MPI_Request* request) {
  constexpr const char* call = "MPI_Rget_accumulate";
  return guarded_win(call, win, [&](const Label& label) {
    check_out(call, request, "request");
    const Result result{result_addr, result_count, result_datatype};
    accumulate_data(call, label, win, {origin_addr, origin_count, origin_datatype}, &result,
                    {target_rank, target_disp, target_count, target_datatype}, op, request);
  });
}

int VPMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype,
                       int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  constexpr const char* call = "MPI_Fetch_and_op";
  return guarded_win(call, win, [&](const Label& label) {
    const Result result{result_addr, 1, datatype};
    accumulate_data(call, label, win, {origin_addr, 1, datatype}, &result,
                    {target_rank, target_disp, 1, datatype}, op, nullptr);
  });
}

int VPMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                           MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                           MPI_Win win) {
  constexpr const char* call = "MPI_Compare_and_swap";
  return guarded_win(call, win, [&](const Label& label) {
    swap_if_equal(call, label, win, origin_addr, compare_addr, result_addr, datatype, target_rank,
                  target_disp);
  });
}

}  // extern "C"

VMPI_PROFILED(Put);
VMPI_PROFILED(Rput);
VMPI_PROFILED(Get);
VMPI_PROFILED(Rget);
VMPI_PROFILED(Accumulate);
VMPI_PROFILED(Raccumulate);
VMPI_PROFILED(Get_accumulate);
VMPI_PROFILED(Rget_accumulate);
VMPI_PROFILED(Fetch_and_op);
VMPI_PROFILED(Compare_and_swap);
