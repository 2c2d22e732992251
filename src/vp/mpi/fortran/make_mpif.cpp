// make_mpif: writes mpif.h, MPI's Fortran header, and mpi_module.f90, the `mpi` module, from
// vela/mpi.h itself, so that every constant a Fortran program names has the value the C library
// uses (a handle's Fortran number is its C value: the conversions are the identity,
// vela/mpi.h). Run at build time; programs include the header (`include 'mpif.h'`) or use the
// module, which includes it.
//
// The header is written in the subset of Fortran that both source forms accept: statements
// from column 7, no line longer than 72 characters, comments with `!` in column 1, no
// continuation lines. The module adds explicit interfaces for the calls that take a buffer of
// any type (a "choice" argument: gfortran's NO_ARG_CHECK attribute, as other MPI libraries'
// `use mpi` gives them), so that one program may pass buffers of different types to one call,
// as Fortran MPI programs do; their other arguments are checked. Cost: a few hundred lines,
// once per build.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#define VELA_MPI_NO_MAIN 1  // this tool is a program of its own
#include "vela/mpi.h"

namespace {

// A C constant's Fortran number: a handle's value, or the integer itself.
template <typename T>
long long number(T value) {
  if constexpr (std::is_pointer_v<T>) {
    return static_cast<long long>(reinterpret_cast<std::uintptr_t>(value));
  } else {
    return static_cast<long long>(value);
  }
}

struct Writer {
  std::ostream& out;
  void comment(const std::string& text) const { out << "! " << text << '\n'; }
  void integer(const std::string& name, long long value) const {
    out << "      integer " << name << '\n';
    out << "      parameter (" << name << "=" << value << ")\n";
  }
  void line(const std::string& text) const { out << "      " << text << '\n'; }
};

// The integer constants and handles of vela/mpi.h a Fortran program may name.
struct Constant {
  const char* name;
  long long value;
};
// clang-format off
#define VELA_MPIF(name) Constant{#name, number(name)}
const Constant constants[] = {
    VELA_MPIF(MPI_VERSION), VELA_MPIF(MPI_SUBVERSION), VELA_MPIF(MPI_COMM_WORLD),
    VELA_MPIF(MPI_COMM_SELF), VELA_MPIF(MPI_COMM_NULL), VELA_MPIF(MPI_GROUP_EMPTY),
    VELA_MPIF(MPI_GROUP_NULL), VELA_MPIF(MPI_ERRORS_ARE_FATAL), VELA_MPIF(MPI_ERRORS_RETURN),
    VELA_MPIF(MPI_ERRHANDLER_NULL), VELA_MPIF(MPI_INFO_ENV), VELA_MPIF(MPI_INFO_LB_SYNC),
    VELA_MPIF(MPI_INFO_LB_ASYNC), VELA_MPIF(MPI_INFO_NULL), VELA_MPIF(MPI_WIN_NULL),
    VELA_MPIF(MPI_FILE_NULL), VELA_MPIF(MPI_MESSAGE_NULL), VELA_MPIF(MPI_MESSAGE_NO_PROC),
    VELA_MPIF(MPI_REQUEST_NULL), VELA_MPIF(MPI_DATATYPE_NULL), VELA_MPIF(MPI_OP_NULL),
    VELA_MPIF(MPI_CHAR), VELA_MPIF(MPI_SIGNED_CHAR), VELA_MPIF(MPI_UNSIGNED_CHAR),
    VELA_MPIF(MPI_BYTE), VELA_MPIF(MPI_SHORT), VELA_MPIF(MPI_UNSIGNED_SHORT), VELA_MPIF(MPI_INT),
    VELA_MPIF(MPI_UNSIGNED), VELA_MPIF(MPI_LONG), VELA_MPIF(MPI_UNSIGNED_LONG),
    VELA_MPIF(MPI_LONG_LONG), VELA_MPIF(MPI_UNSIGNED_LONG_LONG), VELA_MPIF(MPI_FLOAT),
    VELA_MPIF(MPI_DOUBLE), VELA_MPIF(MPI_LONG_DOUBLE), VELA_MPIF(MPI_WCHAR), VELA_MPIF(MPI_C_BOOL),
    VELA_MPIF(MPI_INT8_T), VELA_MPIF(MPI_UINT8_T), VELA_MPIF(MPI_INT16_T), VELA_MPIF(MPI_UINT16_T),
    VELA_MPIF(MPI_INT32_T), VELA_MPIF(MPI_UINT32_T), VELA_MPIF(MPI_INT64_T),
    VELA_MPIF(MPI_UINT64_T), VELA_MPIF(MPI_C_COMPLEX), VELA_MPIF(MPI_C_DOUBLE_COMPLEX),
    VELA_MPIF(MPI_C_LONG_DOUBLE_COMPLEX), VELA_MPIF(MPI_AINT), VELA_MPIF(MPI_OFFSET),
    VELA_MPIF(MPI_COUNT), VELA_MPIF(MPI_PACKED), VELA_MPIF(MPI_CXX_BOOL),
    VELA_MPIF(MPI_CXX_FLOAT_COMPLEX), VELA_MPIF(MPI_CXX_DOUBLE_COMPLEX),
    VELA_MPIF(MPI_CXX_LONG_DOUBLE_COMPLEX), VELA_MPIF(MPI_FLOAT_INT), VELA_MPIF(MPI_DOUBLE_INT),
    VELA_MPIF(MPI_LONG_INT), VELA_MPIF(MPI_2INT), VELA_MPIF(MPI_SHORT_INT),
    VELA_MPIF(MPI_LONG_DOUBLE_INT), VELA_MPIF(MPI_INTEGER), VELA_MPIF(MPI_REAL),
    VELA_MPIF(MPI_DOUBLE_PRECISION), VELA_MPIF(MPI_COMPLEX), VELA_MPIF(MPI_DOUBLE_COMPLEX),
    VELA_MPIF(MPI_LOGICAL), VELA_MPIF(MPI_CHARACTER), VELA_MPIF(MPI_2REAL),
    VELA_MPIF(MPI_2DOUBLE_PRECISION), VELA_MPIF(MPI_2INTEGER), VELA_MPIF(MPI_INTEGER1),
    VELA_MPIF(MPI_INTEGER2), VELA_MPIF(MPI_INTEGER4), VELA_MPIF(MPI_INTEGER8), VELA_MPIF(MPI_REAL4),
    VELA_MPIF(MPI_REAL8), VELA_MPIF(MPI_REAL16), VELA_MPIF(MPI_COMPLEX8), VELA_MPIF(MPI_COMPLEX16),
    VELA_MPIF(MPI_COMPLEX32), VELA_MPIF(MPI_LB), VELA_MPIF(MPI_UB), VELA_MPIF(MPI_LONG_LONG_INT),
    VELA_MPIF(MPI_C_FLOAT_COMPLEX), VELA_MPIF(MPI_MAX), VELA_MPIF(MPI_MIN), VELA_MPIF(MPI_SUM),
    VELA_MPIF(MPI_PROD), VELA_MPIF(MPI_LAND), VELA_MPIF(MPI_BAND), VELA_MPIF(MPI_LOR),
    VELA_MPIF(MPI_BOR), VELA_MPIF(MPI_LXOR), VELA_MPIF(MPI_BXOR), VELA_MPIF(MPI_MAXLOC),
    VELA_MPIF(MPI_MINLOC), VELA_MPIF(MPI_REPLACE), VELA_MPIF(MPI_NO_OP), VELA_MPIF(MPI_SUCCESS),
    VELA_MPIF(MPI_ERR_BUFFER), VELA_MPIF(MPI_ERR_COUNT), VELA_MPIF(MPI_ERR_TYPE),
    VELA_MPIF(MPI_ERR_TAG), VELA_MPIF(MPI_ERR_COMM), VELA_MPIF(MPI_ERR_RANK),
    VELA_MPIF(MPI_ERR_REQUEST), VELA_MPIF(MPI_ERR_ROOT), VELA_MPIF(MPI_ERR_GROUP),
    VELA_MPIF(MPI_ERR_OP), VELA_MPIF(MPI_ERR_TOPOLOGY), VELA_MPIF(MPI_ERR_DIMS),
    VELA_MPIF(MPI_ERR_ARG), VELA_MPIF(MPI_ERR_UNKNOWN), VELA_MPIF(MPI_ERR_TRUNCATE),
    VELA_MPIF(MPI_ERR_OTHER), VELA_MPIF(MPI_ERR_INTERN), VELA_MPIF(MPI_ERR_IN_STATUS),
    VELA_MPIF(MPI_ERR_PENDING), VELA_MPIF(MPI_ERR_KEYVAL), VELA_MPIF(MPI_ERR_NO_MEM),
    VELA_MPIF(MPI_ERR_BASE), VELA_MPIF(MPI_ERR_INFO_KEY), VELA_MPIF(MPI_ERR_INFO_VALUE),
    VELA_MPIF(MPI_ERR_INFO_NOKEY), VELA_MPIF(MPI_ERR_SPAWN), VELA_MPIF(MPI_ERR_PORT),
    VELA_MPIF(MPI_ERR_SERVICE), VELA_MPIF(MPI_ERR_NAME), VELA_MPIF(MPI_ERR_WIN),
    VELA_MPIF(MPI_ERR_SIZE), VELA_MPIF(MPI_ERR_DISP), VELA_MPIF(MPI_ERR_INFO),
    VELA_MPIF(MPI_ERR_LOCKTYPE), VELA_MPIF(MPI_ERR_ASSERT), VELA_MPIF(MPI_ERR_RMA_CONFLICT),
    VELA_MPIF(MPI_ERR_RMA_SYNC), VELA_MPIF(MPI_ERR_RMA_RANGE), VELA_MPIF(MPI_ERR_RMA_ATTACH),
    VELA_MPIF(MPI_ERR_RMA_SHARED), VELA_MPIF(MPI_ERR_RMA_FLAVOR), VELA_MPIF(MPI_ERR_FILE),
    VELA_MPIF(MPI_ERR_NOT_SAME), VELA_MPIF(MPI_ERR_AMODE), VELA_MPIF(MPI_ERR_UNSUPPORTED_DATAREP),
    VELA_MPIF(MPI_ERR_UNSUPPORTED_OPERATION), VELA_MPIF(MPI_ERR_NO_SUCH_FILE),
    VELA_MPIF(MPI_ERR_FILE_EXISTS), VELA_MPIF(MPI_ERR_BAD_FILE), VELA_MPIF(MPI_ERR_ACCESS),
    VELA_MPIF(MPI_ERR_NO_SPACE), VELA_MPIF(MPI_ERR_QUOTA), VELA_MPIF(MPI_ERR_READ_ONLY),
    VELA_MPIF(MPI_ERR_FILE_IN_USE), VELA_MPIF(MPI_ERR_DUP_DATAREP), VELA_MPIF(MPI_ERR_CONVERSION),
    VELA_MPIF(MPI_ERR_IO), VELA_MPIF(MPI_ERR_LASTCODE), VELA_MPIF(MPI_T_ERR_MEMORY),
    VELA_MPIF(MPI_ANY_SOURCE), VELA_MPIF(MPI_ANY_TAG), VELA_MPIF(MPI_PROC_NULL),
    VELA_MPIF(MPI_ROOT), VELA_MPIF(MPI_UNDEFINED), VELA_MPIF(MPI_KEYVAL_INVALID),
    VELA_MPIF(MPI_BSEND_OVERHEAD), VELA_MPIF(MPI_MAX_PROCESSOR_NAME),
    VELA_MPIF(MPI_MAX_ERROR_STRING), VELA_MPIF(MPI_MAX_OBJECT_NAME),
    VELA_MPIF(MPI_MAX_LIBRARY_VERSION_STRING), VELA_MPIF(MPI_MAX_INFO_KEY),
    VELA_MPIF(MPI_MAX_INFO_VAL), VELA_MPIF(MPI_MAX_PORT_NAME), VELA_MPIF(MPI_MAX_DATAREP_STRING),
    VELA_MPIF(MPI_THREAD_SINGLE), VELA_MPIF(MPI_THREAD_FUNNELED), VELA_MPIF(MPI_THREAD_SERIALIZED),
    VELA_MPIF(MPI_THREAD_MULTIPLE), VELA_MPIF(MPI_IDENT), VELA_MPIF(MPI_CONGRUENT),
    VELA_MPIF(MPI_SIMILAR), VELA_MPIF(MPI_UNEQUAL), VELA_MPIF(MPI_TAG_UB), VELA_MPIF(MPI_HOST),
    VELA_MPIF(MPI_IO), VELA_MPIF(MPI_WTIME_IS_GLOBAL), VELA_MPIF(MPI_UNIVERSE_SIZE),
    VELA_MPIF(MPI_APPNUM), VELA_MPIF(MPI_LASTUSEDCODE), VELA_MPIF(MPI_WIN_BASE),
    VELA_MPIF(MPI_WIN_SIZE), VELA_MPIF(MPI_WIN_DISP_UNIT), VELA_MPIF(MPI_WIN_CREATE_FLAVOR),
    VELA_MPIF(MPI_WIN_MODEL), VELA_MPIF(MPI_WIN_FLAVOR_CREATE), VELA_MPIF(MPI_WIN_FLAVOR_ALLOCATE),
    VELA_MPIF(MPI_WIN_FLAVOR_DYNAMIC), VELA_MPIF(MPI_WIN_FLAVOR_SHARED),
    VELA_MPIF(MPI_WIN_SEPARATE), VELA_MPIF(MPI_WIN_UNIFIED), VELA_MPIF(MPI_GRAPH),
    VELA_MPIF(MPI_CART), VELA_MPIF(MPI_DIST_GRAPH), VELA_MPIF(MPI_DISTRIBUTE_BLOCK),
    VELA_MPIF(MPI_DISTRIBUTE_CYCLIC), VELA_MPIF(MPI_DISTRIBUTE_NONE),
    VELA_MPIF(MPI_DISTRIBUTE_DFLT_DARG), VELA_MPIF(MPI_ORDER_C), VELA_MPIF(MPI_ORDER_FORTRAN),
    VELA_MPIF(MPI_COMBINER_NAMED), VELA_MPIF(MPI_COMBINER_DUP), VELA_MPIF(MPI_COMBINER_CONTIGUOUS),
    VELA_MPIF(MPI_COMBINER_VECTOR), VELA_MPIF(MPI_COMBINER_HVECTOR_INTEGER),
    VELA_MPIF(MPI_COMBINER_HVECTOR), VELA_MPIF(MPI_COMBINER_INDEXED),
    VELA_MPIF(MPI_COMBINER_HINDEXED_INTEGER), VELA_MPIF(MPI_COMBINER_HINDEXED),
    VELA_MPIF(MPI_COMBINER_INDEXED_BLOCK), VELA_MPIF(MPI_COMBINER_STRUCT_INTEGER),
    VELA_MPIF(MPI_COMBINER_STRUCT), VELA_MPIF(MPI_COMBINER_SUBARRAY),
    VELA_MPIF(MPI_COMBINER_DARRAY), VELA_MPIF(MPI_COMBINER_F90_REAL),
    VELA_MPIF(MPI_COMBINER_F90_COMPLEX), VELA_MPIF(MPI_COMBINER_F90_INTEGER),
    VELA_MPIF(MPI_COMBINER_RESIZED), VELA_MPIF(MPI_COMBINER_HINDEXED_BLOCK),
    VELA_MPIF(MPI_TYPECLASS_INTEGER), VELA_MPIF(MPI_TYPECLASS_REAL),
    VELA_MPIF(MPI_TYPECLASS_COMPLEX), VELA_MPIF(MPI_COMM_TYPE_SHARED), VELA_MPIF(MPI_MODE_NOCHECK),
    VELA_MPIF(MPI_MODE_NOSTORE), VELA_MPIF(MPI_MODE_NOPUT), VELA_MPIF(MPI_MODE_NOPRECEDE),
    VELA_MPIF(MPI_MODE_NOSUCCEED), VELA_MPIF(MPI_LOCK_EXCLUSIVE), VELA_MPIF(MPI_LOCK_SHARED),
    VELA_MPIF(MPI_MODE_RDONLY), VELA_MPIF(MPI_MODE_RDWR), VELA_MPIF(MPI_MODE_WRONLY),
    VELA_MPIF(MPI_MODE_CREATE), VELA_MPIF(MPI_MODE_EXCL), VELA_MPIF(MPI_MODE_DELETE_ON_CLOSE),
    VELA_MPIF(MPI_MODE_UNIQUE_OPEN), VELA_MPIF(MPI_MODE_APPEND), VELA_MPIF(MPI_MODE_SEQUENTIAL),
};
// clang-format on
#undef VELA_MPIF

// The status as Fortran sees it: an integer array of VMPI_FORTRAN_STATUS_SIZE elements, the
// C status's bytes (fortran/bindings.hpp copies them both ways).
constexpr int status_size = (sizeof(MPI_Status) + sizeof(MPI_Fint) - 1) / sizeof(MPI_Fint);
static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0 && offsetof(MPI_Status, MPI_TAG) == 4 &&
              offsetof(MPI_Status, MPI_ERROR) == 8);

