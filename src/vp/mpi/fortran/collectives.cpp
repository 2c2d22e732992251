// MPI's collectives and operators for Fortran (the standard's chapter 5; conventions in
// bindings.hpp). A Fortran operator function (`subroutine f(invec, inoutvec, len, type)`) is
// called as a C one: its datatype argument is the address of the C handle, whose first four
// bytes are the Fortran number on a little-endian machine, which is the only kind Vela builds
// for (static_assert below).
#include "bindings.hpp"

using namespace vela::mpi::fortran;

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "Fortran operator functions read the C datatype handle's first four bytes");

extern "C" {

VELA_FORTRAN(barrier, (F * c, F* ierr), { *ierr = MPI_Barrier(comm(c)); })

VELA_FORTRAN(bcast, (void* buf, F* count, F* t, F* root, F* c, F* ierr),
             { *ierr = MPI_Bcast(buffer(buf), *count, type(t), *root, comm(c)); })

VELA_FORTRAN(reduce, (void* sendbuf, void* recvbuf, F* count, F* t, F* o, F* root, F* c, F* ierr), {
  *ierr = MPI_Reduce(buffer(sendbuf), buffer(recvbuf), *count, type(t), op(o), *root, comm(c));
})

#define VELA_FORTRAN_REDUCTION(lower, call)                                                  \
  VELA_FORTRAN(lower, (void* sendbuf, void* recvbuf, F* count, F* t, F* o, F* c, F* ierr), { \
    *ierr = call(buffer(sendbuf), buffer(recvbuf), *count, type(t), op(o), comm(c));         \
  })
VELA_FORTRAN_REDUCTION(allreduce, MPI_Allreduce)
VELA_FORTRAN_REDUCTION(scan, MPI_Scan)
VELA_FORTRAN_REDUCTION(exscan, MPI_Exscan)
VELA_FORTRAN_REDUCTION(reduce_scatter_block, MPI_Reduce_scatter_block)

VELA_FORTRAN(reduce_local, (void* inbuf, void* inoutbuf, F* count, F* t, F* o, F* ierr),
             { *ierr = MPI_Reduce_local(inbuf, inoutbuf, *count, type(t), op(o)); })

VELA_FORTRAN(reduce_scatter,
             (void* sendbuf, void* recvbuf, F* recvcounts, F* t, F* o, F* c, F* ierr), {
               *ierr = MPI_Reduce_scatter(buffer(sendbuf), buffer(recvbuf), recvcounts, type(t),
                                          op(o), comm(c));
             })

#define VELA_FORTRAN_ROOTED(lower, call)                                                    \
  VELA_FORTRAN(lower,                                                                       \
               (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcount,      \
                F* recvtype, F* root, F* c, F* ierr),                                       \
               {                                                                            \
                 *ierr = call(buffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), \
                              *recvcount, type(recvtype), *root, comm(c));                  \
               })
VELA_FORTRAN_ROOTED(gather, MPI_Gather)
VELA_FORTRAN_ROOTED(scatter, MPI_Scatter)

#define VELA_FORTRAN_ALL(lower, call)                                                       \
  VELA_FORTRAN(lower,                                                                       \
               (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcount,      \
                F* recvtype, F* c, F* ierr),                                                \
               {                                                                            \
                 *ierr = call(buffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), \
                              *recvcount, type(recvtype), comm(c));                         \
               })
VELA_FORTRAN_ALL(allgather, MPI_Allgather)
VELA_FORTRAN_ALL(alltoall, MPI_Alltoall)

VELA_FORTRAN(gatherv,
             (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcounts, F* displs,
              F* recvtype, F* root, F* c, F* ierr),
             {
               *ierr = MPI_Gatherv(buffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf),
                                   recvcounts, displs, type(recvtype), *root, comm(c));
             })

VELA_FORTRAN(scatterv,
             (void* sendbuf, F* sendcounts, F* displs, F* sendtype, void* recvbuf, F* recvcount,
              F* recvtype, F* root, F* c, F* ierr),
             {
               *ierr = MPI_Scatterv(buffer(sendbuf), sendcounts, displs, type(sendtype),
                                    buffer(recvbuf), *recvcount, type(recvtype), *root, comm(c));
             })

