// MPI's point-to-point communication (the standard's chapter 3) on any communicator: a peer's rank
// is looked up in the communicator's group (the remote group of an intercommunicator), the
// message carries the communicator's context, and a status's source is translated back from the
// run's numbering through the context it arrived in.
//
// Requests: a send or receive started is vp's request (its pointer is the handle). A persistent
// request (MPI_Send_init ...) is an object of this file in the rank's heap, its handle the
// pointer with the low bit set; MPI_Start starts a vp request inside it, and completing it makes
// it inactive, not null. MPI_PROC_NULL's requests complete at once. Sends are eager (copied when
// made, or received straight from the sender's buffer when large: vp). A synchronous send
// (MPI_Ssend, MPI_Issend, MPI_Ssend_init) completes once the receiver matched it (vp::ssend); a
// buffered one (MPI_Bsend ...) is copied at once whatever its size, and fails with
// MPI_ERR_BUFFER when it does not fit the attached buffer (the copy itself lives in the
// runtime's message, so consecutive buffered sends do not add up); the ready mode is the
// standard one.
#include <climits>
#include <memory>
#include <optional>

#include "derived_types.hpp"
#include "internal.hpp"
#include "requests.hpp"

namespace vela::mpi::detail {
namespace {

// Stands for a request on MPI_PROC_NULL: it completes at once with MPI_PROC_NULL's status.
char proc_null_request_tag;
MPI_Request proc_null_request() {
  return reinterpret_cast<MPI_Request>(&proc_null_request_tag);
}

// A persistent request: the arguments MPI_Start starts again each time.
// How a send completes (the standard's communication modes).
enum class Mode : std::uint8_t { standard, synchronous, buffered };

struct Persistent : Extended {
  Persistent() : Extended(Kind::persistent) {}
  bool receive = false;
  Mode mode = Mode::standard;
  void* buffer = nullptr;
  int count = 0;
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  int peer = 0;
  int tag = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Request active = MPI_REQUEST_NULL;  // the started request, null while inactive
};

// A receive into scratch, unpacked into `buffer` by `map` when it completes (the type map is
// kept: the program may free the datatype meanwhile).
struct Unpacking : Extended {
  explicit Unpacking(const Typemap& m) : Extended(Kind::unpacking), map(m) {}
  MPI_Request inner = MPI_REQUEST_NULL;
  std::vector<std::byte> scratch;
  void* buffer = nullptr;
  std::size_t count = 0;
  Typemap map;
};

bool is_persistent(MPI_Request request) {
  return is_extended(request) && extended_of(request)->kind == Extended::Kind::persistent;
}

Persistent* persistent_of(MPI_Request request) {
  return static_cast<Persistent*>(extended_of(request));
}

void fill_empty(MPI_Status* status, int source) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  status->vmpi_cancelled = 0;
  status->vmpi_bytes = 0;
}

// The status of a message: its source in the numbering of the communicator it came through.
void fill(MPI_Status* status, const vp::Status& s) {
  if (status == MPI_STATUS_IGNORE) return;
  int source = s.source;
  if (s.context != 0 && s.source >= 0) {
    if (const RankMpi& mine = rank_mpi.get(); mine.objects != nullptr) {
      if (const Communicator* c = comm_by_context(*mine.objects, s.context)) {
        source = c->peers().index_of(s.source);
      }
    }
  }
  status->MPI_SOURCE = source;
  status->MPI_TAG = s.tag;
  status->MPI_ERROR = MPI_SUCCESS;
  status->vmpi_cancelled = s.cancelled ? 1 : 0;
  status->vmpi_bytes = s.bytes;
}

vp::Request to_vp(MPI_Request request) {
  return vp::Request(reinterpret_cast<vp::detail::RequestState*>(request));
}

MPI_Request to_mpi(const vp::Request& request) {
  return reinterpret_cast<MPI_Request>(request.state());
}

enum class Direction { send, receive };

// A checked message: its buffer and its peer as a run rank (-1: MPI_PROC_NULL, any source).
struct Message {
  Buffer buffer;
  int peer;  // run rank, MPI_PROC_NULL or MPI_ANY_SOURCE
  std::uint32_t context;
};

// The arguments of a call that sends or receives one message, checked: the communicator, the
// buffer, then the peer (a send's destination, a receive's source) and the tag.
[[gnu::always_inline]] inline Message message_of(const Label& label, const char* call,
                                                 MPI_Comm comm, const void* buf, int count,
                                                 MPI_Datatype datatype, Direction direction,
                                                 int peer, int tag) {
  const Communicator& c = active(call, label, comm);
  const Buffer b = buffer_of(call, buf, count, datatype);
  const Group& peers = c.peers();
  const bool receive = direction == Direction::receive;
  check_peer(peers.size(), call, receive ? "source" : "dest", peer, true, receive);
  check_tag(call, "tag", tag, receive);
  const int run_rank = peer >= 0 ? peers.rank_of(peer) : peer;
  return {b, run_rank, c.context};
}

// What vp sends or receives for `count` elements of `type` at `buffer`: the elements themselves
// (a predefined type), or their bytes, in place or staged in `scratch` (a derived one).
struct Wire {
  void* data;
  std::size_t count;
  vp::Type type;
};

// vp's elements of a predefined type's `count`: the count itself, or its bytes where the type
// goes as raw bytes (the complex and {value, index} types, REAL*16: vp has no element of them).
std::size_t wire_count(const Buffer& b) {
  return b.type.type == vp::Type::bytes ? bytes_of(b.count, b.type) : b.count;
}

Wire outgoing(const void* buffer, const Buffer& b, std::vector<std::byte>& scratch) {
  if (b.type.map == nullptr) return {const_cast<void*>(buffer), wire_count(b), b.type.type};
  return {const_cast<void*>(gathered(buffer, b.count, b.type, scratch)), bytes_of(b.count, b.type),
          vp::Type::bytes};
}

Wire incoming(void* buffer, const Buffer& b, std::vector<std::byte>& scratch) {
  if (b.type.map == nullptr) return {buffer, wire_count(b), b.type.type};
  return {receiving(buffer, b.count, b.type, scratch), bytes_of(b.count, b.type), vp::Type::bytes};
}

// A blocking receive of a checked message into `buf`.
vp::Status receive(void* buf, const Message& m, int tag) {
  std::vector<std::byte> scratch;
  const Wire w = incoming(buf, m.buffer, scratch);
  const vp::Status s = vp::recv(w.data, w.count, w.type, m.peer, tag, m.context);
  scattered(scratch, s.bytes, buf, m.buffer.count, m.buffer.type);
  return s;
}

// A buffered send must fit the attached buffer with its overhead (MPI_ERR_BUFFER).
void check_buffered(const char* call, const Message& m) {
  const RankMpi& mine = rank_mpi.get();
  const std::size_t bytes = bytes_of(m.buffer.count, m.buffer.type) + MPI_BSEND_OVERHEAD;
  const int attached = mine.objects != nullptr ? mine.objects->attached_bytes : 0;
  if (mine.objects == nullptr || mine.objects->attached_buffer == nullptr ||
      bytes > static_cast<std::size_t>(attached)) {
    fail(call, MPI_ERR_BUFFER,
         "the message and MPI_BSEND_OVERHEAD need " + std::to_string(bytes) +
             " bytes of the attached buffer, which has " + std::to_string(attached) +
             (mine.objects == nullptr || mine.objects->attached_buffer == nullptr
                  ? " (none attached: MPI_Buffer_attach)"
                  : ""));
  }
}

// Sends in `mode`; a request for it when `request` (complete at once but a synchronous one).
vp::Request send_in_mode(const char* call, const void* buf, const Message& m, int tag, Mode mode,
                         bool request) {
  std::vector<std::byte> scratch;
  if (mode == Mode::buffered) check_buffered(call, m);
  // The data is copied (or delivered) before vp returns: the scratch may go.
  const Wire w = outgoing(buf, m.buffer, scratch);
  switch (mode) {
    case Mode::synchronous:
      if (request) return vp::issend(w.data, w.count, w.type, m.peer, tag, m.context);
      vp::ssend(w.data, w.count, w.type, m.peer, tag, m.context);
      return {};
    case Mode::buffered: {
      vp::Request r = vp::bsend(w.data, w.count, w.type, m.peer, tag, m.context);
      if (!request) vp::wait(r);
      return request ? r : vp::Request{};
    }
    case Mode::standard:
      break;
  }
  if (request) return vp::isend(w.data, w.count, w.type, m.peer, tag, m.context);
  vp::send(w.data, w.count, w.type, m.peer, tag, m.context);
  return {};
}

// The request `direction` starts for a checked message (MPI_PROC_NULL's where the peer is).
MPI_Request start(const char* call, const void* buf, const Message& m, Direction direction, int tag,
                  Mode mode) {
  if (m.peer == MPI_PROC_NULL) return proc_null_request();
  if (direction == Direction::send) return to_mpi(send_in_mode(call, buf, m, tag, mode, true));
  std::vector<std::byte> scratch;
  if (m.buffer.type.contiguous) {
    const Wire w = incoming(const_cast<void*>(buf), m.buffer, scratch);
    return to_mpi(vp::irecv(w.data, w.count, w.type, m.peer, tag, m.context));
  }
  const InRankHeap heap;
  auto* u = new Unpacking(*m.buffer.type.map);
  u->buffer = const_cast<void*>(buf);
  u->count = m.buffer.count;
  u->scratch.resize(bytes_of(m.buffer.count, m.buffer.type));
  u->inner = to_mpi(
      vp::irecv(u->scratch.data(), u->scratch.size(), vp::Type::bytes, m.peer, tag, m.context));
  return handle_of(u);
}

int send(const char* call, const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
         MPI_Comm comm, Mode mode = Mode::standard) {
  return guarded_on(call, comm, [&](const Label& label) {
    const Message m =
        message_of(label, call, comm, buf, count, datatype, Direction::send, dest, tag);
    if (m.peer != MPI_PROC_NULL) send_in_mode(call, buf, m, tag, mode, false);
  });
}

int start_request(const char* call, const void* buf, int count, MPI_Datatype datatype,
                  Direction direction, int peer, int tag, MPI_Comm comm, MPI_Request* request,
                  Mode mode = Mode::standard) {
  return guarded_on(call, comm, [&](const Label& label) {
    const Message m = message_of(label, call, comm, buf, count, datatype, direction, peer, tag);
    check_out(call, request, "request");
    *request = start(call, buf, m, direction, tag, mode);
  });
}

int make_persistent(const char* call, const void* buf, int count, MPI_Datatype datatype,
                    Direction direction, int peer, int tag, MPI_Comm comm, MPI_Request* request,
                    Mode mode = Mode::standard) {
  return guarded_on(call, comm, [&](const Label& label) {
    message_of(label, call, comm, buf, count, datatype, direction, peer, tag);
    check_out(call, request, "request");
    const InRankHeap heap;
    auto* p = new Persistent;
    p->receive = direction == Direction::receive;
    p->mode = mode;
    p->buffer = const_cast<void*>(buf);
    p->count = count;
    p->datatype = datatype;
    p->peer = peer;
    p->tag = tag;
    p->comm = comm;
    *request = handle_of(p);
  });
}

void start_persistent(const char* call, const Label& label, MPI_Request request) {
  if (!is_persistent(request)) {
    fail(call, MPI_ERR_REQUEST,
         "request " + handle_text(request) + " is not a persistent request (MPI_Send_init, ...)");
  }
  Persistent& p = *persistent_of(request);
  if (p.active != MPI_REQUEST_NULL) fail(call, MPI_ERR_REQUEST, "the request is already active");
  const Direction direction = p.receive ? Direction::receive : Direction::send;
  const Message m =
      message_of(label, call, p.comm, p.buffer, p.count, p.datatype, direction, p.peer, p.tag);
  p.active = start(call, p.buffer, m, direction, p.tag, p.mode);
}

// The request a completion works on: a persistent one's active request, or the request itself.
MPI_Request* inner(MPI_Request* request) {
  return is_persistent(*request) ? &persistent_of(*request)->active : request;
}

// Appends to `out` the vp requests that `request` still waits for (none: it can complete now).
void pending_of(MPI_Request request, std::vector<vp::Request>& out) {
  if (request == MPI_REQUEST_NULL || request == proc_null_request()) return;
  if (!is_extended(request)) {
    const vp::Request v = to_vp(request);
    if (!vp::ready(v)) out.push_back(v);
    return;
  }
  Extended* e = extended_of(request);
  switch (e->kind) {
    case Extended::Kind::persistent:
      return pending_of(static_cast<Persistent*>(e)->active, out);
    case Extended::Kind::unpacking:
      return pending_of(static_cast<Unpacking*>(e)->inner, out);
    case Extended::Kind::collective:
      for (const vp::Request& r : static_cast<PendingCollective*>(e)->receives) {
        if (!vp::ready(r)) out.push_back(r);
      }
      return;
    case Extended::Kind::completed:
      return;
    case Extended::Kind::generalized: {
      const vp::Request& done = static_cast<Generalized*>(e)->done;
      if (!vp::ready(done)) out.push_back(done);
      return;
    }
  }
}

// A test that found nothing lets the other ranks of the PE run: a rank polling (MPI_Test,
// MPI_Iprobe in a loop) for what a rank of its own PE will send would otherwise spin forever,
// ranks being fibers that give their PE back only when they block.
void nothing_yet() {
  vp::yield();
}

bool ready_now(MPI_Request request) {
  std::vector<vp::Request> pending;
  pending_of(request, pending);
  return pending.empty();
}

bool complete(MPI_Request* request, MPI_Status* status, bool block);

// Completes a nonblocking collective: its receives, then its finishing step.
bool complete_collective(MPI_Request* request, MPI_Status* status, bool block) {
  auto* pc = static_cast<PendingCollective*>(extended_of(*request));
  if (!block && !ready_now(*request)) return false;
  const std::unique_ptr<PendingCollective> owned(pc);
  *request = MPI_REQUEST_NULL;
  for (vp::Request& r : pc->receives) vp::wait(r);
  for (auto& step : pc->steps) step(*pc);
  fill_empty(status, MPI_ANY_SOURCE);
  return true;
}

// A program function's error code, raised as the call's error.
void check_program_code(int code, const char* what) {
  if (code != MPI_SUCCESS) {
    throw MpiError(code, std::string("the generalized request's ") + what + " returned error " +
                             std::to_string(code));
  }
}

// Completes a generalized request: once MPI_Grequest_complete was called, its status from the
// query function, then the free function.
bool complete_generalized(MPI_Request* request, MPI_Status* status, bool block) {
  auto* g = static_cast<Generalized*>(extended_of(*request));
  if (!block && !vp::ready(g->done)) return false;
  vp::wait(g->done);
  const std::unique_ptr<Generalized> owned(g);
  *request = MPI_REQUEST_NULL;
  MPI_Status own;
  MPI_Status* s = status != MPI_STATUS_IGNORE ? status : &own;
  fill_empty(s, MPI_ANY_SOURCE);
  const InRankHeap heap;  // the program's functions allocate from the rank's heap
  check_program_code(g->query(g->extra, s), "query function");
  check_program_code(g->free(g->extra), "free function");
  return true;
}

// Completes an unpacking receive: its message unpacked into the program's buffer.
bool complete_unpacking(MPI_Request* request, MPI_Status* status, bool block) {
  auto* u = static_cast<Unpacking*>(extended_of(*request));
  MPI_Status got;
  if (!complete(&u->inner, &got, block)) return false;
  const std::unique_ptr<Unpacking> owned(u);
  *request = MPI_REQUEST_NULL;
  try {
    u->map.unpack(u->scratch.data(), got.vmpi_bytes, u->buffer, u->count);
  } catch (const TypeError& e) {
    throw MpiError(MPI_ERR_TRUNCATE, e.what());
  }
  if (status != MPI_STATUS_IGNORE) *status = got;
  return true;
}

// Completes `*request` (waiting if `block`): whether it completed; fills `status`. A completed
// request becomes MPI_REQUEST_NULL, a persistent one inactive. A null or inactive request is
// complete with an empty status.
bool complete(MPI_Request* request, MPI_Status* status, bool block) {
  MPI_Request* r = inner(request);
  if (is_extended(*r)) {
    switch (extended_of(*r)->kind) {
      case Extended::Kind::collective:
        return complete_collective(r, status, block);
      case Extended::Kind::completed: {
        const std::unique_ptr<Completed> done(static_cast<Completed*>(extended_of(*r)));
        *r = MPI_REQUEST_NULL;
        if (status != MPI_STATUS_IGNORE) *status = done->status;
        return true;
      }
      case Extended::Kind::generalized:
        return complete_generalized(r, status, block);
      default:
        return complete_unpacking(r, status, block);
    }
  }
  if (*r == MPI_REQUEST_NULL) {
    fill_empty(status, MPI_ANY_SOURCE);
    return true;
  }
  if (*r == proc_null_request()) {
    *r = MPI_REQUEST_NULL;
    fill_empty(status, MPI_PROC_NULL);
    return true;
  }
  vp::Request v = to_vp(*r);
  if (!block && !vp::ready(v)) return false;
  *r = MPI_REQUEST_NULL;  // vp frees the request even when the wait fails
  fill(status, vp::wait(v));
  return true;
}

// Whether `request` is null or an inactive persistent request.
bool inactive(MPI_Request request) {
  return request == MPI_REQUEST_NULL ||
         (is_persistent(request) && persistent_of(request)->active == MPI_REQUEST_NULL);
}

MPI_Status* status_at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

// Blocks until one of the active requests among `requests` can complete: each wait in vp is
// for any of the receives still outstanding, until one request has none left.
void wait_for_one(int count, MPI_Request requests[]) {
  for (;;) {
    std::vector<vp::Request> all;
    for (int i = 0; i < count; ++i) {
      if (inactive(requests[i])) continue;
      std::vector<vp::Request> pending;
      pending_of(requests[i], pending);
      if (pending.empty()) return;
      all.insert(all.end(), pending.begin(), pending.end());
    }
    if (all.empty()) return;
    vp::wait_any_ready(all);
  }
}

// Completes every active request of `requests` that can complete now; their indices.
std::vector<int> complete_ready(int count, MPI_Request requests[], MPI_Status statuses[],
                                bool compact) {
  std::vector<int> done;
  for (int i = 0; i < count; ++i) {
    if (inactive(requests[i])) continue;
    MPI_Status* s = status_at(statuses, compact ? static_cast<int>(done.size()) : i);
    if (complete(&requests[i], s, false)) done.push_back(i);
  }
  return done;
}

void check_requests(const char* call, int count, MPI_Request requests[]) {
  count_of(call, count);
  if (count > 0) check_out(call, requests, "requests");
}

// MPI_Waitsome and MPI_Testsome.
int some(const char* call, int incount, MPI_Request requests[], int* outcount, int indices[],
         MPI_Status statuses[], bool block) {
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_requests(call, incount, requests);
    check_out(call, outcount, "outcount");
    bool any = false;
    for (int i = 0; i < incount; ++i) any = any || !inactive(requests[i]);
    if (!any) {
      *outcount = MPI_UNDEFINED;
      return;
    }
    if (incount > 0) check_out(call, indices, "indices");
    std::vector<int> done = complete_ready(incount, requests, statuses, true);
    while (block && done.empty()) {
      wait_for_one(incount, requests);
      done = complete_ready(incount, requests, statuses, true);
    }
    for (std::size_t k = 0; k < done.size(); ++k) indices[k] = done[k];
    *outcount = static_cast<int>(done.size());
    if (done.empty()) nothing_yet();
  });
}

