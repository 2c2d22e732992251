// MPI's process topologies and neighbourhood collectives for Fortran (the standard's chapter 7;
// conventions in bindings.hpp). LOGICAL arrays (PERIODS, REMAIN_DIMS) are arrays of int, as C
// takes them. Weights arguments may be mpif.h's MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY, known by
// their address and passed on as C's. Ranks and coordinates count from 0, as in C.
#include "bindings.hpp"

using namespace vela::mpi::fortran;

namespace {

// A weights argument: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY become C's.
int* weights(F* w) {
  if (w == vmpi_fortran_unweighted_) return MPI_UNWEIGHTED;
  if (w == vmpi_fortran_weights_empty_) return MPI_WEIGHTS_EMPTY;
  return w;
}

// The calling rank's numbers of neighbours in `c` it receives from (`in`) and sends to (`out`),
// the lengths of MPI_NEIGHBOR_ALLTOALLW's type arrays; 0 where `c` has no topology (the call
// then reports it).
void degrees(MPI_Comm c, int* in, int* out) {
  *in = *out = 0;
  int kind = MPI_UNDEFINED;
  if (MPI_Topo_test(c, &kind) != MPI_SUCCESS) return;
  if (kind == MPI_CART) {
    int ndims = 0;
    MPI_Cartdim_get(c, &ndims);
    *in = *out = 2 * ndims;
  } else if (kind == MPI_GRAPH) {
    int rank = 0;
    MPI_Comm_rank(c, &rank);
    MPI_Graph_neighbors_count(c, rank, in);
    *out = *in;
  } else if (kind == MPI_DIST_GRAPH) {
    int weighted = 0;
    MPI_Dist_graph_neighbors_count(c, in, out, &weighted);
  }
}

}  // namespace