VELA_FORTRAN(allgatherv,
             (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcounts, F* displs,
              F* recvtype, F* c, F* ierr),
             {
               *ierr = MPI_Allgatherv(buffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf),
                                      recvcounts, displs, type(recvtype), comm(c));
             })

VELA_FORTRAN(alltoallv,
             (void* sendbuf, F* sendcounts, F* sdispls, F* sendtype, void* recvbuf, F* recvcounts,
              F* rdispls, F* recvtype, F* c, F* ierr),
             {
               *ierr = MPI_Alltoallv(buffer(sendbuf), sendcounts, sdispls, type(sendtype),
                                     buffer(recvbuf), recvcounts, rdispls, type(recvtype), comm(c));
             })

VELA_FORTRAN(alltoallw,
             (void* sendbuf, F* sendcounts, F* sdispls, F* sendtypes, void* recvbuf, F* recvcounts,
              F* rdispls, F* recvtypes, F* c, F* ierr),
             {
               int n = 0;
               MPI_Comm_size(comm(c), &n);
               HandlesIn<MPI_Datatype> send_types(n, sendtypes);
               HandlesIn<MPI_Datatype> recv_types(n, recvtypes);
               *ierr =
                   MPI_Alltoallw(buffer(sendbuf), sendcounts, sdispls, send_types.get(),
                                 buffer(recvbuf), recvcounts, rdispls, recv_types.get(), comm(c));
             })

VELA_FORTRAN(ibarrier, (F * c, F* r, F* ierr), {
  RequestOut request(r);
  *ierr = MPI_Ibarrier(comm(c), request.get());
})

VELA_FORTRAN(ibcast, (void* buf, F* count, F* t, F* root, F* c, F* r, F* ierr), {
  RequestOut request(r);
  *ierr = MPI_Ibcast(buffer(buf), *count, type(t), *root, comm(c), request.get());
})

VELA_FORTRAN(ireduce,
             (void* sendbuf, void* recvbuf, F* count, F* t, F* o, F* root, F* c, F* r, F* ierr), {
               RequestOut request(r);
               *ierr = MPI_Ireduce(buffer(sendbuf), buffer(recvbuf), *count, type(t), op(o), *root,
                                   comm(c), request.get());
             })

#define VELA_FORTRAN_IREDUCTION(lower, call)                                                       \
  VELA_FORTRAN(lower, (void* sendbuf, void* recvbuf, F* count, F* t, F* o, F* c, F* r, F* ierr), { \
    RequestOut request(r);                                                                         \
    *ierr =                                                                                        \
        call(buffer(sendbuf), buffer(recvbuf), *count, type(t), op(o), comm(c), request.get());    \
  })
VELA_FORTRAN_IREDUCTION(iallreduce, MPI_Iallreduce)
VELA_FORTRAN_IREDUCTION(iscan, MPI_Iscan)
VELA_FORTRAN_IREDUCTION(iexscan, MPI_Iexscan)

#define VELA_FORTRAN_IROOTED(lower, call)                                                   \
  VELA_FORTRAN(lower,                                                                       \
               (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcount,      \
                F* recvtype, F* root, F* c, F* r, F* ierr),                                 \
               {                                                                            \
                 RequestOut request(r);                                                     \
                 *ierr = call(buffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), \
                              *recvcount, type(recvtype), *root, comm(c), request.get());   \
               })
VELA_FORTRAN_IROOTED(igather, MPI_Igather)
VELA_FORTRAN_IROOTED(iscatter, MPI_Iscatter)

#define VELA_FORTRAN_IALL(lower, call)                                                      \
  VELA_FORTRAN(lower,                                                                       \
               (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcount,      \
                F* recvtype, F* c, F* r, F* ierr),                                          \
               {                                                                            \
                 RequestOut request(r);                                                     \
                 *ierr = call(buffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf), \
                              *recvcount, type(recvtype), comm(c), request.get());          \
               })