// MPI_Waitany and MPI_Testany.
int any(const char* call, int count, MPI_Request requests[], int* index, int* flag,
        MPI_Status* status, bool block) {
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_requests(call, count, requests);
    check_out(call, index, "index");
    bool any_active = false;
    for (int i = 0; i < count; ++i) any_active = any_active || !inactive(requests[i]);
    if (!any_active) {
      *index = MPI_UNDEFINED;
      if (flag != nullptr) *flag = 1;
      fill_empty(status, MPI_ANY_SOURCE);
      return;
    }
    for (;;) {
      for (int i = 0; i < count; ++i) {
        if (!inactive(requests[i]) && complete(&requests[i], status, false)) {
          *index = i;
          if (flag != nullptr) *flag = 1;
          return;
        }
      }
      if (!block) {
        *index = MPI_UNDEFINED;
        *flag = 0;
        nothing_yet();
        return;
      }
      wait_for_one(count, requests);
    }
  });
}

}  // namespace
}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VPMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return send("MPI_Send", buf, count, datatype, dest, tag, comm);
}

int VPMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm) {
  return send("MPI_Ssend", buf, count, datatype, dest, tag, comm, Mode::synchronous);
}

int VPMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm) {
  return send("MPI_Rsend", buf, count, datatype, dest, tag, comm);
}

int VPMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm) {
  return send("MPI_Bsend", buf, count, datatype, dest, tag, comm, Mode::buffered);
}

int VPMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Status* status) {
  constexpr const char* call = "MPI_Recv";
  return guarded_on(call, comm, [&](const Label& label) {
    const Message m =
        message_of(label, call, comm, buf, count, datatype, Direction::receive, source, tag);
    if (m.peer == MPI_PROC_NULL) {
      fill_empty(status, MPI_PROC_NULL);
      return;
    }
    fill(status, receive(buf, m, tag));
  });
}

int VPMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return start_request("MPI_Isend", buf, count, datatype, Direction::send, dest, tag, comm,
                       request);
}

int VPMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  return start_request("MPI_Issend", buf, count, datatype, Direction::send, dest, tag, comm,
                       request, Mode::synchronous);
}

int VPMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  return start_request("MPI_Irsend", buf, count, datatype, Direction::send, dest, tag, comm,
                       request);
}

int VPMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  return start_request("MPI_Ibsend", buf, count, datatype, Direction::send, dest, tag, comm,
                       request, Mode::buffered);
}

int VPMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return start_request("MPI_Irecv", buf, count, datatype, Direction::receive, source, tag, comm,
                       request);
}

// Buffered sends are copied at once like every send: the attached buffer is only kept, and
// given back by MPI_Buffer_detach.
int VPMPI_Buffer_attach(void* buffer, int size) {
  constexpr const char* call = "MPI_Buffer_attach";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    count_of(call, size, "size");
    if (size > 0) check_out(call, buffer, "buffer");
    if (objects.attached_buffer != nullptr) {
      fail(call, MPI_ERR_BUFFER, "a buffer is already attached (MPI_Buffer_detach it first)");
    }
    objects.attached_buffer = buffer;
    objects.attached_bytes = size;
  });
}