extern "C" {

// ---- Cartesian topologies ----

VELA_FORTRAN(dims_create, (F * nnodes, F* ndims, F* dims, F* ierr),
             { *ierr = MPI_Dims_create(*nnodes, *ndims, dims); })

VELA_FORTRAN(cart_create, (F * c, F* ndims, F* dims, F* periods, F* reorder, F* n, F* ierr), {
  HandleOut<MPI_Comm> made(n);
  *ierr = MPI_Cart_create(comm(c), *ndims, dims, periods, *reorder, made.get());
})

VELA_FORTRAN(cart_coords, (F * c, F* rank, F* maxdims, F* coords, F* ierr),
             { *ierr = MPI_Cart_coords(comm(c), *rank, *maxdims, coords); })

VELA_FORTRAN(cart_rank, (F * c, F* coords, F* rank, F* ierr),
             { *ierr = MPI_Cart_rank(comm(c), coords, rank); })

VELA_FORTRAN(cart_shift, (F * c, F* direction, F* disp, F* source, F* dest, F* ierr),
             { *ierr = MPI_Cart_shift(comm(c), *direction, *disp, source, dest); })

VELA_FORTRAN(cart_sub, (F * c, F* remain_dims, F* n, F* ierr), {
  HandleOut<MPI_Comm> made(n);
  *ierr = MPI_Cart_sub(comm(c), remain_dims, made.get());
})

VELA_FORTRAN(cart_get, (F * c, F* maxdims, F* dims, F* periods, F* coords, F* ierr),
             { *ierr = MPI_Cart_get(comm(c), *maxdims, dims, periods, coords); })

VELA_FORTRAN(cartdim_get, (F * c, F* ndims, F* ierr), { *ierr = MPI_Cartdim_get(comm(c), ndims); })

VELA_FORTRAN(cart_map, (F * c, F* ndims, F* dims, F* periods, F* newrank, F* ierr),
             { *ierr = MPI_Cart_map(comm(c), *ndims, dims, periods, newrank); })

VELA_FORTRAN(topo_test, (F * c, F* status, F* ierr), { *ierr = MPI_Topo_test(comm(c), status); })

// ---- graph topologies ----

VELA_FORTRAN(graph_create, (F * c, F* nnodes, F* index, F* edges, F* reorder, F* n, F* ierr), {
  HandleOut<MPI_Comm> made(n);
  *ierr = MPI_Graph_create(comm(c), *nnodes, index, edges, *reorder, made.get());
})

VELA_FORTRAN(graphdims_get, (F * c, F* nnodes, F* nedges, F* ierr),
             { *ierr = MPI_Graphdims_get(comm(c), nnodes, nedges); })

VELA_FORTRAN(graph_get, (F * c, F* maxindex, F* maxedges, F* index, F* edges, F* ierr),
             { *ierr = MPI_Graph_get(comm(c), *maxindex, *maxedges, index, edges); })

VELA_FORTRAN(graph_neighbors_count, (F * c, F* rank, F* nneighbors, F* ierr),
             { *ierr = MPI_Graph_neighbors_count(comm(c), *rank, nneighbors); })

VELA_FORTRAN(graph_neighbors, (F * c, F* rank, F* maxneighbors, F* neighbors, F* ierr),
             { *ierr = MPI_Graph_neighbors(comm(c), *rank, *maxneighbors, neighbors); })

VELA_FORTRAN(graph_map, (F * c, F* nnodes, F* index, F* edges, F* newrank, F* ierr),
             { *ierr = MPI_Graph_map(comm(c), *nnodes, index, edges, newrank); })

// ---- distributed graph topologies ----

VELA_FORTRAN(dist_graph_create_adjacent,
             (F * c, F* indegree, F* sources, F* sourceweights, F* outdegree, F* destinations,
              F* destweights, F* i, F* reorder, F* n, F* ierr),
             {
               HandleOut<MPI_Comm> made(n);
               *ierr = MPI_Dist_graph_create_adjacent(
                   comm(c), *indegree, sources, weights(sourceweights), *outdegree, destinations,
                   weights(destweights), info(i), *reorder, made.get());
             })

VELA_FORTRAN(dist_graph_create,
             (F * c, F* count, F* sources, F* degrees, F* destinations, F* w, F* i, F* reorder,
              F* n, F* ierr),
             {
               HandleOut<MPI_Comm> made(n);
               *ierr = MPI_Dist_graph_create(comm(c), *count, sources, degrees, destinations,
                                             weights(w), info(i), *reorder, made.get());
             })

VELA_FORTRAN(dist_graph_neighbors_count, (F * c, F* indegree, F* outdegree, F* weighted, F* ierr),
             { *ierr = MPI_Dist_graph_neighbors_count(comm(c), indegree, outdegree, weighted); })

VELA_FORTRAN(dist_graph_neighbors,
             (F * c, F* maxindegree, F* sources, F* sourceweights, F* maxoutdegree, F* destinations,
              F* destweights, F* ierr),
             {
               *ierr =
                   MPI_Dist_graph_neighbors(comm(c), *maxindegree, sources, weights(sourceweights),
                                            *maxoutdegree, destinations, weights(destweights));
             })

// ---- neighbourhood collectives ----

VELA_FORTRAN(neighbor_allgather,
             (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcount, F* recvtype,
              F* c, F* ierr),
             {
               *ierr = MPI_Neighbor_allgather(buffer(sendbuf), *sendcount, type(sendtype),
                                              buffer(recvbuf), *recvcount, type(recvtype), comm(c));
             })

VELA_FORTRAN(neighbor_allgatherv,
             (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcounts, F* displs,
              F* recvtype, F* c, F* ierr),
             {
               *ierr = MPI_Neighbor_allgatherv(buffer(sendbuf), *sendcount, type(sendtype),
                                               buffer(recvbuf), recvcounts, displs, type(recvtype),
                                               comm(c));
             })

VELA_FORTRAN(neighbor_alltoall,
             (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcount, F* recvtype,
              F* c, F* ierr),
             {
               *ierr = MPI_Neighbor_alltoall(buffer(sendbuf), *sendcount, type(sendtype),
                                             buffer(recvbuf), *recvcount, type(recvtype), comm(c));
             })

VELA_FORTRAN(neighbor_alltoallv,
             (void* sendbuf, F* sendcounts, F* sdispls, F* sendtype, void* recvbuf, F* recvcounts,
              F* rdispls, F* recvtype, F* c, F* ierr),
             {
               *ierr = MPI_Neighbor_alltoallv(buffer(sendbuf), sendcounts, sdispls, type(sendtype),
                                              buffer(recvbuf), recvcounts, rdispls, type(recvtype),
                                              comm(c));
             })

// The displacements are INTEGER(KIND=MPI_ADDRESS_KIND), as MPI_Aint.
VELA_FORTRAN(neighbor_alltoallw,
             (void* sendbuf, F* sendcounts, MPI_Aint* sdispls, F* sendtypes, void* recvbuf,
              F* recvcounts, MPI_Aint* rdispls, F* recvtypes, F* c, F* ierr),
             {
               int in = 0;
               int out = 0;
               degrees(comm(c), &in, &out);
               HandlesIn<MPI_Datatype> send_types(out, sendtypes);
               HandlesIn<MPI_Datatype> recv_types(in, recvtypes);
               *ierr = MPI_Neighbor_alltoallw(buffer(sendbuf), sendcounts, sdispls,
                                              send_types.get(), buffer(recvbuf), recvcounts,
                                              rdispls, recv_types.get(), comm(c));
             })

VELA_FORTRAN(ineighbor_allgather,
             (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcount, F* recvtype,
              F* c, F* r, F* ierr),
             {
               RequestOut request(r);
               *ierr = MPI_Ineighbor_allgather(buffer(sendbuf), *sendcount, type(sendtype),
                                               buffer(recvbuf), *recvcount, type(recvtype), comm(c),
                                               request.get());
             })

VELA_FORTRAN(ineighbor_allgatherv,
             (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcounts, F* displs,
              F* recvtype, F* c, F* r, F* ierr),
             {
               RequestOut request(r);
               *ierr = MPI_Ineighbor_allgatherv(buffer(sendbuf), *sendcount, type(sendtype),
                                                buffer(recvbuf), recvcounts, displs, type(recvtype),
                                                comm(c), request.get());
             })

VELA_FORTRAN(ineighbor_alltoall,
             (void* sendbuf, F* sendcount, F* sendtype, void* recvbuf, F* recvcount, F* recvtype,
              F* c, F* r, F* ierr),
             {
               RequestOut request(r);
               *ierr = MPI_Ineighbor_alltoall(buffer(sendbuf), *sendcount, type(sendtype),
                                              buffer(recvbuf), *recvcount, type(recvtype), comm(c),
                                              request.get());
             })

VELA_FORTRAN(ineighbor_alltoallv,
             (void* sendbuf, F* sendcounts, F* sdispls, F* sendtype, void* recvbuf, F* recvcounts,
              F* rdispls, F* recvtype, F* c, F* r, F* ierr),
             {
               RequestOut request(r);
               *ierr = MPI_Ineighbor_alltoallv(buffer(sendbuf), sendcounts, sdispls, type(sendtype),
                                               buffer(recvbuf), recvcounts, rdispls, type(recvtype),
                                               comm(c), request.get());
             })

// The C call reads the arrays before it returns: the converted types need not outlive it.
VELA_FORTRAN(ineighbor_alltoallw,
             (void* sendbuf, F* sendcounts, MPI_Aint* sdispls, F* sendtypes, void* recvbuf,
              F* recvcounts, MPI_Aint* rdispls, F* recvtypes, F* c, F* r, F* ierr),
             {
               int in = 0;
               int out = 0;
               degrees(comm(c), &in, &out);
               HandlesIn<MPI_Datatype> send_types(out, sendtypes);
               HandlesIn<MPI_Datatype> recv_types(in, recvtypes);
               RequestOut request(r);
               *ierr = MPI_Ineighbor_alltoallw(buffer(sendbuf), sendcounts, sdispls,
                                               send_types.get(), buffer(recvbuf), recvcounts,
                                               rdispls, recv_types.get(), comm(c), request.get());
             })

}  // extern "C"