void write_header(std::ostream& out) {
  const Writer w{out};
  w.comment("mpif.h: MPI's Fortran header for programs run as Vela ranks.");
  w.comment("Written at build time by make_mpif from vela/mpi.h: every value");
  w.comment("is the C library's. Do not edit. Fixed and free form accept it.");
  for (const Constant& c : constants) w.integer(c.name, c.value);
  w.comment("The status: an integer array, its fields at these indices.");
  w.integer("MPI_STATUS_SIZE", status_size);
  w.integer("MPI_SOURCE", 1);
  w.integer("MPI_TAG", 2);
  w.integer("MPI_ERROR", 3);
  w.integer("MPI_ADDRESS_KIND", sizeof(MPI_Aint));
  w.integer("MPI_OFFSET_KIND", sizeof(MPI_Offset));
  w.integer("MPI_COUNT_KIND", sizeof(MPI_Count));
  w.integer("MPI_INTEGER_KIND", sizeof(MPI_Fint));
  w.comment("Special buffers and arrays: the calls know them by address.");
  w.line("integer MPI_BOTTOM, MPI_IN_PLACE");
  w.line("integer MPI_STATUS_IGNORE(MPI_STATUS_SIZE)");
  w.line("integer MPI_STATUSES_IGNORE(MPI_STATUS_SIZE, 1)");
  w.line("integer MPI_ERRCODES_IGNORE(1)");
  w.line("integer MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)");
  w.line("character*1 MPI_ARGV_NULL(1)");
  w.line("common /vmpi_fortran_bottom/ MPI_BOTTOM");
  w.line("common /vmpi_fortran_in_place/ MPI_IN_PLACE");
  w.line("common /vmpi_fortran_status_ignore/ MPI_STATUS_IGNORE");
  w.line("common /vmpi_fortran_statuses_ignore/ MPI_STATUSES_IGNORE");
  w.line("common /vmpi_fortran_errcodes_ignore/ MPI_ERRCODES_IGNORE");
  w.line("common /vmpi_fortran_unweighted/ MPI_UNWEIGHTED");
  w.line("common /vmpi_fortran_weights_empty/ MPI_WEIGHTS_EMPTY");
  w.line("common /vmpi_fortran_argv_null/ MPI_ARGV_NULL");
  w.line("save /vmpi_fortran_bottom/, /vmpi_fortran_in_place/");
  w.line("save /vmpi_fortran_status_ignore/, /vmpi_fortran_statuses_ignore/");
  w.line("save /vmpi_fortran_errcodes_ignore/, /vmpi_fortran_unweighted/");
  w.line("save /vmpi_fortran_weights_empty/, /vmpi_fortran_argv_null/");
  w.comment("The functions (the rest are subroutines).");
  w.line("double precision MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK");
  w.line("external MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK");
  w.line("integer(kind=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF");
  w.line("integer(kind=MPI_ADDRESS_KIND) PMPI_AINT_ADD, PMPI_AINT_DIFF");
  w.line("external MPI_AINT_ADD, MPI_AINT_DIFF, PMPI_AINT_ADD, PMPI_AINT_DIFF");
  w.comment("The predefined attribute copy and delete functions.");
  w.line("external MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN");
  w.line("external MPI_TYPE_NULL_COPY_FN, MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN");
  w.line("external MPI_WIN_NULL_COPY_FN, MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN");
  w.line("external MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN");
  w.comment("Vela's extensions (AMPI's): where the calling rank runs.");
  w.line("integer MPI_MY_PE, MPI_MY_NODE, MPI_NUM_PES, MPI_NUM_NODES");
  w.line("external MPI_MY_PE, MPI_MY_NODE, MPI_NUM_PES, MPI_NUM_NODES");
}