int VPMPI_Buffer_detach(void* buffer_addr, int* size) {
  constexpr const char* call = "MPI_Buffer_detach";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, buffer_addr, "buffer_addr");
    check_out(call, size, "size");
    void* buffer = objects.attached_buffer;
    std::memcpy(buffer_addr, &buffer, sizeof buffer);
    *size = objects.attached_bytes;
    objects.attached_buffer = nullptr;
    objects.attached_bytes = 0;
  });
}

int VPMPI_Wait(MPI_Request* request, MPI_Status* status) {
  constexpr const char* call = "MPI_Wait";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, request, "request");
    complete(request, status, true);
  });
}

int VPMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  constexpr const char* call = "MPI_Waitall";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_requests(call, count, requests);
    // Wait for all (vp waits for its requests together), then complete each.
    std::vector<vp::Request> pending;
    for (int i = 0; i < count; ++i) pending_of(requests[i], pending);
    vp::wait_all_ready(pending);
    std::exception_ptr first;
    for (int i = 0; i < count; ++i) {
      try {
        complete(&requests[i], status_at(statuses, i), true);
      } catch (const std::exception&) {
        if (!first) first = std::current_exception();
      }
    }
    if (first) std::rethrow_exception(first);
  });
}

int VPMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  return any("MPI_Waitany", count, requests, index, nullptr, status, true);
}

int VPMPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                   MPI_Status statuses[]) {
  return some("MPI_Waitsome", incount, requests, outcount, indices, statuses, true);
}

int VPMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  constexpr const char* call = "MPI_Test";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, request, "request");
    check_out(call, flag, "flag");
    *flag = complete(request, status, false) ? 1 : 0;
    if (*flag == 0) nothing_yet();
  });
}

int VPMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  constexpr const char* call = "MPI_Testall";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_requests(call, count, requests);
    check_out(call, flag, "flag");
    // All or none: completed only when every one can complete.
    for (int i = 0; i < count; ++i) {
      if (!ready_now(requests[i])) {
        *flag = 0;
        nothing_yet();
        return;
      }
    }
    for (int i = 0; i < count; ++i) complete(&requests[i], status_at(statuses, i), true);
    *flag = 1;
  });
}

int VPMPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  constexpr const char* call = "MPI_Testany";
  if (flag == nullptr) {
    return guarded(call, [&] { fail_out(call, "flag"); });
  }
  return any(call, count, requests, index, flag, status, false);
}

int VPMPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                   MPI_Status statuses[]) {
  return some("MPI_Testsome", incount, requests, outcount, indices, statuses, false);
}

int VPMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                         MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                         MPI_Request* request) {
  constexpr const char* call = "MPI_Grequest_start";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, reinterpret_cast<const void*>(query_fn), "query_fn");
    check_out(call, reinterpret_cast<const void*>(free_fn), "free_fn");
    check_out(call, reinterpret_cast<const void*>(cancel_fn), "cancel_fn");
    check_out(call, request, "request");
    const InRankHeap heap;
    auto g = std::make_unique<Generalized>();
    g->query = query_fn;
    g->free = free_fn;
    g->cancel = cancel_fn;
    g->extra = extra_state;
    g->tag = objects.next_grequest_tag;
    objects.next_grequest_tag = (objects.next_grequest_tag + 1) % (vp::max_tag + 1);
    g->done = vp::irecv(nullptr, 0, vp::Type::bytes, label.rank(), g->tag, grequest_context);
    *request = handle_of(g.release());
  });
}

int VPMPI_Grequest_complete(MPI_Request request) {
  constexpr const char* call = "MPI_Grequest_complete";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    if (!is_extended(request) || extended_of(request)->kind != Extended::Kind::generalized) {
      fail(
          call, MPI_ERR_REQUEST,
          "request " + handle_text(request) + " is not a generalized request (MPI_Grequest_start)");
    }
    auto* g = static_cast<Generalized*>(extended_of(request));
    if (g->completed) fail(call, MPI_ERR_REQUEST, "the request was completed already");
    g->completed = true;
    vp::send(nullptr, 0, vp::Type::bytes, label.rank(), g->tag, grequest_context);
  });
}

