/* vela/mpi.h: a subset of MPI's C API that runs unchanged MPI programs as Vela ranks (the AMPI
 * model): every MPI process becomes a rank, a user-level thread over the runtime's PEs, and
 * MPI_Migrate() is the point where ranks move between PEs by their measured load.
 *
 * - The program's main becomes the ranks' body (`#define main vela_mpi_main` below); the real
 *   main() comes from the vela::mpi_main library (or the vela-mpicc / vela-mpicxx wrappers) and
 *   takes the runtime's options (--vp N ranks, --pes P, --lb ...). Define VELA_MPI_NO_MAIN
 *   before including this header in a program that keeps its own main and calls
 *   vela::mpi::run (vela/mpi/run.hpp).
 * - Every name is mapped onto Vela's own symbols (MPI_Send is VMPI_Send, MPI_Comm is
 *   VMPI_Comm), so a process may also link a real MPI library (Open MPI's libmpi) without a
 *   clash; this header and the system's mpi.h cannot meet in one translation unit.
 * - One communicator, MPI_COMM_WORLD. Errors are fatal (MPI_ERRORS_ARE_FATAL): a bad argument
 *   ends the run with a message naming the call, so calls return MPI_SUCCESS.
 * - Common calls outside the subset are declared unavailable, so using them fails to compile
 *   with a message naming the call; other MPI names are simply not declared. In C, compile
 *   with -Werror=implicit-function-declaration (the wrappers and the CMake target do) so that
 *   an undeclared MPI call cannot silently bind to another MPI library.
 * - Globals of the program are shared by the ranks of a process unless privatized (see the
 *   user guide). The end of main has no implicit `return 0` any more: return a value. */
#ifndef VELA_MPI_H
#define VELA_MPI_H

#if defined(OMPI_MPI_H) || defined(MPI_INCLUDED) || defined(MPICH_VERSION)
#error "vela/mpi.h and the system's mpi.h cannot be included in one translation unit"
#endif

#include <stddef.h>
#include <stdint.h>

#define VELA_MPI 1
#define MPI_VERSION 3
#define MPI_SUBVERSION 1

/* Handles are pointers to incomplete types (as in Open MPI), so mixing them up is a type error;
 * their values are small integers the implementation decodes. */
#ifdef __cplusplus
#define VMPI_HANDLE(T, v) (reinterpret_cast<T>(static_cast<uintptr_t>(v)))
#define VMPI_NULL(T) (static_cast<T>(nullptr))
#else
#define VMPI_HANDLE(T, v) ((T)(uintptr_t)(v))
#define VMPI_NULL(T) ((T)0)
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VMPI_Comm_handle* VMPI_Comm;
typedef struct VMPI_Datatype_handle* VMPI_Datatype;
typedef struct VMPI_Op_handle* VMPI_Op;
/* A vela::vp::Request's state pointer; null is MPI_REQUEST_NULL. */
typedef struct VMPI_Request_handle* VMPI_Request;
typedef struct VMPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int vmpi_type;     /* private: the message's vela::vp::Type */
  size_t vmpi_bytes; /* private: the message's length */
} VMPI_Status;

#define MPI_Comm VMPI_Comm
#define MPI_Datatype VMPI_Datatype
#define MPI_Op VMPI_Op
#define MPI_Request VMPI_Request
#define MPI_Status VMPI_Status

/* Handle values, shared with the implementation (src/vp/mpi). */
enum {
  VMPI_COMM_WORLD_VALUE = 0x5e10,
  VMPI_DATATYPE_BASE = 0x5e20, /* + the datatype's index */
  VMPI_OP_BASE = 0x5e80        /* + the operator's index */
};

#define MPI_COMM_WORLD VMPI_HANDLE(VMPI_Comm, VMPI_COMM_WORLD_VALUE)
#define MPI_COMM_NULL VMPI_NULL(VMPI_Comm)