// The calls with a choice argument, and their arguments: `name*` a choice buffer, `name[]` an
// integer array, `status#` a status, `name&` an INTEGER(KIND=MPI_ADDRESS_KIND), any other a
// default INTEGER.
struct Interface {
  const char* name;
  const char* arguments;
};
const Interface interfaces[] = {
    {"MPI_SEND", "buf* count datatype dest tag comm ierror"},
    {"MPI_SSEND", "buf* count datatype dest tag comm ierror"},
    {"MPI_RSEND", "buf* count datatype dest tag comm ierror"},
    {"MPI_BSEND", "buf* count datatype dest tag comm ierror"},
    {"MPI_ISEND", "buf* count datatype dest tag comm request ierror"},
    {"MPI_ISSEND", "buf* count datatype dest tag comm request ierror"},
    {"MPI_IRSEND", "buf* count datatype dest tag comm request ierror"},
    {"MPI_IBSEND", "buf* count datatype dest tag comm request ierror"},
    {"MPI_SEND_INIT", "buf* count datatype dest tag comm request ierror"},
    {"MPI_SSEND_INIT", "buf* count datatype dest tag comm request ierror"},
    {"MPI_RSEND_INIT", "buf* count datatype dest tag comm request ierror"},
    {"MPI_BSEND_INIT", "buf* count datatype dest tag comm request ierror"},
    {"MPI_RECV", "buf* count datatype source tag comm status# ierror"},
    {"MPI_IRECV", "buf* count datatype source tag comm request ierror"},
    {"MPI_RECV_INIT", "buf* count datatype source tag comm request ierror"},
    {"MPI_SENDRECV",
     "sendbuf* sendcount sendtype dest sendtag recvbuf* recvcount recvtype source "
     "recvtag comm status# ierror"},
    {"MPI_SENDRECV_REPLACE", "buf* count datatype dest sendtag source recvtag comm status# ierror"},
    {"MPI_BUFFER_ATTACH", "buffer* size ierror"},
    {"MPI_BUFFER_DETACH", "buffer_addr* size ierror"},
    {"MPI_BCAST", "buffer* count datatype root comm ierror"},
    {"MPI_IBCAST", "buffer* count datatype root comm request ierror"},
    {"MPI_REDUCE", "sendbuf* recvbuf* count datatype op root comm ierror"},
    {"MPI_IREDUCE", "sendbuf* recvbuf* count datatype op root comm request ierror"},
    {"MPI_ALLREDUCE", "sendbuf* recvbuf* count datatype op comm ierror"},
    {"MPI_IALLREDUCE", "sendbuf* recvbuf* count datatype op comm request ierror"},
    {"MPI_SCAN", "sendbuf* recvbuf* count datatype op comm ierror"},
    {"MPI_EXSCAN", "sendbuf* recvbuf* count datatype op comm ierror"},
    {"MPI_REDUCE_LOCAL", "inbuf* inoutbuf* count datatype op ierror"},
    {"MPI_REDUCE_SCATTER_BLOCK", "sendbuf* recvbuf* recvcount datatype op comm ierror"},
    {"MPI_REDUCE_SCATTER", "sendbuf* recvbuf* recvcounts[] datatype op comm ierror"},
    {"MPI_GATHER", "sendbuf* sendcount sendtype recvbuf* recvcount recvtype root comm ierror"},
    {"MPI_SCATTER", "sendbuf* sendcount sendtype recvbuf* recvcount recvtype root comm ierror"},
    {"MPI_ALLGATHER", "sendbuf* sendcount sendtype recvbuf* recvcount recvtype comm ierror"},
    {"MPI_ALLTOALL", "sendbuf* sendcount sendtype recvbuf* recvcount recvtype comm ierror"},
    {"MPI_GATHERV",
     "sendbuf* sendcount sendtype recvbuf* recvcounts[] displs[] recvtype root "
     "comm ierror"},
    {"MPI_SCATTERV",
     "sendbuf* sendcounts[] displs[] sendtype recvbuf* recvcount recvtype root "
     "comm ierror"},
    {"MPI_ALLGATHERV",
     "sendbuf* sendcount sendtype recvbuf* recvcounts[] displs[] recvtype comm ierror"},
    {"MPI_ALLTOALLV",
     "sendbuf* sendcounts[] sdispls[] sendtype recvbuf* recvcounts[] rdispls[] "
     "recvtype comm ierror"},
    {"MPI_PACK", "inbuf* incount datatype outbuf* outsize position comm ierror"},
    {"MPI_UNPACK", "inbuf* insize position outbuf* outcount datatype comm ierror"},
    {"MPI_GET_ADDRESS", "location* address& ierror"},
    {"MPI_ADDRESS", "location* address ierror"},
    {"MPI_FREE_MEM", "base* ierror"},
    {"MPI_MRECV", "buf* count datatype message status# ierror"},
    {"MPI_IMRECV", "buf* count datatype message request ierror"},
    {"MPI_IGATHER",
     "sendbuf* sendcount sendtype recvbuf* recvcount recvtype root comm request ierror"},
    {"MPI_ISCATTER",
     "sendbuf* sendcount sendtype recvbuf* recvcount recvtype root comm request ierror"},
    {"MPI_IALLGATHER",
     "sendbuf* sendcount sendtype recvbuf* recvcount recvtype comm request ierror"},
    {"MPI_IALLTOALL",
     "sendbuf* sendcount sendtype recvbuf* recvcount recvtype comm request ierror"},
    {"MPI_IGATHERV",
     "sendbuf* sendcount sendtype recvbuf* recvcounts[] displs[] recvtype root "
     "comm request ierror"},
    {"MPI_ISCATTERV",
     "sendbuf* sendcounts[] displs[] sendtype recvbuf* recvcount recvtype root "
     "comm request ierror"},
    {"MPI_IALLGATHERV",
     "sendbuf* sendcount sendtype recvbuf* recvcounts[] displs[] recvtype comm "
     "request ierror"},
    {"MPI_IALLTOALLV",
     "sendbuf* sendcounts[] sdispls[] sendtype recvbuf* recvcounts[] rdispls[] "
     "recvtype comm request ierror"},
    {"MPI_ISCAN", "sendbuf* recvbuf* count datatype op comm request ierror"},
    {"MPI_IEXSCAN", "sendbuf* recvbuf* count datatype op comm request ierror"},
    {"MPI_IREDUCE_SCATTER_BLOCK", "sendbuf* recvbuf* recvcount datatype op comm request ierror"},
    {"MPI_IREDUCE_SCATTER", "sendbuf* recvbuf* recvcounts[] datatype op comm request ierror"},
    {"MPI_WIN_CREATE", "base* size& disp_unit info comm win ierror"},
    {"MPI_WIN_ATTACH", "win base* size& ierror"},
    {"MPI_WIN_DETACH", "win base* ierror"},
    {"MPI_PUT",
     "origin_addr* origin_count origin_datatype target_rank target_disp& target_count "
     "target_datatype win ierror"},
    {"MPI_GET",
     "origin_addr* origin_count origin_datatype target_rank target_disp& target_count "
     "target_datatype win ierror"},
    {"MPI_ACCUMULATE",
     "origin_addr* origin_count origin_datatype target_rank target_disp& "
     "target_count target_datatype op win ierror"},
    {"MPI_GET_ACCUMULATE",
     "origin_addr* origin_count origin_datatype result_addr* result_count "
     "result_datatype target_rank target_disp& target_count "
     "target_datatype op win ierror"},
    {"MPI_FETCH_AND_OP",
     "origin_addr* result_addr* datatype target_rank target_disp& op win ierror"},
    {"MPI_COMPARE_AND_SWAP",
     "origin_addr* compare_addr* result_addr* datatype target_rank target_disp& win ierror"},
    {"MPI_RPUT",
     "origin_addr* origin_count origin_datatype target_rank target_disp& target_count "
     "target_datatype win request ierror"},
    {"MPI_RGET",
     "origin_addr* origin_count origin_datatype target_rank target_disp& target_count "
     "target_datatype win request ierror"},
    {"MPI_RGET_ACCUMULATE",
     "origin_addr* origin_count origin_datatype result_addr* result_count "
     "result_datatype target_rank target_disp& target_count "
     "target_datatype op win request ierror"},
    {"MPI_RACCUMULATE",
     "origin_addr* origin_count origin_datatype target_rank target_disp& "
     "target_count target_datatype op win request ierror"},
};