int VPMPI_Request_free(MPI_Request* request) {
  constexpr const char* call = "MPI_Request_free";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, request, "request");
    if (*request == MPI_REQUEST_NULL) fail(call, MPI_ERR_REQUEST, "request is MPI_REQUEST_NULL");
    // An active request completes first (its send's data is copied already; a receive's
    // message still lands in its buffer).
    if (is_persistent(*request)) {
      Persistent* p = persistent_of(*request);
      complete(&p->active, MPI_STATUS_IGNORE, true);
      delete p;
    } else if (is_extended(*request) &&
               extended_of(*request)->kind == Extended::Kind::generalized &&
               !static_cast<Generalized*>(extended_of(*request))->completed) {
      fail(call, MPI_ERR_REQUEST,
           "a generalized request is freed once MPI_Grequest_complete was called (waiting here "
           "for it would never end)");
    } else {
      complete(request, MPI_STATUS_IGNORE, true);
    }
    *request = MPI_REQUEST_NULL;
  });
}

int VPMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  constexpr const char* call = "MPI_Request_get_status";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, flag, "flag");
    const MPI_Request r = is_persistent(request) ? persistent_of(request)->active : request;
    if (r == MPI_REQUEST_NULL || r == proc_null_request()) {
      *flag = 1;
      fill_empty(status, r == MPI_REQUEST_NULL ? MPI_ANY_SOURCE : MPI_PROC_NULL);
      return;
    }
    *flag = ready_now(r) ? 1 : 0;
    if (*flag == 0) nothing_yet();
    if (*flag == 0 || status == MPI_STATUS_IGNORE) return;
    if (is_extended(r)) {
      fill_empty(status, MPI_ANY_SOURCE);  // known once completed (unpacked, combined)
      if (extended_of(r)->kind == Extended::Kind::completed) {
        *status = static_cast<Completed*>(extended_of(r))->status;
      }
      if (extended_of(r)->kind == Extended::Kind::generalized) {
        const auto* g = static_cast<Generalized*>(extended_of(r));
        const InRankHeap heap;
        check_program_code(g->query(g->extra, status), "query function");
      }
      if (extended_of(r)->kind == Extended::Kind::unpacking) {
        const std::optional<vp::Status> s =
            vp::status_of(to_vp(static_cast<Unpacking*>(extended_of(r))->inner));
        if (s) fill(status, *s);
      }
      return;
    }
    const std::optional<vp::Status> s = vp::status_of(to_vp(r));
    if (s) fill(status, *s);
  });
}

int VPMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  return make_persistent("MPI_Send_init", buf, count, datatype, Direction::send, dest, tag, comm,
                         request);
}

int VPMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  return make_persistent("MPI_Ssend_init", buf, count, datatype, Direction::send, dest, tag, comm,
                         request, Mode::synchronous);
}

int VPMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  return make_persistent("MPI_Rsend_init", buf, count, datatype, Direction::send, dest, tag, comm,
                         request);
}

int VPMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  return make_persistent("MPI_Bsend_init", buf, count, datatype, Direction::send, dest, tag, comm,
                         request, Mode::buffered);
}

int VPMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  return make_persistent("MPI_Recv_init", buf, count, datatype, Direction::receive, source, tag,
                         comm, request);
}

int VPMPI_Start(MPI_Request* request) {
  constexpr const char* call = "MPI_Start";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, request, "request");
    start_persistent(call, label, *request);
  });
}

int VPMPI_Startall(int count, MPI_Request requests[]) {
  constexpr const char* call = "MPI_Startall";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_requests(call, count, requests);
    for (int i = 0; i < count; ++i) start_persistent(call, label, requests[i]);
  });
}

int VPMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Status* status) {
  constexpr const char* call = "MPI_Sendrecv";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    const Buffer s = buffer_of(call, sendbuf, sendcount, sendtype,
                               {.buffer = "sendbuf", .count = "sendcount", .datatype = "sendtype"});
    const Group& peers = c.peers();
    check_peer(peers.size(), call, "dest", dest, true, false);
    check_tag(call, "sendtag", sendtag, false);
    const Buffer r = buffer_of(call, recvbuf, recvcount, recvtype,
                               {.buffer = "recvbuf", .count = "recvcount", .datatype = "recvtype"});
    check_peer(peers.size(), call, "source", source, true, true);
    check_tag(call, "recvtag", recvtag, true);
    const int to = dest >= 0 ? peers.rank_of(dest) : dest;
    const int from = source >= 0 ? peers.rank_of(source) : source;
    std::vector<std::byte> out_scratch;
    std::vector<std::byte> in_scratch;
    const Wire out = outgoing(sendbuf, s, out_scratch);
    const Wire in = incoming(recvbuf, r, in_scratch);
    vp::Status got;
    if (to != MPI_PROC_NULL && from != MPI_PROC_NULL) {
      got = vp::sendrecv(out.data, out.count, out.type, to, sendtag, in.data, in.count, in.type,
                         from, recvtag, c.context);
    } else {
      if (to != MPI_PROC_NULL) vp::send(out.data, out.count, out.type, to, sendtag, c.context);
      if (from == MPI_PROC_NULL) {
        fill_empty(status, MPI_PROC_NULL);
        return;
      }
      got = vp::recv(in.data, in.count, in.type, from, recvtag, c.context);
    }
    scattered(in_scratch, got.bytes, recvbuf, r.count, r.type);
    fill(status, got);
  });
}

int VPMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  constexpr const char* call = "MPI_Sendrecv_replace";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    const Buffer b = buffer_of(call, buf, count, datatype);
    const Group& peers = c.peers();
    check_peer(peers.size(), call, "dest", dest, true, false);
    check_tag(call, "sendtag", sendtag, false);
    check_peer(peers.size(), call, "source", source, true, true);
    check_tag(call, "recvtag", recvtag, true);
    // Sends are copied when made, so sending first and receiving into buf needs no copy.
    if (dest != MPI_PROC_NULL) {
      send_in_mode(call, buf, {b, peers.rank_of(dest), c.context}, sendtag, Mode::standard, false);
    }
    if (source == MPI_PROC_NULL) {
      fill_empty(status, MPI_PROC_NULL);
      return;
    }
    const int from = source >= 0 ? peers.rank_of(source) : source;
    fill(status, receive(buf, {b, from, c.context}, recvtag));
  });
}

int VPMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  constexpr const char* call = "MPI_Probe";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    check_peer(c.peers().size(), call, "source", source, true, true);
    check_tag(call, "tag", tag, true);
    if (source == MPI_PROC_NULL) {
      fill_empty(status, MPI_PROC_NULL);
      return;
    }
    const int from = source >= 0 ? c.peers().rank_of(source) : source;
    fill(status, vp::probe(from, tag, c.context));
  });
}

int VPMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  constexpr const char* call = "MPI_Iprobe";
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    check_peer(c.peers().size(), call, "source", source, true, true);
    check_tag(call, "tag", tag, true);
    check_out(call, flag, "flag");
    if (source == MPI_PROC_NULL) {
      *flag = 1;
      fill_empty(status, MPI_PROC_NULL);
      return;
    }
    const int from = source >= 0 ? c.peers().rank_of(source) : source;
    const std::optional<vp::Status> s = vp::iprobe(from, tag, c.context);
    *flag = s.has_value();
    if (!s) nothing_yet();
    if (s) fill(status, *s);
  });
}

}  // extern "C"

namespace vela::mpi::detail {
namespace {

// A message taken out of matching by a matched probe, until MPI_Mrecv receives it: in the
// rank's heap (it moves with the rank), its handle its pointer.
struct Matched {
  MPI_Status status{};
  std::vector<std::byte> data;
};

MPI_Message message_of(Matched* m) {
  return reinterpret_cast<MPI_Message>(m);
}

// MPI_Mprobe and MPI_Improbe.
int matched_probe(const char* call, int source, int tag, MPI_Comm comm, int* flag,
                  MPI_Message* message, MPI_Status* status, bool block) {
  return guarded_on(call, comm, [&](const Label& label) {
    const Communicator& c = active(call, label, comm);
    check_peer(c.peers().size(), call, "source", source, true, true);
    check_tag(call, "tag", tag, true);
    check_out(call, message, "message");
    if (!block) check_out(call, flag, "flag");
    if (source == MPI_PROC_NULL) {
      if (flag != nullptr) *flag = 1;
      *message = MPI_MESSAGE_NO_PROC;
      fill_empty(status, MPI_PROC_NULL);
      return;
    }
    const int from = source >= 0 ? c.peers().rank_of(source) : source;
    const InRankHeap heap;
    auto m = std::make_unique<Matched>();
    std::optional<vp::Status> s;
    if (block) {
      s = vp::take_waiting(from, tag, c.context, m->data);
    } else {
      s = vp::take(from, tag, c.context, m->data);
    }
    if (flag != nullptr) *flag = s.has_value() ? 1 : 0;
    if (!s) {
      *message = MPI_MESSAGE_NULL;
      nothing_yet();
      return;
    }
    fill(&m->status, *s);
    if (status != MPI_STATUS_IGNORE) *status = m->status;
    *message = message_of(m.release());
  });
}

// Receives a matched message into `buf`; its status. Frees it.
MPI_Status receive_matched(const char* call, void* buf, int count, MPI_Datatype datatype,
                           MPI_Message* message) {
  check_out(call, message, "message");
  const Buffer b = buffer_of(call, buf, count, datatype);
  if (*message == MPI_MESSAGE_NO_PROC) {
    *message = MPI_MESSAGE_NULL;
    MPI_Status s;
    fill_empty(&s, MPI_PROC_NULL);
    return s;
  }
  if (*message == MPI_MESSAGE_NULL) fail(call, MPI_ERR_REQUEST, "message is MPI_MESSAGE_NULL");
  const std::unique_ptr<Matched> m(reinterpret_cast<Matched*>(*message));
  *message = MPI_MESSAGE_NULL;
  const std::size_t capacity = bytes_of(b.count, b.type);
  if (m->data.size() > capacity) {
    fail(call, MPI_ERR_TRUNCATE,
         "the message from rank " + std::to_string(m->status.MPI_SOURCE) + " has " +
             std::to_string(m->data.size()) + " bytes, the receive buffer holds " +
             std::to_string(capacity) + " (truncated)");
  }
  std::vector<std::byte> scratch;
  void* into = receiving(buf, b.count, b.type, scratch);
  if (!m->data.empty()) std::memcpy(into, m->data.data(), m->data.size());
  scattered(scratch, m->data.size(), buf, b.count, b.type);
  return m->status;
}

}  // namespace
}  // namespace vela::mpi::detail

