// MPI's point-to-point communication: blocking and nonblocking sends and receives, their
// requests and statuses, probes, and the count a status holds. MPI_PROC_NULL as the peer makes
// a call that completes at once and moves nothing.
#include "internal.hpp"

#include <climits>
#include <optional>

namespace vela::mpi::detail {
namespace {

// Stands for a request on MPI_PROC_NULL: it completes at once with MPI_PROC_NULL's status.
char proc_null_request_tag;
MPI_Request proc_null_request() {
  return reinterpret_cast<MPI_Request>(&proc_null_request_tag);
}

void fill(MPI_Status* status, const vp::Status& s) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = s.source;
  status->MPI_TAG = s.tag;
  status->MPI_ERROR = MPI_SUCCESS;
  status->vmpi_type = static_cast<int>(s.type);
  status->vmpi_bytes = s.bytes;
}

// What a receive from MPI_PROC_NULL finds.
vp::Status proc_null_status() {
  vp::Status s;
  s.source = MPI_PROC_NULL;
  s.tag = MPI_ANY_TAG;
  return s;
}

vp::Request to_vp(MPI_Request request) {
  return vp::Request(reinterpret_cast<vp::detail::RequestState*>(request));
}

MPI_Request to_mpi(const vp::Request& request) {
  return reinterpret_cast<MPI_Request>(request.state());
}

// A send's destination (or MPI_PROC_NULL) and tag.
void check_destination(const Label& label, const char* call, int dest, int tag,
                       const char* tag_name = "tag") {
  check_peer(label, call, "dest", dest, true, false);
  check_tag(call, tag_name, tag, false);
}

// A receive's source (or MPI_PROC_NULL, MPI_ANY_SOURCE) and tag (or MPI_ANY_TAG).
void check_source(const Label& label, const char* call, int source, int tag,
                  const char* tag_name = "tag") {
  check_peer(label, call, "source", source, true, true);
  check_tag(call, tag_name, tag, true);
}

enum class Direction { send, receive };

// The arguments of a call that sends or receives one message, checked: the communicator, the
// buffer, then the peer (a send's destination, a receive's source) and the tag.
[[gnu::always_inline]] inline Buffer message_of(const Label& label, const char* call, MPI_Comm comm,
                                                const void* buf, int count, MPI_Datatype datatype,
                                                Direction direction, int peer, int tag) {
  active(call, label, comm);
  const Buffer b = buffer_of(call, buf, count, datatype);
  if (direction == Direction::send) {
    check_destination(label, call, peer, tag);
  } else {
    check_source(label, call, peer, tag);
  }
  return b;
}

// MPI_Isend and MPI_Irecv: the request `start` makes for the checked buffer (MPI_PROC_NULL's
// where the peer is MPI_PROC_NULL).
template <class Start>
int start_request(const char* call, const void* buf, int count, MPI_Datatype datatype,
                  Direction direction, int peer, int tag, MPI_Comm comm, MPI_Request* request,
                  Start start) {
  return guarded(call, [&](const Label& label) {
    const Buffer b = message_of(label, call, comm, buf, count, datatype, direction, peer, tag);
    check_out(call, request, "request");
    *request = peer == MPI_PROC_NULL ? proc_null_request() : to_mpi(start(b));
  });
}

// A receive from `source` into `buf`: MPI_PROC_NULL's status, or what vp received.
vp::Status receive(void* buf, const Buffer& b, int source, int tag) {
  return source == MPI_PROC_NULL ? proc_null_status()
                                 : vp::recv(buf, b.count, b.type.type, source, tag);
}

// A request of MPI_PROC_NULL is complete: MPI_REQUEST_NULL now, with MPI_PROC_NULL's status.
bool completed_proc_null(MPI_Request* request, MPI_Status* status) {
  if (*request != proc_null_request()) return false;
  *request = MPI_REQUEST_NULL;
  fill(status, proc_null_status());
  return true;
}

}  // namespace
}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  constexpr const char* call = "MPI_Send";
  return guarded(call, [&](const Label& label) {
    const Buffer b =
        message_of(label, call, comm, buf, count, datatype, Direction::send, dest, tag);
    if (dest != MPI_PROC_NULL) vp::send(buf, b.count, b.type.type, dest, tag);
  });
}

int VMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status* status) {
  constexpr const char* call = "MPI_Recv";
  return guarded(call, [&](const Label& label) {
    const Buffer b =
        message_of(label, call, comm, buf, count, datatype, Direction::receive, source, tag);
    fill(status, receive(buf, b, source, tag));
  });
}

int VMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return start_request(
      "MPI_Isend", buf, count, datatype, Direction::send, dest, tag, comm, request,
      [&](const Buffer& b) { return vp::isend(buf, b.count, b.type.type, dest, tag); });
}

int VMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return start_request(
      "MPI_Irecv", buf, count, datatype, Direction::receive, source, tag, comm, request,
      [&](const Buffer& b) { return vp::irecv(buf, b.count, b.type.type, source, tag); });
}

int VMPI_Wait(MPI_Request* request, MPI_Status* status) {
  constexpr const char* call = "MPI_Wait";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, request, "request");
    if (completed_proc_null(request, status)) return;
    vp::Request r = to_vp(*request);
    *request = MPI_REQUEST_NULL;  // vp frees the request even when the wait fails
    fill(status, vp::wait(r));
  });
}

int VMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  constexpr const char* call = "MPI_Waitall";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    const std::size_t n = count_of(call, count);
    if (n > 0) check_out(call, requests, "requests");
    std::vector<vp::Request> pending(n);
    std::vector<vp::Status> found(statuses == MPI_STATUSES_IGNORE ? 0 : n);
    std::vector<std::size_t> proc_null;
    for (std::size_t i = 0; i < n; ++i) {
      if (requests[i] == proc_null_request()) {
        proc_null.push_back(i);
      } else {
        pending[i] = to_vp(requests[i]);
      }
      requests[i] = MPI_REQUEST_NULL;  // vp frees them all, also when one fails
    }
    vp::waitall(pending, found);
    for (const std::size_t i : proc_null) {
      if (!found.empty()) found[i] = proc_null_status();
    }
    for (std::size_t i = 0; i < found.size(); ++i) fill(&statuses[i], found[i]);
  });
}

int VMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  constexpr const char* call = "MPI_Waitany";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    const std::size_t n = count_of(call, count);
    if (n > 0) check_out(call, requests, "requests");
    check_out(call, index, "index");
    std::vector<vp::Request> pending(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (completed_proc_null(&requests[i], status)) {
        *index = static_cast<int>(i);
        return;
      }
      pending[i] = to_vp(requests[i]);
    }
    vp::Status s;
    const int done = vp::waitany(pending, &s);
    if (done < 0) {
      *index = MPI_UNDEFINED;
    } else {
      *index = done;
      requests[done] = MPI_REQUEST_NULL;
    }
    fill(status, s);
  });
}

int VMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  constexpr const char* call = "MPI_Test";
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, request, "request");
    check_out(call, flag, "flag");
    if (completed_proc_null(request, status)) {
      *flag = 1;
      return;
    }
    vp::Request r = to_vp(*request);
    vp::Status s;
    *flag = 0;
    if (vp::test(r, &s)) {
      *request = MPI_REQUEST_NULL;
      *flag = 1;
      fill(status, s);
    }
  });
}

int VMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status* status) {
  constexpr const char* call = "MPI_Sendrecv";
  return guarded(call, [&](const Label& label) {
    active(call, label, comm);
    const Buffer s = buffer_of(call, sendbuf, sendcount, sendtype,
                               {.buffer = "sendbuf", .count = "sendcount", .datatype = "sendtype"});
    check_destination(label, call, dest, sendtag, "sendtag");
    const Buffer r = buffer_of(call, recvbuf, recvcount, recvtype,
                               {.buffer = "recvbuf", .count = "recvcount", .datatype = "recvtype"});
    check_source(label, call, source, recvtag, "recvtag");
    if (dest != MPI_PROC_NULL && source != MPI_PROC_NULL) {
      fill(status, vp::sendrecv(sendbuf, s.count, s.type.type, dest, sendtag, recvbuf, r.count,
                                r.type.type, source, recvtag));
      return;
    }
    if (dest != MPI_PROC_NULL) vp::send(sendbuf, s.count, s.type.type, dest, sendtag);
    fill(status, receive(recvbuf, r, source, recvtag));
  });
}

int VMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  constexpr const char* call = "MPI_Sendrecv_replace";
  return guarded(call, [&](const Label& label) {
    active(call, label, comm);
    const Buffer b = buffer_of(call, buf, count, datatype);
    check_destination(label, call, dest, sendtag, "sendtag");
    check_source(label, call, source, recvtag, "recvtag");
    // Sends are copied when made, so sending first and receiving into buf needs no copy.
    if (dest != MPI_PROC_NULL) vp::send(buf, b.count, b.type.type, dest, sendtag);
    fill(status, receive(buf, b, source, recvtag));
  });
}

int VMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  constexpr const char* call = "MPI_Probe";
  return guarded(call, [&](const Label& label) {
    active(call, label, comm);
    check_source(label, call, source, tag);
    fill(status, source == MPI_PROC_NULL ? proc_null_status() : vp::probe(source, tag));
  });
}

int VMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  constexpr const char* call = "MPI_Iprobe";
  return guarded(call, [&](const Label& label) {
    active(call, label, comm);
    check_source(label, call, source, tag);
    check_out(call, flag, "flag");
    if (source == MPI_PROC_NULL) {
      *flag = 1;
      fill(status, proc_null_status());
      return;
    }
    const std::optional<vp::Status> s = vp::iprobe(source, tag);
    *flag = s.has_value();
    if (s) fill(status, *s);
  });
}

int VMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  constexpr const char* call = "MPI_Get_count";
  return guarded(call, [&] {
    if (status == MPI_STATUS_IGNORE) fail(call, "status is MPI_STATUS_IGNORE (NULL)");
    const Datatype& type = datatype_of(call, datatype);
    check_out(call, count, "count");
    const std::size_t element = vp::size_of(type.type);
    const std::size_t elements = status->vmpi_bytes / element;
    *count = status->vmpi_bytes % element != 0 || elements > INT_MAX ? MPI_UNDEFINED
                                                                     : static_cast<int>(elements);
  });
}

}  // extern "C"