#define VMPI_DATATYPE(index) VMPI_HANDLE(VMPI_Datatype, VMPI_DATATYPE_BASE + (index))
#define MPI_DATATYPE_NULL VMPI_NULL(VMPI_Datatype)
#define MPI_CHAR VMPI_DATATYPE(0)
#define MPI_SIGNED_CHAR VMPI_DATATYPE(1)
#define MPI_UNSIGNED_CHAR VMPI_DATATYPE(2)
#define MPI_BYTE VMPI_DATATYPE(3)
#define MPI_SHORT VMPI_DATATYPE(4)
#define MPI_UNSIGNED_SHORT VMPI_DATATYPE(5)
#define MPI_INT VMPI_DATATYPE(6)
#define MPI_UNSIGNED VMPI_DATATYPE(7)
#define MPI_LONG VMPI_DATATYPE(8)
#define MPI_UNSIGNED_LONG VMPI_DATATYPE(9)
#define MPI_LONG_LONG VMPI_DATATYPE(10)
#define MPI_LONG_LONG_INT MPI_LONG_LONG
#define MPI_UNSIGNED_LONG_LONG VMPI_DATATYPE(11)
#define MPI_FLOAT VMPI_DATATYPE(12)
#define MPI_DOUBLE VMPI_DATATYPE(13)
#define MPI_LONG_DOUBLE VMPI_DATATYPE(14)
#define MPI_DOUBLE_INT VMPI_DATATYPE(15) /* struct { double value; int index; } */
#define MPI_2INT VMPI_DATATYPE(16)       /* struct { int value; int index; } */
#define MPI_INT8_T VMPI_DATATYPE(17)
#define MPI_UINT8_T VMPI_DATATYPE(18)
#define MPI_INT16_T VMPI_DATATYPE(19)
#define MPI_UINT16_T VMPI_DATATYPE(20)
#define MPI_INT32_T VMPI_DATATYPE(21)
#define MPI_UINT32_T VMPI_DATATYPE(22)
#define MPI_INT64_T VMPI_DATATYPE(23)
#define MPI_UINT64_T VMPI_DATATYPE(24)
#define MPI_C_BOOL VMPI_DATATYPE(25)
#define MPI_WCHAR VMPI_DATATYPE(26)
#define VMPI_DATATYPE_COUNT 27

#define VMPI_OP(index) VMPI_HANDLE(VMPI_Op, VMPI_OP_BASE + (index))
#define MPI_OP_NULL VMPI_NULL(VMPI_Op)
#define MPI_MAX VMPI_OP(0)
#define MPI_MIN VMPI_OP(1)
#define MPI_SUM VMPI_OP(2)
#define MPI_PROD VMPI_OP(3)
#define MPI_LAND VMPI_OP(4)
#define MPI_LOR VMPI_OP(5)
#define MPI_BAND VMPI_OP(6)
#define MPI_BOR VMPI_OP(7)
#define MPI_MAXLOC VMPI_OP(8)
#define MPI_MINLOC VMPI_OP(9)
#define VMPI_OP_COUNT 10

#define MPI_REQUEST_NULL VMPI_NULL(VMPI_Request)
#define MPI_STATUS_IGNORE VMPI_NULL(VMPI_Status*)
#define MPI_STATUSES_IGNORE VMPI_NULL(VMPI_Status*)
/* As send buffer of MPI_Reduce (root), MPI_Allreduce, MPI_Gather (root), MPI_Allgather and
 * MPI_Alltoall, or receive buffer of MPI_Scatter (root): the data is already in place. */
#define MPI_IN_PLACE VMPI_HANDLE(void*, 1)

#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2) /* sends to it and receives from it complete at once, empty */
#define MPI_UNDEFINED (-32766)
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Error codes; calls return MPI_SUCCESS since errors end the run (MPI_Error_string knows the
 * others for programs that print them). */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_OP 9
#define MPI_ERR_ARG 10
#define MPI_ERR_UNKNOWN 11
#define MPI_ERR_TRUNCATE 12
#define MPI_ERR_OTHER 13
#define MPI_ERR_INTERN 14
#define MPI_ERR_LASTCODE 15

#define MPI_Init VMPI_Init
#define MPI_Init_thread VMPI_Init_thread
#define MPI_Initialized VMPI_Initialized
#define MPI_Finalize VMPI_Finalize
#define MPI_Finalized VMPI_Finalized
#define MPI_Query_thread VMPI_Query_thread
#define MPI_Comm_rank VMPI_Comm_rank
#define MPI_Comm_size VMPI_Comm_size
#define MPI_Send VMPI_Send
#define MPI_Recv VMPI_Recv
#define MPI_Isend VMPI_Isend
#define MPI_Irecv VMPI_Irecv
#define MPI_Wait VMPI_Wait
#define MPI_Waitall VMPI_Waitall
#define MPI_Waitany VMPI_Waitany
#define MPI_Test VMPI_Test
#define MPI_Sendrecv VMPI_Sendrecv
#define MPI_Sendrecv_replace VMPI_Sendrecv_replace
#define MPI_Probe VMPI_Probe
#define MPI_Iprobe VMPI_Iprobe
#define MPI_Get_count VMPI_Get_count
#define MPI_Barrier VMPI_Barrier
#define MPI_Bcast VMPI_Bcast
#define MPI_Reduce VMPI_Reduce
#define MPI_Allreduce VMPI_Allreduce
#define MPI_Gather VMPI_Gather
#define MPI_Allgather VMPI_Allgather
#define MPI_Scatter VMPI_Scatter
#define MPI_Alltoall VMPI_Alltoall
#define MPI_Wtime VMPI_Wtime
#define MPI_Wtick VMPI_Wtick
#define MPI_Abort VMPI_Abort
#define MPI_Get_processor_name VMPI_Get_processor_name
#define MPI_Get_version VMPI_Get_version
#define MPI_Error_string VMPI_Error_string
#define MPI_Type_size VMPI_Type_size
#define MPI_Pcontrol VMPI_Pcontrol
#define MPI_Migrate VMPI_Migrate
#define MPI_Yield VMPI_Yield