extern "C" {

int VPMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  return matched_probe("MPI_Mprobe", source, tag, comm, nullptr, message, status, true);
}

int VPMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                  MPI_Status* status) {
  return matched_probe("MPI_Improbe", source, tag, comm, flag, message, status, false);
}

int VPMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                MPI_Status* status) {
  constexpr const char* call = "MPI_Mrecv";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    const MPI_Status s = receive_matched(call, buf, count, datatype, message);
    if (status != MPI_STATUS_IGNORE) *status = s;
  });
}

int VPMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                 MPI_Request* request) {
  constexpr const char* call = "MPI_Imrecv";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, request, "request");
    const MPI_Status s = receive_matched(call, buf, count, datatype, message);
    const InRankHeap heap;
    auto* done = new Completed;
    done->status = s;
    *request = handle_of(done);
  });
}

int VPMPI_Cancel(MPI_Request* request) {
  constexpr const char* call = "MPI_Cancel";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, request, "request");
    if (*request == MPI_REQUEST_NULL) fail(call, MPI_ERR_REQUEST, "request is MPI_REQUEST_NULL");
    MPI_Request r = *request;
    while (is_extended(r)) {
      Extended* e = extended_of(r);
      if (e->kind == Extended::Kind::persistent) {
        r = static_cast<Persistent*>(e)->active;
      } else if (e->kind == Extended::Kind::unpacking) {
        r = static_cast<Unpacking*>(e)->inner;
      } else if (e->kind == Extended::Kind::collective) {
        fail(call, MPI_ERR_REQUEST, "a nonblocking collective cannot be cancelled");
      } else if (e->kind == Extended::Kind::generalized) {
        auto* g = static_cast<Generalized*>(e);
        const InRankHeap heap;
        check_program_code(g->cancel(g->extra, g->completed ? 1 : 0), "cancel function");
        return;
      } else {
        return;  // complete already
      }
    }
    if (r == MPI_REQUEST_NULL || r == proc_null_request()) return;
    vp::Request v = to_vp(r);
    vp::cancel(v);  // a send, or a matched receive, completes as usual
  });
}

int VPMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  constexpr const char* call = "MPI_Get_count";
  return guarded(call, [&] {
    if (status == MPI_STATUS_IGNORE) fail(call, MPI_ERR_ARG, "status is MPI_STATUS_IGNORE (NULL)");
    const Datatype& type = datatype_of(call, datatype);
    check_out(call, count, "count");
    if (type.size == 0) {
      *count = status->vmpi_bytes == 0 ? 0 : MPI_UNDEFINED;
      return;
    }
    const std::size_t elements = status->vmpi_bytes / type.size;
    *count = status->vmpi_bytes % type.size != 0 || elements > INT_MAX ? MPI_UNDEFINED
                                                                       : static_cast<int>(elements);
  });
}

int VPMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  constexpr const char* call = "MPI_Status_set_cancelled";
  return guarded(call, [&] {
    check_out(call, status, "status");
    status->vmpi_cancelled = flag != 0 ? 1 : 0;
  });
}

int VPMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  constexpr const char* call = "MPI_Test_cancelled";
  return guarded(call, [&] {
    check_out(call, status, "status");
    check_out(call, flag, "flag");
    *flag = status->vmpi_cancelled;
  });
}

}  // extern "C"

// The MPI names, weak aliases of the profiling names (a tool's own MPI_x takes their place).
VMPI_PROFILED(Send);
VMPI_PROFILED(Ssend);
VMPI_PROFILED(Rsend);
VMPI_PROFILED(Bsend);
VMPI_PROFILED(Recv);
VMPI_PROFILED(Isend);
VMPI_PROFILED(Issend);
VMPI_PROFILED(Irsend);
VMPI_PROFILED(Ibsend);
VMPI_PROFILED(Irecv);
VMPI_PROFILED(Buffer_attach);
VMPI_PROFILED(Buffer_detach);
VMPI_PROFILED(Wait);
VMPI_PROFILED(Waitall);
VMPI_PROFILED(Waitany);
VMPI_PROFILED(Waitsome);
VMPI_PROFILED(Test);
VMPI_PROFILED(Testall);
VMPI_PROFILED(Testany);
VMPI_PROFILED(Testsome);
VMPI_PROFILED(Request_free);
VMPI_PROFILED(Grequest_start);
VMPI_PROFILED(Grequest_complete);
VMPI_PROFILED(Request_get_status);
VMPI_PROFILED(Send_init);
VMPI_PROFILED(Ssend_init);
VMPI_PROFILED(Rsend_init);
VMPI_PROFILED(Bsend_init);
VMPI_PROFILED(Recv_init);
VMPI_PROFILED(Start);
VMPI_PROFILED(Startall);
VMPI_PROFILED(Sendrecv);
VMPI_PROFILED(Sendrecv_replace);
VMPI_PROFILED(Probe);
VMPI_PROFILED(Iprobe);
VMPI_PROFILED(Mprobe);
VMPI_PROFILED(Improbe);
VMPI_PROFILED(Mrecv);
VMPI_PROFILED(Imrecv);
VMPI_PROFILED(Cancel);
VMPI_PROFILED(Get_count);
VMPI_PROFILED(Status_set_cancelled);
VMPI_PROFILED(Test_cancelled);