// Words of `text`, as separated by blanks.
std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// `head` followed by `items`, comma-separated, then `tail`, continued with `&` past 90 columns.
void write_list(std::ostream& out, const std::string& head, const std::vector<std::string>& items,
                const std::string& tail) {
  std::string line = head;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string item = items[i] + (i + 1 < items.size() ? ", " : tail);
    if (line.size() + item.size() > 90) {
      out << line << "&\n";
      line = "        ";
    }
    line += item;
  }
  out << line << '\n';
}

void write_interface(std::ostream& out, const Interface& f) {
  std::vector<std::string> names;
  std::vector<std::string> integers;
  std::vector<std::string> declarations;
  for (std::string w : words(f.arguments)) {
    const char kind = w.back();
    if (kind == '*' || kind == '#' || kind == '&') w.pop_back();
    if (w.ends_with("[]")) {
      w.resize(w.size() - 2);
      declarations.push_back("integer :: " + w + "(*)");
    } else if (kind == '*') {
      declarations.push_back("!GCC$ ATTRIBUTES NO_ARG_CHECK :: " + w);
      declarations.push_back("type(*), dimension(*) :: " + w);
    } else if (kind == '#') {
      declarations.push_back("integer :: " + w + "(MPI_STATUS_SIZE)");
    } else if (kind == '&') {
      declarations.push_back("integer(kind=MPI_ADDRESS_KIND) :: " + w);
    } else {
      integers.push_back(w);
    }
    names.push_back(w);
  }
  write_list(out, std::string("    subroutine ") + f.name + "(", names, ")");
  out << "      import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND\n";
  for (const std::string& d : declarations) out << "      " << d << '\n';
  if (!integers.empty()) write_list(out, "      integer :: ", integers, "");
  out << "    end subroutine " << f.name << '\n';
}

void write_module(std::ostream& out) {
  out << "! The `mpi` module (use mpi), for gfortran: mpif.h and the interfaces of the calls\n"
         "! taking a buffer of any type. Written at build time by make_mpif. Do not edit.\n"
         "module mpi\n  implicit none\n  include 'mpif.h'\n\n  interface\n";
  for (const Interface& f : interfaces) write_interface(out, f);
  out << "  end interface\nend module mpi\n";
}

// Writes `file` with `write`: 0, or 1 saying why not.
int write_file(const char* file, void (*write)(std::ostream&)) {
  std::ofstream out(file);
  write(out);
  out.close();
  if (!out) {
    std::cerr << "make_mpif: cannot write '" << file << "'\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "make_mpif: usage: make_mpif MPIF_H MODULE_F90 (the two files to write)\n";
    return 2;
  }
  return write_file(argv[1], write_header) != 0 || write_file(argv[2], write_module) != 0 ? 1 : 0;
}