int VMPI_Init(int* argc, char*** argv);
/* Ranks are fibers: only the thread running a rank may call MPI (at most MPI_THREAD_FUNNELED). */
int VMPI_Init_thread(int* argc, char*** argv, int required, int* provided);
int VMPI_Initialized(int* flag);
/* Collective (a barrier over all ranks). */
int VMPI_Finalize(void);
int VMPI_Finalized(int* flag);
int VMPI_Query_thread(int* provided);
int VMPI_Comm_rank(VMPI_Comm comm, int* rank);
int VMPI_Comm_size(VMPI_Comm comm, int* size);

/* Sends are eager (the data is copied at once), so MPI_Send never waits for the receiver. */
int VMPI_Send(const void* buf, int count, VMPI_Datatype datatype, int dest, int tag,
              VMPI_Comm comm);
int VMPI_Recv(void* buf, int count, VMPI_Datatype datatype, int source, int tag, VMPI_Comm comm,
              VMPI_Status* status);
int VMPI_Isend(const void* buf, int count, VMPI_Datatype datatype, int dest, int tag,
               VMPI_Comm comm, VMPI_Request* request);
int VMPI_Irecv(void* buf, int count, VMPI_Datatype datatype, int source, int tag, VMPI_Comm comm,
               VMPI_Request* request);
int VMPI_Wait(VMPI_Request* request, VMPI_Status* status);
int VMPI_Waitall(int count, VMPI_Request requests[], VMPI_Status statuses[]);
int VMPI_Waitany(int count, VMPI_Request requests[], int* index, VMPI_Status* status);
int VMPI_Test(VMPI_Request* request, int* flag, VMPI_Status* status);
int VMPI_Sendrecv(const void* sendbuf, int sendcount, VMPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int recvcount, VMPI_Datatype recvtype, int source, int recvtag,
                  VMPI_Comm comm, VMPI_Status* status);
int VMPI_Sendrecv_replace(void* buf, int count, VMPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, VMPI_Comm comm, VMPI_Status* status);
int VMPI_Probe(int source, int tag, VMPI_Comm comm, VMPI_Status* status);
int VMPI_Iprobe(int source, int tag, VMPI_Comm comm, int* flag, VMPI_Status* status);
/* MPI_UNDEFINED when the message is not a whole number of `datatype`. */
int VMPI_Get_count(const VMPI_Status* status, VMPI_Datatype datatype, int* count);

int VMPI_Barrier(VMPI_Comm comm);
int VMPI_Bcast(void* buffer, int count, VMPI_Datatype datatype, int root, VMPI_Comm comm);
/* Reductions combine in rank order along a tree fixed by the rank count: the same bits for any
 * number of PEs and any placement. */
int VMPI_Reduce(const void* sendbuf, void* recvbuf, int count, VMPI_Datatype datatype, VMPI_Op op,
                int root, VMPI_Comm comm);
int VMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, VMPI_Datatype datatype,
                   VMPI_Op op, VMPI_Comm comm);
int VMPI_Gather(const void* sendbuf, int sendcount, VMPI_Datatype sendtype, void* recvbuf,
                int recvcount, VMPI_Datatype recvtype, int root, VMPI_Comm comm);
int VMPI_Allgather(const void* sendbuf, int sendcount, VMPI_Datatype sendtype, void* recvbuf,
                   int recvcount, VMPI_Datatype recvtype, VMPI_Comm comm);
int VMPI_Scatter(const void* sendbuf, int sendcount, VMPI_Datatype sendtype, void* recvbuf,
                 int recvcount, VMPI_Datatype recvtype, int root, VMPI_Comm comm);
int VMPI_Alltoall(const void* sendbuf, int sendcount, VMPI_Datatype sendtype, void* recvbuf,
                  int recvcount, VMPI_Datatype recvtype, VMPI_Comm comm);