VELA_FORTRAN_IALL(iallgather, MPI_Iallgather)
VELA_FORTRAN_IALL(ialltoall, MPI_Ialltoall)

VELA_FORTRAN(igatherv,
             (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcounts, F* displs,
              F* recvtype, F* root, F* c, F* r, F* ierr),
             {
               RequestOut request(r);
               *ierr =
                   MPI_Igatherv(buffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf),
                                recvcounts, displs, type(recvtype), *root, comm(c), request.get());
             })

VELA_FORTRAN(iscatterv,
             (void* sendbuf, F* sendcounts, F* displs, F* sendtype, void* recvbuf, F* recvcount,
              F* recvtype, F* root, F* c, F* r, F* ierr),
             {
               RequestOut request(r);
               *ierr = MPI_Iscatterv(buffer(sendbuf), sendcounts, displs, type(sendtype),
                                     buffer(recvbuf), *recvcount, type(recvtype), *root, comm(c),
                                     request.get());
             })

VELA_FORTRAN(iallgatherv,
             (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcounts, F* displs,
              F* recvtype, F* c, F* r, F* ierr),
             {
               RequestOut request(r);
               *ierr = MPI_Iallgatherv(buffer(sendbuf), *sendcount, type(sendtype), buffer(recvbuf),
                                       recvcounts, displs, type(recvtype), comm(c), request.get());
             })

VELA_FORTRAN(ialltoallv,
             (void* sendbuf, F* sendcounts, F* sdispls, F* sendtype, void* recvbuf, F* recvcounts,
              F* rdispls, F* recvtype, F* c, F* r, F* ierr),
             {
               RequestOut request(r);
               *ierr = MPI_Ialltoallv(buffer(sendbuf), sendcounts, sdispls, type(sendtype),
                                      buffer(recvbuf), recvcounts, rdispls, type(recvtype), comm(c),
                                      request.get());
             })

// The C call reads the type arrays before it returns (they are copied into the request).
VELA_FORTRAN(ialltoallw,
             (void* sendbuf, F* sendcounts, F* sdispls, F* sendtypes, void* recvbuf, F* recvcounts,
              F* rdispls, F* recvtypes, F* c, F* r, F* ierr),
             {
               int n = 0;
               MPI_Comm_size(comm(c), &n);
               HandlesIn<MPI_Datatype> send_types(n, sendtypes);
               HandlesIn<MPI_Datatype> recv_types(n, recvtypes);
               RequestOut request(r);
               *ierr = MPI_Ialltoallw(buffer(sendbuf), sendcounts, sdispls, send_types.get(),
                                      buffer(recvbuf), recvcounts, rdispls, recv_types.get(),
                                      comm(c), request.get());
             })

VELA_FORTRAN(ireduce_scatter_block,
             (void* sendbuf, void* recvbuf, F* recvcount, F* t, F* o, F* c, F* r, F* ierr), {
               RequestOut request(r);
               *ierr = MPI_Ireduce_scatter_block(buffer(sendbuf), buffer(recvbuf), *recvcount,
                                                 type(t), op(o), comm(c), request.get());
             })

VELA_FORTRAN(ireduce_scatter,
             (void* sendbuf, void* recvbuf, F* recvcounts, F* t, F* o, F* c, F* r, F* ierr), {
               RequestOut request(r);
               *ierr = MPI_Ireduce_scatter(buffer(sendbuf), buffer(recvbuf), recvcounts, type(t),
                                           op(o), comm(c), request.get());
             })

VELA_FORTRAN(op_create, (MPI_User_function * function, F* commute, F* o, F* ierr), {
  HandleOut<MPI_Op> created(o);
  *ierr = MPI_Op_create(function, *commute, created.get());
})

VELA_FORTRAN(op_free, (F * o, F* ierr), {
  HandleInOut<MPI_Op> freed(o);
  *ierr = MPI_Op_free(freed.get());
})

VELA_FORTRAN(op_commutative, (F * o, F* commute, F* ierr),
             { *ierr = MPI_Op_commutative(op(o), commute); })

}  // extern "C"
