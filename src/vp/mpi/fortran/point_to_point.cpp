// MPI's point-to-point calls for Fortran (the standard's chapter 3; conventions in
// bindings.hpp). Indices that the C calls give from 0 (MPI_Waitany's, MPI_Waitsome's) are
// given from 1, as Fortran programs expect; MPI_UNDEFINED stays.
#include "bindings.hpp"

using namespace vela::mpi::fortran;

namespace {

// A C index as Fortran's.
int from_one(int index) {
  return index == MPI_UNDEFINED ? index : index + 1;
}

}  // namespace

extern "C" {

#define VELA_FORTRAN_SEND(lower, call)                                             \
  VELA_FORTRAN(lower, (void* buf, F* count, F* t, F* dest, F* tag, F* c, F* ierr), \
               { *ierr = call(buffer(buf), *count, type(t), *dest, *tag, comm(c)); })
#define VELA_FORTRAN_ISEND(lower, call)                                                    \
  VELA_FORTRAN(lower, (void* buf, F* count, F* t, F* dest, F* tag, F* c, F* r, F* ierr), { \
    RequestOut request(r);                                                                 \
    *ierr = call(buffer(buf), *count, type(t), *dest, *tag, comm(c), request.get());       \
  })

VELA_FORTRAN_SEND(send, MPI_Send)
VELA_FORTRAN_SEND(ssend, MPI_Ssend)
VELA_FORTRAN_SEND(rsend, MPI_Rsend)
VELA_FORTRAN_SEND(bsend, MPI_Bsend)
VELA_FORTRAN_ISEND(isend, MPI_Isend)
VELA_FORTRAN_ISEND(issend, MPI_Issend)
VELA_FORTRAN_ISEND(irsend, MPI_Irsend)
VELA_FORTRAN_ISEND(ibsend, MPI_Ibsend)
VELA_FORTRAN_ISEND(send_init, MPI_Send_init)
VELA_FORTRAN_ISEND(ssend_init, MPI_Ssend_init)
VELA_FORTRAN_ISEND(rsend_init, MPI_Rsend_init)
VELA_FORTRAN_ISEND(bsend_init, MPI_Bsend_init)
VELA_FORTRAN_ISEND(irecv, MPI_Irecv)
VELA_FORTRAN_ISEND(recv_init, MPI_Recv_init)

VELA_FORTRAN(recv, (void* buf, F* count, F* t, F* source, F* tag, F* c, F* s, F* ierr), {
  StatusOut status(s);
  *ierr = MPI_Recv(buffer(buf), *count, type(t), *source, *tag, comm(c), status.get());
})

VELA_FORTRAN(sendrecv,
             (void* sendbuf, F* sendcount, F* sendtype, F* dest, F* sendtag, void* recvbuf,
              F* recvcount, F* recvtype, F* source, F* recvtag, F* c, F* s, F* ierr),
             {
               StatusOut status(s);
               *ierr = MPI_Sendrecv(buffer(sendbuf), *sendcount, type(sendtype), *dest, *sendtag,
                                    buffer(recvbuf), *recvcount, type(recvtype), *source, *recvtag,
                                    comm(c), status.get());
             })

VELA_FORTRAN(sendrecv_replace,
             (void* buf, F* count, F* t, F* dest, F* sendtag, F* source, F* recvtag, F* c, F* s,
              F* ierr),
             {
               StatusOut status(s);
               *ierr = MPI_Sendrecv_replace(buffer(buf), *count, type(t), *dest, *sendtag, *source,
                                            *recvtag, comm(c), status.get());
             })

VELA_FORTRAN(buffer_attach, (void* buf, F* size, F* ierr),
             { *ierr = MPI_Buffer_attach(buf, *size); })

// Fortran gets no address back (it cannot use one): the size alone.
VELA_FORTRAN(buffer_detach, (void* buf, F* size, F* ierr), {
  void* address = nullptr;
  static_cast<void>(buf);
  *ierr = MPI_Buffer_detach(&address, size);
})

VELA_FORTRAN(wait, (F * r, F* s, F* ierr), {
  RequestInOut request(r);
  StatusOut status(s);
  *ierr = MPI_Wait(request.get(), status.get());
})

VELA_FORTRAN(test, (F * r, F* flag, F* s, F* ierr), {
  RequestInOut request(r);
  StatusOut status(s);
  *ierr = MPI_Test(request.get(), flag, status.get());
})

VELA_FORTRAN(waitall, (F * count, F* r, F* s, F* ierr), {
  Requests requests(*count, r);
  Statuses statuses(*count, s);
  *ierr = MPI_Waitall(*count, requests.get(), statuses.get());
})

VELA_FORTRAN(testall, (F * count, F* r, F* flag, F* s, F* ierr), {
  Requests requests(*count, r);
  Statuses statuses(*count, s);
  *ierr = MPI_Testall(*count, requests.get(), flag, statuses.get());
})

VELA_FORTRAN(waitany, (F * count, F* r, F* index, F* s, F* ierr), {
  Requests requests(*count, r);
  StatusOut status(s);
  *ierr = MPI_Waitany(*count, requests.get(), index, status.get());
  *index = from_one(*index);
})

VELA_FORTRAN(testany, (F * count, F* r, F* index, F* flag, F* s, F* ierr), {
  Requests requests(*count, r);
  StatusOut status(s);
  *ierr = MPI_Testany(*count, requests.get(), index, flag, status.get());
  *index = from_one(*index);
})

VELA_FORTRAN(waitsome, (F * incount, F* r, F* outcount, F* indices, F* s, F* ierr), {
  Requests requests(*incount, r);
  Statuses statuses(*incount, s);
  *ierr = MPI_Waitsome(*incount, requests.get(), outcount, indices, statuses.get());
  for (int i = 0; i < *outcount; ++i) indices[i] = from_one(indices[i]);
})

VELA_FORTRAN(testsome, (F * incount, F* r, F* outcount, F* indices, F* s, F* ierr), {
  Requests requests(*incount, r);
  Statuses statuses(*incount, s);
  *ierr = MPI_Testsome(*incount, requests.get(), outcount, indices, statuses.get());
  for (int i = 0; i < *outcount; ++i) indices[i] = from_one(indices[i]);
})

VELA_FORTRAN(request_free, (F * r, F* ierr), {
  RequestInOut request(r);
  *ierr = MPI_Request_free(request.get());
})

VELA_FORTRAN(request_get_status, (F * r, F* flag, F* s, F* ierr), {
  StatusOut status(s);
  *ierr = MPI_Request_get_status(handle<MPI_Request>(r), flag, status.get());
})

VELA_FORTRAN(start, (F * r, F* ierr), {
  RequestInOut request(r);
  *ierr = MPI_Start(request.get());
})

VELA_FORTRAN(startall, (F * count, F* r, F* ierr), {
  Requests requests(*count, r);
  *ierr = MPI_Startall(*count, requests.get());
})

VELA_FORTRAN(cancel, (F * r, F* ierr), {
  MPI_Request request = handle<MPI_Request>(r);
  *ierr = MPI_Cancel(&request);
})

VELA_FORTRAN(test_cancelled, (F * s, F* flag, F* ierr), {
  const MPI_Status status = status_in(s);
  *ierr = MPI_Test_cancelled(&status, flag);
})

VELA_FORTRAN(probe, (F * source, F* tag, F* c, F* s, F* ierr), {
  StatusOut status(s);
  *ierr = MPI_Probe(*source, *tag, comm(c), status.get());
})

VELA_FORTRAN(iprobe, (F * source, F* tag, F* c, F* flag, F* s, F* ierr), {
  StatusOut status(s);
  *ierr = MPI_Iprobe(*source, *tag, comm(c), flag, status.get());
})

// Matched probes: a message, a pointer in C, is numbered by the rank as a request is.
VELA_FORTRAN(mprobe, (F * source, F* tag, F* c, F* m, F* s, F* ierr), {
  HandleOut<MPI_Message> message(m);
  StatusOut status(s);
  *ierr = MPI_Mprobe(*source, *tag, comm(c), message.get(), status.get());
})

VELA_FORTRAN(improbe, (F * source, F* tag, F* c, F* flag, F* m, F* s, F* ierr), {
  HandleOut<MPI_Message> message(m);
  StatusOut status(s);
  *ierr = MPI_Improbe(*source, *tag, comm(c), flag, message.get(), status.get());
})

VELA_FORTRAN(mrecv, (void* buf, F* count, F* t, F* m, F* s, F* ierr), {
  HandleInOut<MPI_Message> message(m);
  StatusOut status(s);
  *ierr = MPI_Mrecv(buffer(buf), *count, type(t), message.get(), status.get());
})

VELA_FORTRAN(imrecv, (void* buf, F* count, F* t, F* m, F* r, F* ierr), {
  HandleInOut<MPI_Message> message(m);
  RequestOut request(r);
  *ierr = MPI_Imrecv(buffer(buf), *count, type(t), message.get(), request.get());
})

VELA_FORTRAN(get_count, (F * s, F* t, F* count, F* ierr), {
  const MPI_Status status = status_in(s);
  *ierr = MPI_Get_count(&status, type(t), count);
})

VELA_FORTRAN(get_elements, (F * s, F* t, F* count, F* ierr), {
  const MPI_Status status = status_in(s);
  *ierr = MPI_Get_elements(&status, type(t), count);
})

VELA_FORTRAN(get_elements_x, (F * s, F* t, MPI_Count* count, F* ierr), {
  const MPI_Status status = status_in(s);
  *ierr = MPI_Get_elements_x(&status, type(t), count);
})

}  // extern "C"