double VMPI_Wtime(void);
double VMPI_Wtick(void);
/* Ends the whole run (every rank); the process exits with `errorcode`. */
int VMPI_Abort(VMPI_Comm comm, int errorcode);
int VMPI_Get_processor_name(char* name, int* resultlen);
int VMPI_Get_version(int* version, int* subversion);
int VMPI_Error_string(int errorcode, char* string, int* resultlen);
int VMPI_Type_size(VMPI_Datatype datatype, int* size);
/* Profiling control: accepted and ignored. */
int VMPI_Pcontrol(const int level, ...);

/* AMPI's balancing point, collective over all ranks: the runtime's strategy (--lb) runs on the
 * ranks' measured loads and moved ranks resume on their new PE (vela::vp::migrate()). Without
 * --lb it is a barrier. */
int VMPI_Migrate(void);
/* Lets the other ranks of this PE run, then continues (vela::vp::yield()). */
int VMPI_Yield(void);

/* Calls outside the subset: using one is a compile error that names it. */
/* (In C23, () takes no arguments: a call is then an error twice over.) */
#ifdef __cplusplus
#define VMPI_ANY_ARGUMENTS ...
#else
#define VMPI_ANY_ARGUMENTS
#endif
#if defined(__has_attribute)
#if __has_attribute(unavailable)
#define VMPI_UNAVAILABLE(message) __attribute__((unavailable(message)))
#elif __has_attribute(error)
#define VMPI_UNAVAILABLE(message) __attribute__((error(message)))
#endif
#endif
#ifndef VMPI_UNAVAILABLE
/* Without either attribute the call is still an undefined reference at link time. */
#define VMPI_UNAVAILABLE(message)
#endif
#define VMPI_UNSUPPORTED(name)        \
  int VMPI_##name(VMPI_ANY_ARGUMENTS) \
      VMPI_UNAVAILABLE("MPI_" #name " is not supported by Vela's MPI subset (docs/user-guide.md)")

#define MPI_Comm_split VMPI_Comm_split
#define MPI_Comm_split_type VMPI_Comm_split_type
#define MPI_Comm_dup VMPI_Comm_dup
#define MPI_Comm_create VMPI_Comm_create
#define MPI_Comm_free VMPI_Comm_free
#define MPI_Comm_group VMPI_Comm_group
#define MPI_Comm_set_errhandler VMPI_Comm_set_errhandler
#define MPI_Errhandler_set VMPI_Errhandler_set
#define MPI_Group_incl VMPI_Group_incl
#define MPI_Type_contiguous VMPI_Type_contiguous
#define MPI_Type_vector VMPI_Type_vector
#define MPI_Type_indexed VMPI_Type_indexed
#define MPI_Type_create_struct VMPI_Type_create_struct
#define MPI_Type_commit VMPI_Type_commit
#define MPI_Type_free VMPI_Type_free
#define MPI_Op_create VMPI_Op_create
#define MPI_Scan VMPI_Scan
#define MPI_Exscan VMPI_Exscan
#define MPI_Reduce_scatter VMPI_Reduce_scatter
#define MPI_Reduce_scatter_block VMPI_Reduce_scatter_block
#define MPI_Gatherv VMPI_Gatherv
#define MPI_Scatterv VMPI_Scatterv
#define MPI_Allgatherv VMPI_Allgatherv
#define MPI_Alltoallv VMPI_Alltoallv
#define MPI_Ssend VMPI_Ssend
#define MPI_Bsend VMPI_Bsend
#define MPI_Rsend VMPI_Rsend
#define MPI_Issend VMPI_Issend
#define MPI_Ibsend VMPI_Ibsend
#define MPI_Irsend VMPI_Irsend
#define MPI_Buffer_attach VMPI_Buffer_attach
#define MPI_Send_init VMPI_Send_init
#define MPI_Recv_init VMPI_Recv_init
#define MPI_Start VMPI_Start
#define MPI_Startall VMPI_Startall
#define MPI_Testall VMPI_Testall
#define MPI_Testany VMPI_Testany
#define MPI_Testsome VMPI_Testsome
#define MPI_Waitsome VMPI_Waitsome
#define MPI_Request_free VMPI_Request_free
#define MPI_Cancel VMPI_Cancel
#define MPI_Cart_create VMPI_Cart_create
#define MPI_Cart_coords VMPI_Cart_coords
#define MPI_Cart_rank VMPI_Cart_rank
#define MPI_Cart_shift VMPI_Cart_shift
#define MPI_Dims_create VMPI_Dims_create
#define MPI_Pack VMPI_Pack
#define MPI_Unpack VMPI_Unpack
#define MPI_Ibarrier VMPI_Ibarrier
#define MPI_Ibcast VMPI_Ibcast
#define MPI_Ireduce VMPI_Ireduce
#define MPI_Iallreduce VMPI_Iallreduce
#define MPI_Win_create VMPI_Win_create
#define MPI_Put VMPI_Put
#define MPI_Get VMPI_Get
#define MPI_File_open VMPI_File_open
#define MPI_Comm_spawn VMPI_Comm_spawn
#define MPI_Get_elements VMPI_Get_elements
#define MPI_Alloc_mem VMPI_Alloc_mem
#define MPI_Free_mem VMPI_Free_mem

/* Declarations without a prototype are what C before C23 has for "any arguments". */
#if !defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#endif
VMPI_UNSUPPORTED(Comm_split);
VMPI_UNSUPPORTED(Comm_split_type);
VMPI_UNSUPPORTED(Comm_dup);
VMPI_UNSUPPORTED(Comm_create);
VMPI_UNSUPPORTED(Comm_free);
VMPI_UNSUPPORTED(Comm_group);
VMPI_UNSUPPORTED(Comm_set_errhandler);
VMPI_UNSUPPORTED(Errhandler_set);
VMPI_UNSUPPORTED(Group_incl);
VMPI_UNSUPPORTED(Type_contiguous);
VMPI_UNSUPPORTED(Type_vector);
VMPI_UNSUPPORTED(Type_indexed);
VMPI_UNSUPPORTED(Type_create_struct);
VMPI_UNSUPPORTED(Type_commit);
VMPI_UNSUPPORTED(Type_free);
VMPI_UNSUPPORTED(Op_create);
VMPI_UNSUPPORTED(Scan);
VMPI_UNSUPPORTED(Exscan);
VMPI_UNSUPPORTED(Reduce_scatter);
VMPI_UNSUPPORTED(Reduce_scatter_block);
VMPI_UNSUPPORTED(Gatherv);
VMPI_UNSUPPORTED(Scatterv);
VMPI_UNSUPPORTED(Allgatherv);
VMPI_UNSUPPORTED(Alltoallv);
VMPI_UNSUPPORTED(Ssend);
VMPI_UNSUPPORTED(Bsend);
VMPI_UNSUPPORTED(Rsend);
VMPI_UNSUPPORTED(Issend);
VMPI_UNSUPPORTED(Ibsend);
VMPI_UNSUPPORTED(Irsend);
VMPI_UNSUPPORTED(Buffer_attach);
VMPI_UNSUPPORTED(Send_init);
VMPI_UNSUPPORTED(Recv_init);
VMPI_UNSUPPORTED(Start);
VMPI_UNSUPPORTED(Startall);
VMPI_UNSUPPORTED(Testall);
VMPI_UNSUPPORTED(Testany);
VMPI_UNSUPPORTED(Testsome);
VMPI_UNSUPPORTED(Waitsome);
VMPI_UNSUPPORTED(Request_free);
VMPI_UNSUPPORTED(Cancel);
VMPI_UNSUPPORTED(Cart_create);
VMPI_UNSUPPORTED(Cart_coords);
VMPI_UNSUPPORTED(Cart_rank);
VMPI_UNSUPPORTED(Cart_shift);
VMPI_UNSUPPORTED(Dims_create);
VMPI_UNSUPPORTED(Pack);
VMPI_UNSUPPORTED(Unpack);
VMPI_UNSUPPORTED(Ibarrier);
VMPI_UNSUPPORTED(Ibcast);
VMPI_UNSUPPORTED(Ireduce);
VMPI_UNSUPPORTED(Iallreduce);
VMPI_UNSUPPORTED(Win_create);
VMPI_UNSUPPORTED(Put);
VMPI_UNSUPPORTED(Get);
VMPI_UNSUPPORTED(File_open);
VMPI_UNSUPPORTED(Comm_spawn);
VMPI_UNSUPPORTED(Get_elements);
VMPI_UNSUPPORTED(Alloc_mem);
VMPI_UNSUPPORTED(Free_mem);
#if !defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

/* The program's main is the ranks' body. In C one symbol covers both signatures; in C++ each
 * signature has its own, and the library calls whichever the program defines. */
#ifndef VELA_MPI_NO_MAIN
#ifdef __cplusplus
int vela_mpi_main();
int vela_mpi_main(int argc, char** argv);
int vela_mpi_main(int argc, const char** argv);
int vela_mpi_main(int argc, char** argv, char** envp);
#endif
#define main vela_mpi_main
#endif

#endif /* VELA_MPI_H */
