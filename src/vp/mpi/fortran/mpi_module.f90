! The `mpi` module (`use mpi`): mpif.h's constants and declarations in a module, for gfortran,
! and explicit interfaces for the calls that take a buffer of any type (a "choice" argument:
! gfortran's NO_ARG_CHECK attribute, as other MPI libraries' `use mpi` gives them), so that one
! program may pass buffers of different types to one call, as Fortran MPI programs do; their
! other arguments are checked. The other calls are external procedures, as with mpif.h.
module mpi
  implicit none
  include 'mpif.h'

  interface
    subroutine MPI_SEND(buf, count, datatype, dest, tag, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, dest, tag, comm, ierror
    end subroutine MPI_SEND
    subroutine MPI_SSEND(buf, count, datatype, dest, tag, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, dest, tag, comm, ierror
    end subroutine MPI_SSEND
    subroutine MPI_RSEND(buf, count, datatype, dest, tag, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, dest, tag, comm, ierror
    end subroutine MPI_RSEND
    subroutine MPI_BSEND(buf, count, datatype, dest, tag, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, dest, tag, comm, ierror
    end subroutine MPI_BSEND
    subroutine MPI_ISEND(buf, count, datatype, dest, tag, comm, request, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, dest, tag, comm, request, ierror
    end subroutine MPI_ISEND
    subroutine MPI_ISSEND(buf, count, datatype, dest, tag, comm, request, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, dest, tag, comm, request, ierror
    end subroutine MPI_ISSEND
    subroutine MPI_IRSEND(buf, count, datatype, dest, tag, comm, request, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, dest, tag, comm, request, ierror
    end subroutine MPI_IRSEND
    subroutine MPI_IBSEND(buf, count, datatype, dest, tag, comm, request, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, dest, tag, comm, request, ierror
    end subroutine MPI_IBSEND
    subroutine MPI_SEND_INIT(buf, count, datatype, dest, tag, comm, request, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, dest, tag, comm, request, ierror
    end subroutine MPI_SEND_INIT
    subroutine MPI_SSEND_INIT(buf, count, datatype, dest, tag, comm, request, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, dest, tag, comm, request, ierror
    end subroutine MPI_SSEND_INIT
    subroutine MPI_RSEND_INIT(buf, count, datatype, dest, tag, comm, request, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, dest, tag, comm, request, ierror
    end subroutine MPI_RSEND_INIT
    subroutine MPI_BSEND_INIT(buf, count, datatype, dest, tag, comm, request, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, dest, tag, comm, request, ierror
    end subroutine MPI_BSEND_INIT
    subroutine MPI_RECV(buf, count, datatype, source, tag, comm, status, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, source, tag, comm, ierror
      integer :: status(MPI_STATUS_SIZE)
    end subroutine MPI_RECV
    subroutine MPI_IRECV(buf, count, datatype, source, tag, comm, request, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, source, tag, comm, request, ierror
    end subroutine MPI_IRECV
    subroutine MPI_RECV_INIT(buf, count, datatype, source, tag, comm, request, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, source, tag, comm, request, ierror
    end subroutine MPI_RECV_INIT
    subroutine MPI_SENDRECV(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, &
        recvtype, source, recvtag, comm, status, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: sendcount, sendtype, dest, sendtag, recvcount, recvtype, source, recvtag, &
          comm, ierror
      integer :: status(MPI_STATUS_SIZE)
    end subroutine MPI_SENDRECV
    subroutine MPI_SENDRECV_REPLACE(buf, count, datatype, dest, sendtag, source, recvtag, &
        comm, status, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      type(*), dimension(*) :: buf
      integer :: count, datatype, dest, sendtag, source, recvtag, comm, ierror
      integer :: status(MPI_STATUS_SIZE)
    end subroutine MPI_SENDRECV_REPLACE
    subroutine MPI_BUFFER_ATTACH(buffer, size, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buffer
      type(*), dimension(*) :: buffer
      integer :: size, ierror
    end subroutine MPI_BUFFER_ATTACH
    subroutine MPI_BUFFER_DETACH(buffer_addr, size, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buffer_addr
      type(*), dimension(*) :: buffer_addr
      integer :: size, ierror
    end subroutine MPI_BUFFER_DETACH
    subroutine MPI_BCAST(buffer, count, datatype, root, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buffer
      type(*), dimension(*) :: buffer
      integer :: count, datatype, root, comm, ierror
    end subroutine MPI_BCAST
    subroutine MPI_IBCAST(buffer, count, datatype, root, comm, request, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buffer
      type(*), dimension(*) :: buffer
      integer :: count, datatype, root, comm, request, ierror
    end subroutine MPI_IBCAST
    subroutine MPI_REDUCE(sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: count, datatype, op, root, comm, ierror
    end subroutine MPI_REDUCE
    subroutine MPI_IREDUCE(sendbuf, recvbuf, count, datatype, op, root, comm, request, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: count, datatype, op, root, comm, request, ierror
    end subroutine MPI_IREDUCE
    subroutine MPI_ALLREDUCE(sendbuf, recvbuf, count, datatype, op, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: count, datatype, op, comm, ierror
    end subroutine MPI_ALLREDUCE
    subroutine MPI_IALLREDUCE(sendbuf, recvbuf, count, datatype, op, comm, request, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: count, datatype, op, comm, request, ierror
    end subroutine MPI_IALLREDUCE
    subroutine MPI_SCAN(sendbuf, recvbuf, count, datatype, op, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: count, datatype, op, comm, ierror
    end subroutine MPI_SCAN
    subroutine MPI_EXSCAN(sendbuf, recvbuf, count, datatype, op, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: count, datatype, op, comm, ierror
    end subroutine MPI_EXSCAN
    subroutine MPI_REDUCE_LOCAL(inbuf, inoutbuf, count, datatype, op, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: inbuf
      type(*), dimension(*) :: inbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: inoutbuf
      type(*), dimension(*) :: inoutbuf
      integer :: count, datatype, op, ierror
    end subroutine MPI_REDUCE_LOCAL
    subroutine MPI_REDUCE_SCATTER_BLOCK(sendbuf, recvbuf, recvcount, datatype, op, comm, &
        ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: recvcount, datatype, op, comm, ierror
    end subroutine MPI_REDUCE_SCATTER_BLOCK
    subroutine MPI_REDUCE_SCATTER(sendbuf, recvbuf, recvcounts, datatype, op, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: datatype, op, comm, ierror
      integer :: recvcounts(*)
    end subroutine MPI_REDUCE_SCATTER
    subroutine MPI_GATHER(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, &
        comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: sendcount, sendtype, recvcount, recvtype, root, comm, ierror
    end subroutine MPI_GATHER
    subroutine MPI_SCATTER(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, &
        comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: sendcount, sendtype, recvcount, recvtype, root, comm, ierror
    end subroutine MPI_SCATTER
    subroutine MPI_ALLGATHER(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
        ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: sendcount, sendtype, recvcount, recvtype, comm, ierror
    end subroutine MPI_ALLGATHER
    subroutine MPI_ALLTOALL(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &
        ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: sendcount, sendtype, recvcount, recvtype, comm, ierror
    end subroutine MPI_ALLTOALL
    subroutine MPI_GATHERV(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, &
        recvtype, root, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: sendcount, sendtype, recvtype, root, comm, ierror
      integer :: recvcounts(*)
      integer :: displs(*)
    end subroutine MPI_GATHERV
    subroutine MPI_SCATTERV(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, &
        recvtype, root, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: sendtype, recvcount, recvtype, root, comm, ierror
      integer :: sendcounts(*)
      integer :: displs(*)
    end subroutine MPI_SCATTERV
    subroutine MPI_ALLGATHERV(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, &
        recvtype, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: sendcount, sendtype, recvtype, comm, ierror
      integer :: recvcounts(*)
      integer :: displs(*)
    end subroutine MPI_ALLGATHERV
    subroutine MPI_ALLTOALLV(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, &
        rdispls, recvtype, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: sendbuf
      type(*), dimension(*) :: sendbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: recvbuf
      type(*), dimension(*) :: recvbuf
      integer :: sendtype, recvtype, comm, ierror
      integer :: sendcounts(*)
      integer :: sdispls(*)
      integer :: recvcounts(*)
      integer :: rdispls(*)
    end subroutine MPI_ALLTOALLV
    subroutine MPI_PACK(inbuf, incount, datatype, outbuf, outsize, position, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: inbuf
      type(*), dimension(*) :: inbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: outbuf
      type(*), dimension(*) :: outbuf
      integer :: incount, datatype, outsize, position, comm, ierror
    end subroutine MPI_PACK
    subroutine MPI_UNPACK(inbuf, insize, position, outbuf, outcount, datatype, comm, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: inbuf
      type(*), dimension(*) :: inbuf
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: outbuf
      type(*), dimension(*) :: outbuf
      integer :: insize, position, outcount, datatype, comm, ierror
    end subroutine MPI_UNPACK
    subroutine MPI_GET_ADDRESS(location, address, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: location
      type(*), dimension(*) :: location
      integer :: ierror
      integer(kind=MPI_ADDRESS_KIND) :: address
    end subroutine MPI_GET_ADDRESS
    subroutine MPI_ADDRESS(location, address, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: location
      type(*), dimension(*) :: location
      integer :: address, ierror
    end subroutine MPI_ADDRESS
    subroutine MPI_FREE_MEM(base, ierror)
      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND
      !GCC$ ATTRIBUTES NO_ARG_CHECK :: base
      type(*), dimension(*) :: base
      integer :: ierror
    end subroutine MPI_FREE_MEM
  end interface
end module mpi
