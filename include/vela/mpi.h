/* vela/mpi.h: MPI's C API (MPI 3.1, without MPI-IO, process creation and the calls listed as
 * unavailable at the end) for unchanged MPI programs run as Vela ranks
 * (the AMPI model): every MPI process becomes a rank, a user-level thread over the runtime's
 * PEs, and MPI_Migrate() is the point where ranks move between PEs by their measured load.
 *
 * - The program's main becomes the ranks' body (`#define main vela_mpi_main` below); the real
 *   main() comes from the vela::mpi_main library (or the vela-mpicc / vela-mpicxx wrappers) and
 *   takes the runtime's options (--vp N ranks, --pes P, --lb ...). Define VELA_MPI_NO_MAIN
 *   before including this header in a program that keeps its own main and calls
 *   vela::mpi::run (vela/mpi/run.hpp).
 * - Every name is mapped onto Vela's own symbols (MPI_Send is VMPI_Send, MPI_Comm is
 *   VMPI_Comm), so a process may also link a real MPI library (Open MPI's libmpi) without a
 *   clash; this header and the system's mpi.h cannot meet in one translation unit.
 * - The profiling interface: every call also has its PMPI_ name (VPMPI_ in the library), and
 *   the MPI_ name is a weak alias of it, so that a tool may define MPI_Send and call PMPI_Send.
 * - Handles are small integers (a kind's base plus an index into the rank's table of that kind),
 *   typed as pointers to incomplete types so that mixing them up is a type error; MPI_Comm_c2f
 *   and the other conversions to Fortran are the identity on the number. Requests are pointers.
 * - Errors: MPI_ERRORS_ARE_FATAL by default (the run ends with a message naming the rank, the
 *   call and the argument); with MPI_ERRORS_RETURN or a program's handler the call returns the
 *   error's class (each error code is its class).
 * - Calls outside what is implemented are declared unavailable, so using one fails to compile
 *   with a message naming it. In C, compile with -Werror=implicit-function-declaration (the
 *   wrappers and the CMake target do) so that an undeclared MPI call cannot silently bind to
 *   another MPI library.
 * - Globals of the program are privatized per rank when it is built with the wrappers (see the
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

typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct VMPI_Comm_handle* VMPI_Comm;
typedef struct VMPI_Group_handle* VMPI_Group;
typedef struct VMPI_Datatype_handle* VMPI_Datatype;
typedef struct VMPI_Op_handle* VMPI_Op;
typedef struct VMPI_Errhandler_handle* VMPI_Errhandler;
typedef struct VMPI_Info_handle* VMPI_Info;
typedef struct VMPI_Win_handle* VMPI_Win;
typedef struct VMPI_Message_handle* VMPI_Message;
typedef struct VMPI_File_handle* VMPI_File;
/* A request's state; null is MPI_REQUEST_NULL. */
typedef struct VMPI_Request_handle* VMPI_Request;
typedef struct VMPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int vmpi_cancelled; /* private: MPI_Test_cancelled */
  size_t vmpi_bytes;  /* private: the message's length */
} VMPI_Status;

#define MPI_Comm VMPI_Comm
#define MPI_Group VMPI_Group
#define MPI_Datatype VMPI_Datatype
#define MPI_Op VMPI_Op
#define MPI_Errhandler VMPI_Errhandler
#define MPI_Info VMPI_Info
#define MPI_Win VMPI_Win
#define MPI_Message VMPI_Message
#define MPI_File VMPI_File
#define MPI_Request VMPI_Request
#define MPI_Status VMPI_Status

/* Handle values: a kind's base plus an index (shared with the implementation, src/vp/mpi). */
enum {
  VMPI_COMM_BASE = 0x44000000,
  VMPI_GROUP_BASE = 0x48000000,
  VMPI_DATATYPE_BASE = 0x4c000000,
  VMPI_ERRHANDLER_BASE = 0x54000000,
  VMPI_OP_BASE = 0x58000000,
  VMPI_INFO_BASE = 0x5c000000,
  VMPI_WIN_BASE = 0x60000000,
  VMPI_MESSAGE_BASE = 0x6c000000,
  VMPI_INDEX_MASK = 0x00ffffff
};

#define MPI_COMM_WORLD VMPI_HANDLE(VMPI_Comm, VMPI_COMM_BASE + 0)
#define MPI_COMM_SELF VMPI_HANDLE(VMPI_Comm, VMPI_COMM_BASE + 1)
#define MPI_COMM_NULL VMPI_NULL(VMPI_Comm)
#define MPI_GROUP_EMPTY VMPI_HANDLE(VMPI_Group, VMPI_GROUP_BASE + 0)
#define MPI_GROUP_NULL VMPI_NULL(VMPI_Group)
#define MPI_ERRORS_ARE_FATAL VMPI_HANDLE(VMPI_Errhandler, VMPI_ERRHANDLER_BASE + 0)
#define MPI_ERRORS_RETURN VMPI_HANDLE(VMPI_Errhandler, VMPI_ERRHANDLER_BASE + 1)
#define MPI_ERRHANDLER_NULL VMPI_NULL(VMPI_Errhandler)
#define MPI_INFO_ENV VMPI_HANDLE(VMPI_Info, VMPI_INFO_BASE + 0)
/* Vela: MPI_Migrate_info's hints (AMPI's AMPI_INFO_LB_SYNC and AMPI_INFO_LB_ASYNC): the key
 * "ampi_load_balance" set to "sync" or "async". */
#define MPI_INFO_LB_SYNC VMPI_HANDLE(VMPI_Info, VMPI_INFO_BASE + 1)
#define MPI_INFO_LB_ASYNC VMPI_HANDLE(VMPI_Info, VMPI_INFO_BASE + 2)
#define MPI_INFO_NULL VMPI_NULL(VMPI_Info)
#define MPI_WIN_NULL VMPI_NULL(VMPI_Win)
#define MPI_FILE_NULL VMPI_NULL(VMPI_File)
#define MPI_MESSAGE_NULL VMPI_NULL(VMPI_Message)
#define MPI_MESSAGE_NO_PROC VMPI_HANDLE(VMPI_Message, VMPI_MESSAGE_BASE + 0)
#define MPI_REQUEST_NULL VMPI_NULL(VMPI_Request)
#define MPI_DATATYPE_NULL VMPI_NULL(VMPI_Datatype)
#define MPI_OP_NULL VMPI_NULL(VMPI_Op)

#define VMPI_DATATYPE(index) VMPI_HANDLE(VMPI_Datatype, VMPI_DATATYPE_BASE + (index))
#define VMPI_OP(index) VMPI_HANDLE(VMPI_Op, VMPI_OP_BASE + (index))

/* ---- predefined datatypes: MPI_x is handle VMPI_DATATYPE_BASE + its index here ---- */
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
#define MPI_UNSIGNED_LONG_LONG VMPI_DATATYPE(11)
#define MPI_FLOAT VMPI_DATATYPE(12)
#define MPI_DOUBLE VMPI_DATATYPE(13)
#define MPI_LONG_DOUBLE VMPI_DATATYPE(14)
#define MPI_WCHAR VMPI_DATATYPE(15)
#define MPI_C_BOOL VMPI_DATATYPE(16)
#define MPI_INT8_T VMPI_DATATYPE(17)
#define MPI_UINT8_T VMPI_DATATYPE(18)
#define MPI_INT16_T VMPI_DATATYPE(19)
#define MPI_UINT16_T VMPI_DATATYPE(20)
#define MPI_INT32_T VMPI_DATATYPE(21)
#define MPI_UINT32_T VMPI_DATATYPE(22)
#define MPI_INT64_T VMPI_DATATYPE(23)
#define MPI_UINT64_T VMPI_DATATYPE(24)
#define MPI_C_COMPLEX VMPI_DATATYPE(25)
#define MPI_C_DOUBLE_COMPLEX VMPI_DATATYPE(26)
#define MPI_C_LONG_DOUBLE_COMPLEX VMPI_DATATYPE(27)
#define MPI_AINT VMPI_DATATYPE(28)
#define MPI_OFFSET VMPI_DATATYPE(29)
#define MPI_COUNT VMPI_DATATYPE(30)
#define MPI_PACKED VMPI_DATATYPE(31)
#define MPI_CXX_BOOL VMPI_DATATYPE(32)
#define MPI_CXX_FLOAT_COMPLEX VMPI_DATATYPE(33)
#define MPI_CXX_DOUBLE_COMPLEX VMPI_DATATYPE(34)
#define MPI_CXX_LONG_DOUBLE_COMPLEX VMPI_DATATYPE(35)
#define MPI_FLOAT_INT VMPI_DATATYPE(36)
#define MPI_DOUBLE_INT VMPI_DATATYPE(37)
#define MPI_LONG_INT VMPI_DATATYPE(38)
#define MPI_2INT VMPI_DATATYPE(39)
#define MPI_SHORT_INT VMPI_DATATYPE(40)
#define MPI_LONG_DOUBLE_INT VMPI_DATATYPE(41)
#define MPI_INTEGER VMPI_DATATYPE(42)
#define MPI_REAL VMPI_DATATYPE(43)
#define MPI_DOUBLE_PRECISION VMPI_DATATYPE(44)
#define MPI_COMPLEX VMPI_DATATYPE(45)
#define MPI_DOUBLE_COMPLEX VMPI_DATATYPE(46)
#define MPI_LOGICAL VMPI_DATATYPE(47)
#define MPI_CHARACTER VMPI_DATATYPE(48)
#define MPI_2REAL VMPI_DATATYPE(49)
#define MPI_2DOUBLE_PRECISION VMPI_DATATYPE(50)
#define MPI_2INTEGER VMPI_DATATYPE(51)
#define MPI_INTEGER1 VMPI_DATATYPE(52)
#define MPI_INTEGER2 VMPI_DATATYPE(53)
#define MPI_INTEGER4 VMPI_DATATYPE(54)
#define MPI_INTEGER8 VMPI_DATATYPE(55)
#define MPI_REAL4 VMPI_DATATYPE(56)
#define MPI_REAL8 VMPI_DATATYPE(57)
#define MPI_REAL16 VMPI_DATATYPE(58)
#define MPI_COMPLEX8 VMPI_DATATYPE(59)
#define MPI_COMPLEX16 VMPI_DATATYPE(60)
#define MPI_COMPLEX32 VMPI_DATATYPE(61)
#define MPI_LB VMPI_DATATYPE(62)
#define MPI_UB VMPI_DATATYPE(63)
#define MPI_LONG_LONG_INT MPI_LONG_LONG
#define MPI_C_FLOAT_COMPLEX MPI_C_COMPLEX
#define VMPI_DATATYPE_COUNT 64

/* ---- predefined operators ---- */
#define MPI_MAX VMPI_OP(0)
#define MPI_MIN VMPI_OP(1)
#define MPI_SUM VMPI_OP(2)
#define MPI_PROD VMPI_OP(3)
#define MPI_LAND VMPI_OP(4)
#define MPI_BAND VMPI_OP(5)
#define MPI_LOR VMPI_OP(6)
#define MPI_BOR VMPI_OP(7)
#define MPI_LXOR VMPI_OP(8)
#define MPI_BXOR VMPI_OP(9)
#define MPI_MAXLOC VMPI_OP(10)
#define MPI_MINLOC VMPI_OP(11)
#define MPI_REPLACE VMPI_OP(12)
#define MPI_NO_OP VMPI_OP(13)
#define VMPI_OP_COUNT 14

/* ---- error classes (an error code is its class) ---- */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_KEYVAL 20
#define MPI_ERR_NO_MEM 21
#define MPI_ERR_BASE 22
#define MPI_ERR_INFO_KEY 23
#define MPI_ERR_INFO_VALUE 24
#define MPI_ERR_INFO_NOKEY 25
#define MPI_ERR_SPAWN 26
#define MPI_ERR_PORT 27
#define MPI_ERR_SERVICE 28
#define MPI_ERR_NAME 29
#define MPI_ERR_WIN 30
#define MPI_ERR_SIZE 31
#define MPI_ERR_DISP 32
#define MPI_ERR_INFO 33
#define MPI_ERR_LOCKTYPE 34
#define MPI_ERR_ASSERT 35
#define MPI_ERR_RMA_CONFLICT 36
#define MPI_ERR_RMA_SYNC 37
#define MPI_ERR_RMA_RANGE 38
#define MPI_ERR_RMA_ATTACH 39
#define MPI_ERR_RMA_SHARED 40
#define MPI_ERR_RMA_FLAVOR 41
#define MPI_ERR_FILE 42
#define MPI_ERR_NOT_SAME 43
#define MPI_ERR_AMODE 44
#define MPI_ERR_UNSUPPORTED_DATAREP 45
#define MPI_ERR_UNSUPPORTED_OPERATION 46
#define MPI_ERR_NO_SUCH_FILE 47
#define MPI_ERR_FILE_EXISTS 48
#define MPI_ERR_BAD_FILE 49
#define MPI_ERR_ACCESS 50
#define MPI_ERR_NO_SPACE 51
#define MPI_ERR_QUOTA 52
#define MPI_ERR_READ_ONLY 53
#define MPI_ERR_FILE_IN_USE 54
#define MPI_ERR_DUP_DATAREP 55
#define MPI_ERR_CONVERSION 56
#define MPI_ERR_IO 57
#define MPI_ERR_LASTCODE 58
#define MPI_T_ERR_MEMORY MPI_ERR_NO_MEM

#define MPI_STATUS_IGNORE VMPI_NULL(VMPI_Status*)
#define MPI_STATUSES_IGNORE VMPI_NULL(VMPI_Status*)
#define MPI_ERRCODES_IGNORE VMPI_NULL(int*)
#define MPI_ARGV_NULL VMPI_NULL(char**)
#define MPI_ARGVS_NULL VMPI_NULL(char***)
#define MPI_UNWEIGHTED VMPI_HANDLE(int*, 2)
#define MPI_WEIGHTS_EMPTY VMPI_HANDLE(int*, 3)
/* The data is already in place (the standard says for which buffer of which call). */
#define MPI_IN_PLACE VMPI_HANDLE(void*, 1)
/* Address zero: with absolute addresses from MPI_Get_address in a datatype. */
#define MPI_BOTTOM VMPI_NULL(void*)

#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2) /* sends to it and receives from it complete at once, empty */
#define MPI_ROOT (-3)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)
#define MPI_BSEND_OVERHEAD 96
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_PORT_NAME 1024
#define MPI_MAX_DATAREP_STRING 128

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Results of MPI_Comm_compare and MPI_Group_compare. */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* Predefined attribute keys (MPI_Comm_get_attr on MPI_COMM_WORLD). */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_APPNUM 6
#define MPI_LASTUSEDCODE 7

/* Window attribute keys (MPI_Win_get_attr), flavors and memory models. */
#define MPI_WIN_BASE 11
#define MPI_WIN_SIZE 12
#define MPI_WIN_DISP_UNIT 13
#define MPI_WIN_CREATE_FLAVOR 14
#define MPI_WIN_MODEL 15
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2

/* Topologies (MPI_Topo_test) and distributions (MPI_Type_create_darray). */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
#define MPI_DISTRIBUTE_BLOCK 0
#define MPI_DISTRIBUTE_CYCLIC 1
#define MPI_DISTRIBUTE_NONE 2
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57

/* MPI_Type_get_envelope's combiners. */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR_INTEGER 5
#define MPI_COMBINER_HVECTOR 6
#define MPI_COMBINER_INDEXED 7
#define MPI_COMBINER_HINDEXED_INTEGER 8
#define MPI_COMBINER_HINDEXED 9
#define MPI_COMBINER_INDEXED_BLOCK 10
#define MPI_COMBINER_STRUCT_INTEGER 11
#define MPI_COMBINER_STRUCT 12
#define MPI_COMBINER_SUBARRAY 13
#define MPI_COMBINER_DARRAY 14
#define MPI_COMBINER_F90_REAL 15
#define MPI_COMBINER_F90_COMPLEX 16
#define MPI_COMBINER_F90_INTEGER 17
#define MPI_COMBINER_RESIZED 18
#define MPI_COMBINER_HINDEXED_BLOCK 19

/* MPI_Type_match_size. */
#define MPI_TYPECLASS_INTEGER 1
#define MPI_TYPECLASS_REAL 2
#define MPI_TYPECLASS_COMPLEX 3

/* MPI_Comm_split_type. */
#define MPI_COMM_TYPE_SHARED 1

/* One-sided assertions and lock types (for programs that name them; the calls are unavailable). */
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
/* File access modes (MPI-IO is unavailable; the names exist for programs that test them). */
#define MPI_MODE_RDONLY 2
#define MPI_MODE_RDWR 8
#define MPI_MODE_WRONLY 4
#define MPI_MODE_CREATE 1
#define MPI_MODE_EXCL 64
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256

/* The functions a program hands to MPI. */
typedef void(MPI_User_function)(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype);
typedef void(MPI_Comm_errhandler_function)(MPI_Comm* comm, int* errorcode, ...);
typedef MPI_Comm_errhandler_function MPI_Handler_function;
typedef int(MPI_Comm_copy_attr_function)(MPI_Comm oldcomm, int comm_keyval, void* extra_state,
                                         void* attribute_val_in, void* attribute_val_out,
                                         int* flag);
typedef int(MPI_Comm_delete_attr_function)(MPI_Comm comm, int comm_keyval, void* attribute_val,
                                           void* extra_state);
typedef int(MPI_Copy_function)(MPI_Comm oldcomm, int keyval, void* extra_state,
                               void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int(MPI_Delete_function)(MPI_Comm comm, int keyval, void* attribute_val, void* extra_state);
typedef void(MPI_Win_errhandler_function)(MPI_Win* win, int* errorcode, ...);
typedef int(MPI_Win_copy_attr_function)(MPI_Win oldwin, int win_keyval, void* extra_state,
                                        void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int(MPI_Win_delete_attr_function)(MPI_Win win, int win_keyval, void* attribute_val,
                                          void* extra_state);
typedef int(MPI_Type_copy_attr_function)(MPI_Datatype oldtype, int type_keyval, void* extra_state,
                                         void* attribute_val_in, void* attribute_val_out,
                                         int* flag);
typedef int(MPI_Type_delete_attr_function)(MPI_Datatype datatype, int type_keyval,
                                           void* attribute_val, void* extra_state);
int VMPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void*, void*, void*, int*);
int VMPI_TYPE_DUP_FN(MPI_Datatype, int, void*, void*, void*, int*);
int VMPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void*, void*);
#define MPI_TYPE_NULL_COPY_FN VMPI_TYPE_NULL_COPY_FN
#define MPI_TYPE_DUP_FN VMPI_TYPE_DUP_FN
#define MPI_TYPE_NULL_DELETE_FN VMPI_TYPE_NULL_DELETE_FN
typedef int(MPI_Grequest_query_function)(void* extra_state, MPI_Status* status);
typedef int(MPI_Grequest_free_function)(void* extra_state);
typedef int(MPI_Grequest_cancel_function)(void* extra_state, int complete);
/* Windows are never duplicated: their copy functions are never called. */
#define MPI_WIN_NULL_COPY_FN ((MPI_Win_copy_attr_function*)0)
#define MPI_WIN_DUP_FN ((MPI_Win_copy_attr_function*)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function*)0)
/* The predefined attribute copy and delete functions. */
int VMPI_COMM_NULL_COPY_FN(MPI_Comm, int, void*, void*, void*, int*);
int VMPI_COMM_DUP_FN(MPI_Comm, int, void*, void*, void*, int*);
int VMPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void*, void*);
#define MPI_COMM_NULL_COPY_FN VMPI_COMM_NULL_COPY_FN
#define MPI_COMM_DUP_FN VMPI_COMM_DUP_FN
#define MPI_COMM_NULL_DELETE_FN VMPI_COMM_NULL_DELETE_FN
#define MPI_NULL_COPY_FN VMPI_COMM_NULL_COPY_FN
#define MPI_DUP_FN VMPI_COMM_DUP_FN
#define MPI_NULL_DELETE_FN VMPI_COMM_NULL_DELETE_FN

/* Each call: its MPI_ and PMPI_ names. */
#define VMPI_DECLARE(type, name, parameters) \
  type VMPI_##name parameters;               \
  type VPMPI_##name parameters

/* Environment */
#define MPI_Init VMPI_Init
#define PMPI_Init VPMPI_Init
#define MPI_Init_thread VMPI_Init_thread
#define PMPI_Init_thread VPMPI_Init_thread
#define MPI_Initialized VMPI_Initialized
#define PMPI_Initialized VPMPI_Initialized
#define MPI_Finalize VMPI_Finalize
#define PMPI_Finalize VPMPI_Finalize
#define MPI_Finalized VMPI_Finalized
#define PMPI_Finalized VPMPI_Finalized
#define MPI_Query_thread VMPI_Query_thread
#define PMPI_Query_thread VPMPI_Query_thread
#define MPI_Is_thread_main VMPI_Is_thread_main
#define PMPI_Is_thread_main VPMPI_Is_thread_main
#define MPI_Abort VMPI_Abort
#define PMPI_Abort VPMPI_Abort
#define MPI_Wtime VMPI_Wtime
#define PMPI_Wtime VPMPI_Wtime
#define MPI_Wtick VMPI_Wtick
#define PMPI_Wtick VPMPI_Wtick
#define MPI_Get_processor_name VMPI_Get_processor_name
#define PMPI_Get_processor_name VPMPI_Get_processor_name
#define MPI_Get_version VMPI_Get_version
#define PMPI_Get_version VPMPI_Get_version
#define MPI_Get_library_version VMPI_Get_library_version
#define PMPI_Get_library_version VPMPI_Get_library_version
#define MPI_Error_string VMPI_Error_string
#define PMPI_Error_string VPMPI_Error_string
#define MPI_Error_class VMPI_Error_class
#define PMPI_Error_class VPMPI_Error_class
#define MPI_Add_error_class VMPI_Add_error_class
#define PMPI_Add_error_class VPMPI_Add_error_class
#define MPI_Add_error_code VMPI_Add_error_code
#define PMPI_Add_error_code VPMPI_Add_error_code
#define MPI_Add_error_string VMPI_Add_error_string
#define PMPI_Add_error_string VPMPI_Add_error_string
#define MPI_Request_c2f VMPI_Request_c2f
#define PMPI_Request_c2f VPMPI_Request_c2f
#define MPI_Request_f2c VMPI_Request_f2c
#define PMPI_Request_f2c VPMPI_Request_f2c
#define MPI_Message_c2f VMPI_Message_c2f
#define PMPI_Message_c2f VPMPI_Message_c2f
#define MPI_Message_f2c VMPI_Message_f2c
#define PMPI_Message_f2c VPMPI_Message_f2c
#define MPI_Pcontrol VMPI_Pcontrol
#define PMPI_Pcontrol VPMPI_Pcontrol
#define MPI_Alloc_mem VMPI_Alloc_mem
#define PMPI_Alloc_mem VPMPI_Alloc_mem
#define MPI_Free_mem VMPI_Free_mem
#define PMPI_Free_mem VPMPI_Free_mem
#define MPI_Info_create VMPI_Info_create
#define PMPI_Info_create VPMPI_Info_create
#define MPI_Info_set VMPI_Info_set
#define PMPI_Info_set VPMPI_Info_set
#define MPI_Info_get VMPI_Info_get
#define PMPI_Info_get VPMPI_Info_get
#define MPI_Info_get_valuelen VMPI_Info_get_valuelen
#define PMPI_Info_get_valuelen VPMPI_Info_get_valuelen
#define MPI_Info_get_nkeys VMPI_Info_get_nkeys
#define PMPI_Info_get_nkeys VPMPI_Info_get_nkeys
#define MPI_Info_get_nthkey VMPI_Info_get_nthkey
#define PMPI_Info_get_nthkey VPMPI_Info_get_nthkey
#define MPI_Info_delete VMPI_Info_delete
#define PMPI_Info_delete VPMPI_Info_delete
#define MPI_Info_dup VMPI_Info_dup
#define PMPI_Info_dup VPMPI_Info_dup
#define MPI_Info_free VMPI_Info_free
#define PMPI_Info_free VPMPI_Info_free
#define MPI_Comm_create_errhandler VMPI_Comm_create_errhandler
#define PMPI_Comm_create_errhandler VPMPI_Comm_create_errhandler
#define MPI_Comm_set_errhandler VMPI_Comm_set_errhandler
#define PMPI_Comm_set_errhandler VPMPI_Comm_set_errhandler
#define MPI_Comm_get_errhandler VMPI_Comm_get_errhandler
#define PMPI_Comm_get_errhandler VPMPI_Comm_get_errhandler
#define MPI_Comm_call_errhandler VMPI_Comm_call_errhandler
#define PMPI_Comm_call_errhandler VPMPI_Comm_call_errhandler
#define MPI_Errhandler_create VMPI_Errhandler_create
#define PMPI_Errhandler_create VPMPI_Errhandler_create
#define MPI_Errhandler_set VMPI_Errhandler_set
#define PMPI_Errhandler_set VPMPI_Errhandler_set
#define MPI_Errhandler_get VMPI_Errhandler_get
#define PMPI_Errhandler_get VPMPI_Errhandler_get
#define MPI_Errhandler_free VMPI_Errhandler_free
#define PMPI_Errhandler_free VPMPI_Errhandler_free
#define MPI_Comm_c2f VMPI_Comm_c2f
#define PMPI_Comm_c2f VPMPI_Comm_c2f
#define MPI_Group_c2f VMPI_Group_c2f
#define PMPI_Group_c2f VPMPI_Group_c2f
#define MPI_Type_c2f VMPI_Type_c2f
#define PMPI_Type_c2f VPMPI_Type_c2f
#define MPI_Op_c2f VMPI_Op_c2f
#define PMPI_Op_c2f VPMPI_Op_c2f
#define MPI_Errhandler_c2f VMPI_Errhandler_c2f
#define PMPI_Errhandler_c2f VPMPI_Errhandler_c2f
#define MPI_Info_c2f VMPI_Info_c2f
#define PMPI_Info_c2f VPMPI_Info_c2f
#define MPI_Win_c2f VMPI_Win_c2f
#define PMPI_Win_c2f VPMPI_Win_c2f
#define MPI_Comm_f2c VMPI_Comm_f2c
#define PMPI_Comm_f2c VPMPI_Comm_f2c
#define MPI_Group_f2c VMPI_Group_f2c
#define PMPI_Group_f2c VPMPI_Group_f2c
#define MPI_Type_f2c VMPI_Type_f2c
#define PMPI_Type_f2c VPMPI_Type_f2c
#define MPI_Op_f2c VMPI_Op_f2c
#define PMPI_Op_f2c VPMPI_Op_f2c
#define MPI_Errhandler_f2c VMPI_Errhandler_f2c
#define PMPI_Errhandler_f2c VPMPI_Errhandler_f2c
#define MPI_Info_f2c VMPI_Info_f2c
#define PMPI_Info_f2c VPMPI_Info_f2c
#define MPI_Win_f2c VMPI_Win_f2c
#define PMPI_Win_f2c VPMPI_Win_f2c
VMPI_DECLARE(int, Init, (int* argc, char*** argv));
VMPI_DECLARE(int, Init_thread, (int* argc, char*** argv, int required, int* provided));
VMPI_DECLARE(int, Initialized, (int* flag));
VMPI_DECLARE(int, Finalize, (void));
VMPI_DECLARE(int, Finalized, (int* flag));
VMPI_DECLARE(int, Query_thread, (int* provided));
VMPI_DECLARE(int, Is_thread_main, (int* flag));
VMPI_DECLARE(int, Abort, (MPI_Comm comm, int errorcode));
VMPI_DECLARE(double, Wtime, (void));
VMPI_DECLARE(double, Wtick, (void));
VMPI_DECLARE(int, Get_processor_name, (char* name, int* resultlen));
VMPI_DECLARE(int, Get_version, (int* version, int* subversion));
VMPI_DECLARE(int, Get_library_version, (char* version, int* resultlen));
VMPI_DECLARE(int, Error_string, (int errorcode, char* string, int* resultlen));
VMPI_DECLARE(int, Error_class, (int errorcode, int* errorclass));
/* The program's own error classes and codes: numbered from MPI_ERR_LASTCODE + 1 on in the order
 * the rank adds them (MPI_LASTUSEDCODE gives the largest), each with its text. */
VMPI_DECLARE(int, Add_error_class, (int* errorclass));
VMPI_DECLARE(int, Add_error_code, (int errorclass, int* errorcode));
VMPI_DECLARE(int, Add_error_string, (int errorcode, const char* string));
/* A request's Fortran handle: a number the rank gives the request when first asked, the same
 * for the same request; 0 for MPI_REQUEST_NULL. */
VMPI_DECLARE(MPI_Fint, Request_c2f, (MPI_Request request));
VMPI_DECLARE(MPI_Request, Request_f2c, (MPI_Fint request));
/* A message's (MPI_Mprobe's) likewise, from the same numbers; MPI_MESSAGE_NO_PROC keeps its
 * handle's number. */
VMPI_DECLARE(MPI_Fint, Message_c2f, (MPI_Message message));
VMPI_DECLARE(MPI_Message, Message_f2c, (MPI_Fint message));
VMPI_DECLARE(int, Pcontrol, (const int level, ...));
VMPI_DECLARE(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void* baseptr));
VMPI_DECLARE(int, Free_mem, (void* base));
VMPI_DECLARE(int, Info_create, (MPI_Info * info));
VMPI_DECLARE(int, Info_set, (MPI_Info info, const char* key, const char* value));
VMPI_DECLARE(int, Info_get, (MPI_Info info, const char* key, int valuelen, char* value, int* flag));
VMPI_DECLARE(int, Info_get_valuelen, (MPI_Info info, const char* key, int* valuelen, int* flag));
VMPI_DECLARE(int, Info_get_nkeys, (MPI_Info info, int* nkeys));
VMPI_DECLARE(int, Info_get_nthkey, (MPI_Info info, int n, char* key));
VMPI_DECLARE(int, Info_delete, (MPI_Info info, const char* key));
VMPI_DECLARE(int, Info_dup, (MPI_Info info, MPI_Info* newinfo));
VMPI_DECLARE(int, Info_free, (MPI_Info * info));
VMPI_DECLARE(int, Comm_create_errhandler,
             (MPI_Comm_errhandler_function * function, MPI_Errhandler* errhandler));
VMPI_DECLARE(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler));
VMPI_DECLARE(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler* errhandler));
VMPI_DECLARE(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode));
VMPI_DECLARE(int, Errhandler_create, (MPI_Handler_function * function, MPI_Errhandler* errhandler));
VMPI_DECLARE(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler));
VMPI_DECLARE(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler* errhandler));
VMPI_DECLARE(int, Errhandler_free, (MPI_Errhandler * errhandler));
VMPI_DECLARE(MPI_Fint, Comm_c2f, (MPI_Comm comm));
VMPI_DECLARE(MPI_Fint, Group_c2f, (MPI_Group group));
VMPI_DECLARE(MPI_Fint, Type_c2f, (MPI_Datatype datatype));
VMPI_DECLARE(MPI_Fint, Op_c2f, (MPI_Op op));
VMPI_DECLARE(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler));
VMPI_DECLARE(MPI_Fint, Info_c2f, (MPI_Info info));
VMPI_DECLARE(MPI_Fint, Win_c2f, (MPI_Win win));
VMPI_DECLARE(MPI_Comm, Comm_f2c, (MPI_Fint comm));
VMPI_DECLARE(MPI_Group, Group_f2c, (MPI_Fint group));
VMPI_DECLARE(MPI_Datatype, Type_f2c, (MPI_Fint datatype));
VMPI_DECLARE(MPI_Op, Op_f2c, (MPI_Fint op));
VMPI_DECLARE(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler));
VMPI_DECLARE(MPI_Info, Info_f2c, (MPI_Fint info));
VMPI_DECLARE(MPI_Win, Win_f2c, (MPI_Fint win));

/* Groups and communicators */
#define MPI_Comm_rank VMPI_Comm_rank
#define PMPI_Comm_rank VPMPI_Comm_rank
#define MPI_Comm_size VMPI_Comm_size
#define PMPI_Comm_size VPMPI_Comm_size
#define MPI_Comm_idup VMPI_Comm_idup
#define PMPI_Comm_idup VPMPI_Comm_idup
#define MPI_Comm_dup VMPI_Comm_dup
#define PMPI_Comm_dup VPMPI_Comm_dup
#define MPI_Comm_dup_with_info VMPI_Comm_dup_with_info
#define PMPI_Comm_dup_with_info VPMPI_Comm_dup_with_info
#define MPI_Comm_split VMPI_Comm_split
#define PMPI_Comm_split VPMPI_Comm_split
#define MPI_Comm_split_type VMPI_Comm_split_type
#define PMPI_Comm_split_type VPMPI_Comm_split_type
#define MPI_Comm_create VMPI_Comm_create
#define PMPI_Comm_create VPMPI_Comm_create
#define MPI_Comm_create_group VMPI_Comm_create_group
#define PMPI_Comm_create_group VPMPI_Comm_create_group
#define MPI_Comm_free VMPI_Comm_free
#define PMPI_Comm_free VPMPI_Comm_free
#define MPI_Comm_compare VMPI_Comm_compare
#define PMPI_Comm_compare VPMPI_Comm_compare
#define MPI_Comm_set_name VMPI_Comm_set_name
#define PMPI_Comm_set_name VPMPI_Comm_set_name
#define MPI_Comm_get_name VMPI_Comm_get_name
#define PMPI_Comm_get_name VPMPI_Comm_get_name
#define MPI_Comm_test_inter VMPI_Comm_test_inter
#define PMPI_Comm_test_inter VPMPI_Comm_test_inter
#define MPI_Comm_remote_size VMPI_Comm_remote_size
#define PMPI_Comm_remote_size VPMPI_Comm_remote_size
#define MPI_Comm_remote_group VMPI_Comm_remote_group
#define PMPI_Comm_remote_group VPMPI_Comm_remote_group
#define MPI_Comm_group VMPI_Comm_group
#define PMPI_Comm_group VPMPI_Comm_group
#define MPI_Comm_set_info VMPI_Comm_set_info
#define PMPI_Comm_set_info VPMPI_Comm_set_info
#define MPI_Comm_get_info VMPI_Comm_get_info
#define PMPI_Comm_get_info VPMPI_Comm_get_info
#define MPI_Intercomm_create VMPI_Intercomm_create
#define PMPI_Intercomm_create VPMPI_Intercomm_create
#define MPI_Intercomm_merge VMPI_Intercomm_merge
#define PMPI_Intercomm_merge VPMPI_Intercomm_merge
#define MPI_Comm_create_keyval VMPI_Comm_create_keyval
#define PMPI_Comm_create_keyval VPMPI_Comm_create_keyval
#define MPI_Comm_free_keyval VMPI_Comm_free_keyval
#define PMPI_Comm_free_keyval VPMPI_Comm_free_keyval
#define MPI_Comm_set_attr VMPI_Comm_set_attr
#define PMPI_Comm_set_attr VPMPI_Comm_set_attr
#define MPI_Comm_get_attr VMPI_Comm_get_attr
#define PMPI_Comm_get_attr VPMPI_Comm_get_attr
#define MPI_Comm_delete_attr VMPI_Comm_delete_attr
#define PMPI_Comm_delete_attr VPMPI_Comm_delete_attr
#define MPI_Keyval_create VMPI_Keyval_create
#define PMPI_Keyval_create VPMPI_Keyval_create
#define MPI_Keyval_free VMPI_Keyval_free
#define PMPI_Keyval_free VPMPI_Keyval_free
#define MPI_Attr_put VMPI_Attr_put
#define PMPI_Attr_put VPMPI_Attr_put
#define MPI_Attr_get VMPI_Attr_get
#define PMPI_Attr_get VPMPI_Attr_get
#define MPI_Attr_delete VMPI_Attr_delete
#define PMPI_Attr_delete VPMPI_Attr_delete
#define MPI_Group_size VMPI_Group_size
#define PMPI_Group_size VPMPI_Group_size
#define MPI_Group_rank VMPI_Group_rank
#define PMPI_Group_rank VPMPI_Group_rank
#define MPI_Group_translate_ranks VMPI_Group_translate_ranks
#define PMPI_Group_translate_ranks VPMPI_Group_translate_ranks
#define MPI_Group_compare VMPI_Group_compare
#define PMPI_Group_compare VPMPI_Group_compare
#define MPI_Group_union VMPI_Group_union
#define PMPI_Group_union VPMPI_Group_union
#define MPI_Group_intersection VMPI_Group_intersection
#define PMPI_Group_intersection VPMPI_Group_intersection
#define MPI_Group_difference VMPI_Group_difference
#define PMPI_Group_difference VPMPI_Group_difference
#define MPI_Group_incl VMPI_Group_incl
#define PMPI_Group_incl VPMPI_Group_incl
#define MPI_Group_excl VMPI_Group_excl
#define PMPI_Group_excl VPMPI_Group_excl
#define MPI_Group_range_incl VMPI_Group_range_incl
#define PMPI_Group_range_incl VPMPI_Group_range_incl
#define MPI_Group_range_excl VMPI_Group_range_excl
#define PMPI_Group_range_excl VPMPI_Group_range_excl
#define MPI_Group_free VMPI_Group_free
#define PMPI_Group_free VPMPI_Group_free
VMPI_DECLARE(int, Comm_rank, (MPI_Comm comm, int* rank));
VMPI_DECLARE(int, Comm_size, (MPI_Comm comm, int* size));
VMPI_DECLARE(int, Comm_dup, (MPI_Comm comm, MPI_Comm* newcomm));
VMPI_DECLARE(int, Comm_idup, (MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request));
VMPI_DECLARE(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm));
VMPI_DECLARE(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm* newcomm));
VMPI_DECLARE(int, Comm_split_type,
             (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm));
VMPI_DECLARE(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm));
VMPI_DECLARE(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm));
VMPI_DECLARE(int, Comm_free, (MPI_Comm * comm));
VMPI_DECLARE(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int* result));
VMPI_DECLARE(int, Comm_set_name, (MPI_Comm comm, const char* comm_name));
VMPI_DECLARE(int, Comm_get_name, (MPI_Comm comm, char* comm_name, int* resultlen));
VMPI_DECLARE(int, Comm_test_inter, (MPI_Comm comm, int* flag));
VMPI_DECLARE(int, Comm_remote_size, (MPI_Comm comm, int* size));
VMPI_DECLARE(int, Comm_remote_group, (MPI_Comm comm, MPI_Group* group));
VMPI_DECLARE(int, Comm_group, (MPI_Comm comm, MPI_Group* group));
VMPI_DECLARE(int, Comm_set_info, (MPI_Comm comm, MPI_Info info));
VMPI_DECLARE(int, Comm_get_info, (MPI_Comm comm, MPI_Info* info_used));
VMPI_DECLARE(int, Intercomm_create,
             (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
              MPI_Comm* newintercomm));
VMPI_DECLARE(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm* newintracomm));
VMPI_DECLARE(int, Comm_create_keyval,
             (MPI_Comm_copy_attr_function * comm_copy_attr_fn,
              MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
              void* extra_state));
VMPI_DECLARE(int, Comm_free_keyval, (int* comm_keyval));
VMPI_DECLARE(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void* attribute_val));
VMPI_DECLARE(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag));
VMPI_DECLARE(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval));
VMPI_DECLARE(int, Keyval_create,
             (MPI_Copy_function * copy_fn, MPI_Delete_function* delete_fn, int* keyval,
              void* extra_state));
VMPI_DECLARE(int, Keyval_free, (int* keyval));
VMPI_DECLARE(int, Attr_put, (MPI_Comm comm, int keyval, void* attribute_val));
VMPI_DECLARE(int, Attr_get, (MPI_Comm comm, int keyval, void* attribute_val, int* flag));
VMPI_DECLARE(int, Attr_delete, (MPI_Comm comm, int keyval));
VMPI_DECLARE(int, Group_size, (MPI_Group group, int* size));
VMPI_DECLARE(int, Group_rank, (MPI_Group group, int* rank));
VMPI_DECLARE(int, Group_translate_ranks,
             (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]));
VMPI_DECLARE(int, Group_compare, (MPI_Group group1, MPI_Group group2, int* result));
VMPI_DECLARE(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup));
VMPI_DECLARE(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup));
VMPI_DECLARE(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup));
VMPI_DECLARE(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group* newgroup));
VMPI_DECLARE(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group* newgroup));
VMPI_DECLARE(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup));
VMPI_DECLARE(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup));
VMPI_DECLARE(int, Group_free, (MPI_Group * group));

/* Point-to-point */
#define MPI_Send VMPI_Send
#define PMPI_Send VPMPI_Send
#define MPI_Ssend VMPI_Ssend
#define PMPI_Ssend VPMPI_Ssend
#define MPI_Rsend VMPI_Rsend
#define PMPI_Rsend VPMPI_Rsend
#define MPI_Bsend VMPI_Bsend
#define PMPI_Bsend VPMPI_Bsend
#define MPI_Recv VMPI_Recv
#define PMPI_Recv VPMPI_Recv
#define MPI_Isend VMPI_Isend
#define PMPI_Isend VPMPI_Isend
#define MPI_Issend VMPI_Issend
#define PMPI_Issend VPMPI_Issend
#define MPI_Irsend VMPI_Irsend
#define PMPI_Irsend VPMPI_Irsend
#define MPI_Ibsend VMPI_Ibsend
#define PMPI_Ibsend VPMPI_Ibsend
#define MPI_Irecv VMPI_Irecv
#define PMPI_Irecv VPMPI_Irecv
#define MPI_Buffer_attach VMPI_Buffer_attach
#define PMPI_Buffer_attach VPMPI_Buffer_attach
#define MPI_Buffer_detach VMPI_Buffer_detach
#define PMPI_Buffer_detach VPMPI_Buffer_detach
#define MPI_Wait VMPI_Wait
#define PMPI_Wait VPMPI_Wait
#define MPI_Waitall VMPI_Waitall
#define PMPI_Waitall VPMPI_Waitall
#define MPI_Waitany VMPI_Waitany
#define PMPI_Waitany VPMPI_Waitany
#define MPI_Waitsome VMPI_Waitsome
#define PMPI_Waitsome VPMPI_Waitsome
#define MPI_Test VMPI_Test
#define PMPI_Test VPMPI_Test
#define MPI_Testall VMPI_Testall
#define PMPI_Testall VPMPI_Testall
#define MPI_Testany VMPI_Testany
#define PMPI_Testany VPMPI_Testany
#define MPI_Testsome VMPI_Testsome
#define PMPI_Testsome VPMPI_Testsome
#define MPI_Request_free VMPI_Request_free
#define PMPI_Request_free VPMPI_Request_free
#define MPI_Request_get_status VMPI_Request_get_status
#define PMPI_Request_get_status VPMPI_Request_get_status
#define MPI_Send_init VMPI_Send_init
#define PMPI_Send_init VPMPI_Send_init
#define MPI_Ssend_init VMPI_Ssend_init
#define PMPI_Ssend_init VPMPI_Ssend_init
#define MPI_Rsend_init VMPI_Rsend_init
#define PMPI_Rsend_init VPMPI_Rsend_init
#define MPI_Bsend_init VMPI_Bsend_init
#define PMPI_Bsend_init VPMPI_Bsend_init
#define MPI_Recv_init VMPI_Recv_init
#define PMPI_Recv_init VPMPI_Recv_init
#define MPI_Start VMPI_Start
#define PMPI_Start VPMPI_Start
#define MPI_Startall VMPI_Startall
#define PMPI_Startall VPMPI_Startall
#define MPI_Sendrecv VMPI_Sendrecv
#define PMPI_Sendrecv VPMPI_Sendrecv
#define MPI_Sendrecv_replace VMPI_Sendrecv_replace
#define PMPI_Sendrecv_replace VPMPI_Sendrecv_replace
#define MPI_Probe VMPI_Probe
#define PMPI_Probe VPMPI_Probe
#define MPI_Iprobe VMPI_Iprobe
#define PMPI_Iprobe VPMPI_Iprobe
#define MPI_Get_count VMPI_Get_count
#define PMPI_Get_count VPMPI_Get_count
#define MPI_Status_set_cancelled VMPI_Status_set_cancelled
#define PMPI_Status_set_cancelled VPMPI_Status_set_cancelled
#define MPI_Mprobe VMPI_Mprobe
#define PMPI_Mprobe VPMPI_Mprobe
#define MPI_Improbe VMPI_Improbe
#define PMPI_Improbe VPMPI_Improbe
#define MPI_Mrecv VMPI_Mrecv
#define PMPI_Mrecv VPMPI_Mrecv
#define MPI_Imrecv VMPI_Imrecv
#define PMPI_Imrecv VPMPI_Imrecv
#define MPI_Cancel VMPI_Cancel
#define PMPI_Cancel VPMPI_Cancel
#define MPI_Test_cancelled VMPI_Test_cancelled
#define PMPI_Test_cancelled VPMPI_Test_cancelled
VMPI_DECLARE(int, Send,
             (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
VMPI_DECLARE(int, Ssend,
             (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
VMPI_DECLARE(int, Rsend,
             (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
VMPI_DECLARE(int, Bsend,
             (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
VMPI_DECLARE(int, Recv,
             (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status* status));
VMPI_DECLARE(int, Isend,
             (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Issend,
             (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Irsend,
             (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Ibsend,
             (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Irecv,
             (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Buffer_attach, (void* buffer, int size));
VMPI_DECLARE(int, Buffer_detach, (void* buffer_addr, int* size));
VMPI_DECLARE(int, Wait, (MPI_Request * request, MPI_Status* status));
VMPI_DECLARE(int, Waitall, (int count, MPI_Request requests[], MPI_Status statuses[]));
VMPI_DECLARE(int, Waitany, (int count, MPI_Request requests[], int* index, MPI_Status* status));
VMPI_DECLARE(int, Waitsome,
             (int incount, MPI_Request requests[], int* outcount, int indices[],
              MPI_Status statuses[]));
VMPI_DECLARE(int, Test, (MPI_Request * request, int* flag, MPI_Status* status));
VMPI_DECLARE(int, Testall, (int count, MPI_Request requests[], int* flag, MPI_Status statuses[]));
VMPI_DECLARE(int, Testany,
             (int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status));
VMPI_DECLARE(int, Testsome,
             (int incount, MPI_Request requests[], int* outcount, int indices[],
              MPI_Status statuses[]));
VMPI_DECLARE(int, Request_free, (MPI_Request * request));
VMPI_DECLARE(int, Request_get_status, (MPI_Request request, int* flag, MPI_Status* status));
VMPI_DECLARE(int, Send_init,
             (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Ssend_init,
             (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Rsend_init,
             (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Bsend_init,
             (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Recv_init,
             (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Start, (MPI_Request * request));
VMPI_DECLARE(int, Startall, (int count, MPI_Request requests[]));
VMPI_DECLARE(int, Sendrecv,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
              MPI_Comm comm, MPI_Status* status));
VMPI_DECLARE(int, Sendrecv_replace,
             (void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
              int recvtag, MPI_Comm comm, MPI_Status* status));
VMPI_DECLARE(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status* status));
VMPI_DECLARE(int, Iprobe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status));
VMPI_DECLARE(int, Get_count, (const MPI_Status* status, MPI_Datatype datatype, int* count));
VMPI_DECLARE(int, Status_set_cancelled, (MPI_Status * status, int flag));
VMPI_DECLARE(int, Mprobe,
             (int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status));
VMPI_DECLARE(int, Improbe,
             (int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
              MPI_Status* status));
VMPI_DECLARE(int, Mrecv,
             (void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
              MPI_Status* status));
VMPI_DECLARE(int, Imrecv,
             (void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
              MPI_Request* request));
VMPI_DECLARE(int, Cancel, (MPI_Request * request));
VMPI_DECLARE(int, Test_cancelled, (const MPI_Status* status, int* flag));

/* Collectives */
#define MPI_Barrier VMPI_Barrier
#define PMPI_Barrier VPMPI_Barrier
#define MPI_Bcast VMPI_Bcast
#define PMPI_Bcast VPMPI_Bcast
#define MPI_Reduce VMPI_Reduce
#define PMPI_Reduce VPMPI_Reduce
#define MPI_Allreduce VMPI_Allreduce
#define PMPI_Allreduce VPMPI_Allreduce
#define MPI_Reduce_local VMPI_Reduce_local
#define PMPI_Reduce_local VPMPI_Reduce_local
#define MPI_Reduce_scatter VMPI_Reduce_scatter
#define PMPI_Reduce_scatter VPMPI_Reduce_scatter
#define MPI_Reduce_scatter_block VMPI_Reduce_scatter_block
#define PMPI_Reduce_scatter_block VPMPI_Reduce_scatter_block
#define MPI_Scan VMPI_Scan
#define PMPI_Scan VPMPI_Scan
#define MPI_Exscan VMPI_Exscan
#define PMPI_Exscan VPMPI_Exscan
#define MPI_Gather VMPI_Gather
#define PMPI_Gather VPMPI_Gather
#define MPI_Gatherv VMPI_Gatherv
#define PMPI_Gatherv VPMPI_Gatherv
#define MPI_Scatter VMPI_Scatter
#define PMPI_Scatter VPMPI_Scatter
#define MPI_Scatterv VMPI_Scatterv
#define PMPI_Scatterv VPMPI_Scatterv
#define MPI_Allgather VMPI_Allgather
#define PMPI_Allgather VPMPI_Allgather
#define MPI_Allgatherv VMPI_Allgatherv
#define PMPI_Allgatherv VPMPI_Allgatherv
#define MPI_Alltoall VMPI_Alltoall
#define PMPI_Alltoall VPMPI_Alltoall
#define MPI_Alltoallv VMPI_Alltoallv
#define PMPI_Alltoallv VPMPI_Alltoallv
#define MPI_Alltoallw VMPI_Alltoallw
#define PMPI_Alltoallw VPMPI_Alltoallw
#define MPI_Op_create VMPI_Op_create
#define PMPI_Op_create VPMPI_Op_create
#define MPI_Op_free VMPI_Op_free
#define PMPI_Op_free VPMPI_Op_free
#define MPI_Op_commutative VMPI_Op_commutative
#define PMPI_Op_commutative VPMPI_Op_commutative
VMPI_DECLARE(int, Barrier, (MPI_Comm comm));
VMPI_DECLARE(int, Bcast, (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm));
VMPI_DECLARE(int, Reduce,
             (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              int root, MPI_Comm comm));
VMPI_DECLARE(int, Allreduce,
             (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm));
VMPI_DECLARE(int, Reduce_local,
             (const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op));
VMPI_DECLARE(int, Reduce_scatter,
             (const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm));
VMPI_DECLARE(int, Reduce_scatter_block,
             (const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm));
VMPI_DECLARE(int, Scan,
             (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm));
VMPI_DECLARE(int, Exscan,
             (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm));
VMPI_DECLARE(int, Gather,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
VMPI_DECLARE(int, Gatherv,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
              MPI_Comm comm));
VMPI_DECLARE(int, Scatter,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
VMPI_DECLARE(int, Scatterv,
             (const void* sendbuf, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
              MPI_Comm comm));
VMPI_DECLARE(int, Allgather,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
VMPI_DECLARE(int, Allgatherv,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
VMPI_DECLARE(int, Alltoall,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
VMPI_DECLARE(int, Alltoallv,
             (const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm));
VMPI_DECLARE(int, Alltoallw,
             (const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
VMPI_DECLARE(int, Op_create, (MPI_User_function * user_fn, int commute, MPI_Op* op));
VMPI_DECLARE(int, Op_free, (MPI_Op * op));
VMPI_DECLARE(int, Op_commutative, (MPI_Op op, int* commute));

/* Datatypes */
#define MPI_Type_size VMPI_Type_size
#define PMPI_Type_size VPMPI_Type_size
#define MPI_Type_size_x VMPI_Type_size_x
#define PMPI_Type_size_x VPMPI_Type_size_x
#define MPI_Get_address VMPI_Get_address
#define PMPI_Get_address VPMPI_Get_address
#define MPI_Address VMPI_Address
#define PMPI_Address VPMPI_Address
#define MPI_Aint_add VMPI_Aint_add
#define PMPI_Aint_add VPMPI_Aint_add
#define MPI_Aint_diff VMPI_Aint_diff
#define PMPI_Aint_diff VPMPI_Aint_diff
#define MPI_Type_contiguous VMPI_Type_contiguous
#define PMPI_Type_contiguous VPMPI_Type_contiguous
#define MPI_Type_vector VMPI_Type_vector
#define PMPI_Type_vector VPMPI_Type_vector
#define MPI_Type_create_hvector VMPI_Type_create_hvector
#define PMPI_Type_create_hvector VPMPI_Type_create_hvector
#define MPI_Type_hvector VMPI_Type_hvector
#define PMPI_Type_hvector VPMPI_Type_hvector
#define MPI_Type_indexed VMPI_Type_indexed
#define PMPI_Type_indexed VPMPI_Type_indexed
#define MPI_Type_create_hindexed VMPI_Type_create_hindexed
#define PMPI_Type_create_hindexed VPMPI_Type_create_hindexed
#define MPI_Type_hindexed VMPI_Type_hindexed
#define PMPI_Type_hindexed VPMPI_Type_hindexed
#define MPI_Type_create_indexed_block VMPI_Type_create_indexed_block
#define PMPI_Type_create_indexed_block VPMPI_Type_create_indexed_block
#define MPI_Type_create_hindexed_block VMPI_Type_create_hindexed_block
#define PMPI_Type_create_hindexed_block VPMPI_Type_create_hindexed_block
#define MPI_Type_create_struct VMPI_Type_create_struct
#define PMPI_Type_create_struct VPMPI_Type_create_struct
#define MPI_Type_struct VMPI_Type_struct
#define PMPI_Type_struct VPMPI_Type_struct
#define MPI_Type_create_subarray VMPI_Type_create_subarray
#define PMPI_Type_create_subarray VPMPI_Type_create_subarray
#define MPI_Type_create_darray VMPI_Type_create_darray
#define PMPI_Type_create_darray VPMPI_Type_create_darray
#define MPI_Type_create_resized VMPI_Type_create_resized
#define PMPI_Type_create_resized VPMPI_Type_create_resized
#define MPI_Type_dup VMPI_Type_dup
#define PMPI_Type_dup VPMPI_Type_dup
#define MPI_Type_commit VMPI_Type_commit
#define PMPI_Type_commit VPMPI_Type_commit
#define MPI_Type_free VMPI_Type_free
#define PMPI_Type_free VPMPI_Type_free
#define MPI_Type_get_extent VMPI_Type_get_extent
#define PMPI_Type_get_extent VPMPI_Type_get_extent
#define MPI_Type_get_extent_x VMPI_Type_get_extent_x
#define PMPI_Type_get_extent_x VPMPI_Type_get_extent_x
#define MPI_Type_get_true_extent VMPI_Type_get_true_extent
#define PMPI_Type_get_true_extent VPMPI_Type_get_true_extent
#define MPI_Type_get_true_extent_x VMPI_Type_get_true_extent_x
#define PMPI_Type_get_true_extent_x VPMPI_Type_get_true_extent_x
#define MPI_Type_extent VMPI_Type_extent
#define PMPI_Type_extent VPMPI_Type_extent
#define MPI_Type_lb VMPI_Type_lb
#define PMPI_Type_lb VPMPI_Type_lb
#define MPI_Type_ub VMPI_Type_ub
#define PMPI_Type_ub VPMPI_Type_ub
#define MPI_Type_set_name VMPI_Type_set_name
#define PMPI_Type_set_name VPMPI_Type_set_name
#define MPI_Type_get_name VMPI_Type_get_name
#define PMPI_Type_get_name VPMPI_Type_get_name
#define MPI_Type_get_envelope VMPI_Type_get_envelope
#define PMPI_Type_get_envelope VPMPI_Type_get_envelope
#define MPI_Type_get_contents VMPI_Type_get_contents
#define PMPI_Type_get_contents VPMPI_Type_get_contents
#define MPI_Type_match_size VMPI_Type_match_size
#define PMPI_Type_match_size VPMPI_Type_match_size
#define MPI_Get_elements VMPI_Get_elements
#define PMPI_Get_elements VPMPI_Get_elements
#define MPI_Get_elements_x VMPI_Get_elements_x
#define PMPI_Get_elements_x VPMPI_Get_elements_x
#define MPI_Pack VMPI_Pack
#define PMPI_Pack VPMPI_Pack
#define MPI_Unpack VMPI_Unpack
#define PMPI_Unpack VPMPI_Unpack
#define MPI_Pack_size VMPI_Pack_size
#define PMPI_Pack_size VPMPI_Pack_size
#define MPI_Pack_external VMPI_Pack_external
#define PMPI_Pack_external VPMPI_Pack_external
#define MPI_Unpack_external VMPI_Unpack_external
#define PMPI_Unpack_external VPMPI_Unpack_external
#define MPI_Pack_external_size VMPI_Pack_external_size
#define PMPI_Pack_external_size VPMPI_Pack_external_size
VMPI_DECLARE(int, Type_size, (MPI_Datatype datatype, int* size));
VMPI_DECLARE(int, Type_size_x, (MPI_Datatype datatype, MPI_Count* size));
VMPI_DECLARE(int, Get_address, (const void* location, MPI_Aint* address));
VMPI_DECLARE(int, Address, (void* location, MPI_Aint* address));
VMPI_DECLARE(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp));
VMPI_DECLARE(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2));
VMPI_DECLARE(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_vector,
             (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_create_hvector,
             (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
              MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_hvector,
             (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
              MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_indexed,
             (int count, const int array_of_blocklengths[], const int array_of_displacements[],
              MPI_Datatype oldtype, MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_create_hindexed,
             (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
              MPI_Datatype oldtype, MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_hindexed,
             (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
              MPI_Datatype oldtype, MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_create_indexed_block,
             (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype,
              MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_create_hindexed_block,
             (int count, int blocklength, const MPI_Aint array_of_displacements[],
              MPI_Datatype oldtype, MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_create_struct,
             (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
              const MPI_Datatype array_of_types[], MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_struct,
             (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
              const MPI_Datatype array_of_types[], MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_create_subarray,
             (int ndims, const int array_of_sizes[], const int array_of_subsizes[],
              const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_create_darray,
             (int size, int rank, int ndims, const int array_of_gsizes[],
              const int array_of_distribs[], const int array_of_dargs[],
              const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_create_resized,
             (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_commit, (MPI_Datatype * datatype));
VMPI_DECLARE(int, Type_free, (MPI_Datatype * datatype));
VMPI_DECLARE(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent));
VMPI_DECLARE(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent));
VMPI_DECLARE(int, Type_get_true_extent,
             (MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent));
VMPI_DECLARE(int, Type_get_true_extent_x,
             (MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent));
VMPI_DECLARE(int, Type_extent, (MPI_Datatype datatype, MPI_Aint* extent));
VMPI_DECLARE(int, Type_lb, (MPI_Datatype datatype, MPI_Aint* displacement));
VMPI_DECLARE(int, Type_ub, (MPI_Datatype datatype, MPI_Aint* displacement));
VMPI_DECLARE(int, Type_set_name, (MPI_Datatype datatype, const char* type_name));
VMPI_DECLARE(int, Type_get_name, (MPI_Datatype datatype, char* type_name, int* resultlen));
VMPI_DECLARE(int, Type_get_envelope,
             (MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes,
              int* combiner));
VMPI_DECLARE(int, Type_get_contents,
             (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
              int array_of_integers[], MPI_Aint array_of_addresses[],
              MPI_Datatype array_of_datatypes[]));
VMPI_DECLARE(int, Type_match_size, (int typeclass, int size, MPI_Datatype* datatype));
VMPI_DECLARE(int, Get_elements, (const MPI_Status* status, MPI_Datatype datatype, int* count));
VMPI_DECLARE(int, Get_elements_x,
             (const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count));
VMPI_DECLARE(int, Pack,
             (const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
              int* position, MPI_Comm comm));
VMPI_DECLARE(int, Unpack,
             (const void* inbuf, int insize, int* position, void* outbuf, int outcount,
              MPI_Datatype datatype, MPI_Comm comm));
VMPI_DECLARE(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int* size));
VMPI_DECLARE(int, Pack_external,
             (const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype,
              void* outbuf, MPI_Aint outsize, MPI_Aint* position));
VMPI_DECLARE(int, Unpack_external,
             (const char* datarep, const void* inbuf, MPI_Aint insize, MPI_Aint* position,
              void* outbuf, int outcount, MPI_Datatype datatype));
VMPI_DECLARE(int, Pack_external_size,
             (const char* datarep, int incount, MPI_Datatype datatype, MPI_Aint* size));

/* Nonblocking collectives */
#define MPI_Ibarrier VMPI_Ibarrier
#define PMPI_Ibarrier VPMPI_Ibarrier
#define MPI_Ibcast VMPI_Ibcast
#define PMPI_Ibcast VPMPI_Ibcast
#define MPI_Ireduce VMPI_Ireduce
#define PMPI_Ireduce VPMPI_Ireduce
#define MPI_Iallreduce VMPI_Iallreduce
#define PMPI_Iallreduce VPMPI_Iallreduce
#define MPI_Iscan VMPI_Iscan
#define PMPI_Iscan VPMPI_Iscan
#define MPI_Iexscan VMPI_Iexscan
#define PMPI_Iexscan VPMPI_Iexscan
#define MPI_Ireduce_scatter_block VMPI_Ireduce_scatter_block
#define PMPI_Ireduce_scatter_block VPMPI_Ireduce_scatter_block
#define MPI_Ireduce_scatter VMPI_Ireduce_scatter
#define PMPI_Ireduce_scatter VPMPI_Ireduce_scatter
#define MPI_Igather VMPI_Igather
#define PMPI_Igather VPMPI_Igather
#define MPI_Igatherv VMPI_Igatherv
#define PMPI_Igatherv VPMPI_Igatherv
#define MPI_Iscatter VMPI_Iscatter
#define PMPI_Iscatter VPMPI_Iscatter
#define MPI_Iscatterv VMPI_Iscatterv
#define PMPI_Iscatterv VPMPI_Iscatterv
#define MPI_Iallgather VMPI_Iallgather
#define PMPI_Iallgather VPMPI_Iallgather
#define MPI_Iallgatherv VMPI_Iallgatherv
#define PMPI_Iallgatherv VPMPI_Iallgatherv
#define MPI_Ialltoall VMPI_Ialltoall
#define PMPI_Ialltoall VPMPI_Ialltoall
#define MPI_Ialltoallv VMPI_Ialltoallv
#define PMPI_Ialltoallv VPMPI_Ialltoallv
#define MPI_Ineighbor_allgather VMPI_Ineighbor_allgather
#define PMPI_Ineighbor_allgather VPMPI_Ineighbor_allgather
#define MPI_Ineighbor_allgatherv VMPI_Ineighbor_allgatherv
#define PMPI_Ineighbor_allgatherv VPMPI_Ineighbor_allgatherv
#define MPI_Ineighbor_alltoall VMPI_Ineighbor_alltoall
#define PMPI_Ineighbor_alltoall VPMPI_Ineighbor_alltoall
#define MPI_Ineighbor_alltoallv VMPI_Ineighbor_alltoallv
#define PMPI_Ineighbor_alltoallv VPMPI_Ineighbor_alltoallv
#define MPI_Ineighbor_alltoallw VMPI_Ineighbor_alltoallw
#define PMPI_Ineighbor_alltoallw VPMPI_Ineighbor_alltoallw
#define MPI_Ialltoallw VMPI_Ialltoallw
#define PMPI_Ialltoallw VPMPI_Ialltoallw
VMPI_DECLARE(int, Ibarrier, (MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Ibcast,
             (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Ireduce,
             (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              int root, MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Iallreduce,
             (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Iscan,
             (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Iexscan,
             (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Ireduce_scatter_block,
             (const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Ireduce_scatter,
             (const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Igather,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Igatherv,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
              MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Iscatter,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Iscatterv,
             (const void* sendbuf, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
              MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Iallgather,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Iallgatherv,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Ialltoall,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Ialltoallv,
             (const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Ineighbor_allgather,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Ineighbor_allgatherv,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Ineighbor_alltoall,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Ineighbor_alltoallv,
             (const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request));
VMPI_DECLARE(int, Ineighbor_alltoallw,
             (const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
              MPI_Request* request));
VMPI_DECLARE(int, Ialltoallw,
             (const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
              MPI_Request* request));

/* Topologies */
#define MPI_Dims_create VMPI_Dims_create
#define PMPI_Dims_create VPMPI_Dims_create
#define MPI_Cart_create VMPI_Cart_create
#define PMPI_Cart_create VPMPI_Cart_create
#define MPI_Cart_coords VMPI_Cart_coords
#define PMPI_Cart_coords VPMPI_Cart_coords
#define MPI_Cart_rank VMPI_Cart_rank
#define PMPI_Cart_rank VPMPI_Cart_rank
#define MPI_Cart_shift VMPI_Cart_shift
#define PMPI_Cart_shift VPMPI_Cart_shift
#define MPI_Cart_sub VMPI_Cart_sub
#define PMPI_Cart_sub VPMPI_Cart_sub
#define MPI_Cart_get VMPI_Cart_get
#define PMPI_Cart_get VPMPI_Cart_get
#define MPI_Cartdim_get VMPI_Cartdim_get
#define PMPI_Cartdim_get VPMPI_Cartdim_get
#define MPI_Cart_map VMPI_Cart_map
#define PMPI_Cart_map VPMPI_Cart_map
#define MPI_Topo_test VMPI_Topo_test
#define PMPI_Topo_test VPMPI_Topo_test
#define MPI_Graph_create VMPI_Graph_create
#define PMPI_Graph_create VPMPI_Graph_create
#define MPI_Graphdims_get VMPI_Graphdims_get
#define PMPI_Graphdims_get VPMPI_Graphdims_get
#define MPI_Graph_get VMPI_Graph_get
#define PMPI_Graph_get VPMPI_Graph_get
#define MPI_Graph_neighbors_count VMPI_Graph_neighbors_count
#define PMPI_Graph_neighbors_count VPMPI_Graph_neighbors_count
#define MPI_Graph_neighbors VMPI_Graph_neighbors
#define PMPI_Graph_neighbors VPMPI_Graph_neighbors
#define MPI_Graph_map VMPI_Graph_map
#define PMPI_Graph_map VPMPI_Graph_map
#define MPI_Dist_graph_create_adjacent VMPI_Dist_graph_create_adjacent
#define PMPI_Dist_graph_create_adjacent VPMPI_Dist_graph_create_adjacent
#define MPI_Dist_graph_create VMPI_Dist_graph_create
#define PMPI_Dist_graph_create VPMPI_Dist_graph_create
#define MPI_Dist_graph_neighbors_count VMPI_Dist_graph_neighbors_count
#define PMPI_Dist_graph_neighbors_count VPMPI_Dist_graph_neighbors_count
#define MPI_Dist_graph_neighbors VMPI_Dist_graph_neighbors
#define PMPI_Dist_graph_neighbors VPMPI_Dist_graph_neighbors
#define MPI_Neighbor_allgather VMPI_Neighbor_allgather
#define PMPI_Neighbor_allgather VPMPI_Neighbor_allgather
#define MPI_Neighbor_allgatherv VMPI_Neighbor_allgatherv
#define PMPI_Neighbor_allgatherv VPMPI_Neighbor_allgatherv
#define MPI_Neighbor_alltoall VMPI_Neighbor_alltoall
#define PMPI_Neighbor_alltoall VPMPI_Neighbor_alltoall
#define MPI_Neighbor_alltoallv VMPI_Neighbor_alltoallv
#define PMPI_Neighbor_alltoallv VPMPI_Neighbor_alltoallv
#define MPI_Neighbor_alltoallw VMPI_Neighbor_alltoallw
#define PMPI_Neighbor_alltoallw VPMPI_Neighbor_alltoallw
VMPI_DECLARE(int, Dims_create, (int nnodes, int ndims, int dims[]));
VMPI_DECLARE(int, Cart_create,
             (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
              MPI_Comm* comm_cart));
VMPI_DECLARE(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]));
VMPI_DECLARE(int, Cart_rank, (MPI_Comm comm, const int coords[], int* rank));
VMPI_DECLARE(int, Cart_shift,
             (MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest));
VMPI_DECLARE(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm));
VMPI_DECLARE(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]));
VMPI_DECLARE(int, Cartdim_get, (MPI_Comm comm, int* ndims));
VMPI_DECLARE(int, Cart_map,
             (MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank));
VMPI_DECLARE(int, Topo_test, (MPI_Comm comm, int* status));
VMPI_DECLARE(int, Graph_create,
             (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
              MPI_Comm* comm_graph));
VMPI_DECLARE(int, Graphdims_get, (MPI_Comm comm, int* nnodes, int* nedges));
VMPI_DECLARE(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]));
VMPI_DECLARE(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int* nneighbors));
VMPI_DECLARE(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]));
VMPI_DECLARE(int, Graph_map,
             (MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank));
VMPI_DECLARE(int, Dist_graph_create_adjacent,
             (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
              int outdegree, const int destinations[], const int destweights[], MPI_Info info,
              int reorder, MPI_Comm* comm_dist_graph));
VMPI_DECLARE(int, Dist_graph_create,
             (MPI_Comm comm_old, int n, const int sources[], const int degrees[],
              const int destinations[], const int weights[], MPI_Info info, int reorder,
              MPI_Comm* comm_dist_graph));
VMPI_DECLARE(int, Dist_graph_neighbors_count,
             (MPI_Comm comm, int* indegree, int* outdegree, int* weighted));
VMPI_DECLARE(int, Dist_graph_neighbors,
             (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
              int destinations[], int destweights[]));
VMPI_DECLARE(int, Neighbor_allgather,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
VMPI_DECLARE(int, Neighbor_allgatherv,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
VMPI_DECLARE(int, Neighbor_alltoall,
             (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
VMPI_DECLARE(int, Neighbor_alltoallv,
             (const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm));
VMPI_DECLARE(int, Neighbor_alltoallw,
             (const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));

/* Fortran 90 parameterized types (the gfortran kinds that hold them, predefined) */
VMPI_DECLARE(int, Type_create_f90_integer, (int r, MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_create_f90_real, (int p, int r, MPI_Datatype* newtype));
VMPI_DECLARE(int, Type_create_f90_complex, (int p, int r, MPI_Datatype* newtype));

VMPI_DECLARE(int, Status_set_elements, (MPI_Status * status, MPI_Datatype datatype, int count));
VMPI_DECLARE(int, Status_set_elements_x,
             (MPI_Status * status, MPI_Datatype datatype, MPI_Count count));
/* Generalized requests */
VMPI_DECLARE(int, Grequest_start,
             (MPI_Grequest_query_function * query_fn, MPI_Grequest_free_function* free_fn,
              MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request));
VMPI_DECLARE(int, Grequest_complete, (MPI_Request request));
/* Attributes on datatypes */
VMPI_DECLARE(int, Type_create_keyval,
             (MPI_Type_copy_attr_function * type_copy_attr_fn,
              MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
              void* extra_state));
VMPI_DECLARE(int, Type_free_keyval, (int* type_keyval));
VMPI_DECLARE(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void* attribute_val));
VMPI_DECLARE(int, Type_get_attr,
             (MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag));
VMPI_DECLARE(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval));

/* One-sided communication (chapter 11) */
VMPI_DECLARE(int, Win_create,
             (void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
              MPI_Win* win));
VMPI_DECLARE(int, Win_allocate,
             (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
              MPI_Win* win));
VMPI_DECLARE(int, Win_allocate_shared,
             (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
              MPI_Win* win));
VMPI_DECLARE(int, Win_shared_query,
             (MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr));
VMPI_DECLARE(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win* win));
VMPI_DECLARE(int, Win_attach, (MPI_Win win, void* base, MPI_Aint size));
VMPI_DECLARE(int, Win_detach, (MPI_Win win, const void* base));
VMPI_DECLARE(int, Win_free, (MPI_Win * win));
VMPI_DECLARE(int, Win_fence, (int mpi_assert, MPI_Win win));
VMPI_DECLARE(int, Win_post, (MPI_Group group, int mpi_assert, MPI_Win win));
VMPI_DECLARE(int, Win_start, (MPI_Group group, int mpi_assert, MPI_Win win));
VMPI_DECLARE(int, Win_complete, (MPI_Win win));
VMPI_DECLARE(int, Win_wait, (MPI_Win win));
VMPI_DECLARE(int, Win_test, (MPI_Win win, int* flag));
VMPI_DECLARE(int, Win_lock, (int lock_type, int rank, int mpi_assert, MPI_Win win));
VMPI_DECLARE(int, Win_unlock, (int rank, MPI_Win win));
VMPI_DECLARE(int, Win_lock_all, (int mpi_assert, MPI_Win win));
VMPI_DECLARE(int, Win_unlock_all, (MPI_Win win));
VMPI_DECLARE(int, Win_flush, (int rank, MPI_Win win));
VMPI_DECLARE(int, Win_flush_all, (MPI_Win win));
VMPI_DECLARE(int, Win_flush_local, (int rank, MPI_Win win));
VMPI_DECLARE(int, Win_flush_local_all, (MPI_Win win));
VMPI_DECLARE(int, Win_sync, (MPI_Win win));
VMPI_DECLARE(int, Win_get_group, (MPI_Win win, MPI_Group* group));
VMPI_DECLARE(int, Win_set_name, (MPI_Win win, const char* win_name));
VMPI_DECLARE(int, Win_get_name, (MPI_Win win, char* win_name, int* resultlen));
VMPI_DECLARE(int, Win_create_errhandler,
             (MPI_Win_errhandler_function * win_errhandler_fn, MPI_Errhandler* errhandler));
VMPI_DECLARE(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler));
VMPI_DECLARE(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler* errhandler));
#define MPI_Win_call_errhandler VMPI_Win_call_errhandler
#define PMPI_Win_call_errhandler VPMPI_Win_call_errhandler
VMPI_DECLARE(int, Win_call_errhandler, (MPI_Win win, int errorcode));
VMPI_DECLARE(int, Win_create_keyval,
             (MPI_Win_copy_attr_function * win_copy_attr_fn,
              MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval,
              void* extra_state));
VMPI_DECLARE(int, Win_free_keyval, (int* win_keyval));
VMPI_DECLARE(int, Win_set_attr, (MPI_Win win, int win_keyval, void* attribute_val));
VMPI_DECLARE(int, Win_delete_attr, (MPI_Win win, int win_keyval));
VMPI_DECLARE(int, Win_get_attr, (MPI_Win win, int win_keyval, void* attribute_val, int* flag));
VMPI_DECLARE(int, Win_set_info, (MPI_Win win, MPI_Info info));
VMPI_DECLARE(int, Win_get_info, (MPI_Win win, MPI_Info* info_used));
VMPI_DECLARE(int, Put,
             (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Win win));
VMPI_DECLARE(int, Get,
             (void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win));
VMPI_DECLARE(int, Accumulate,
             (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Op op, MPI_Win win));
VMPI_DECLARE(int, Get_accumulate,
             (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              void* result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
              MPI_Win win));
VMPI_DECLARE(int, Fetch_and_op,
             (const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
              MPI_Aint target_disp, MPI_Op op, MPI_Win win));
VMPI_DECLARE(int, Compare_and_swap,
             (const void* origin_addr, const void* compare_addr, void* result_addr,
              MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win));
VMPI_DECLARE(int, Rput,
             (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Win win, MPI_Request* request));
VMPI_DECLARE(int, Rget,
             (void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request* request));
VMPI_DECLARE(int, Raccumulate,
             (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Op op, MPI_Win win, MPI_Request* request));
VMPI_DECLARE(int, Rget_accumulate,
             (const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
              void* result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
              MPI_Win win, MPI_Request* request));

/* Vela */
#define MPI_Migrate VMPI_Migrate
#define PMPI_Migrate VPMPI_Migrate
#define MPI_Yield VMPI_Yield
#define PMPI_Yield VPMPI_Yield
#define MPI_Migrate_info VMPI_Migrate_info
#define PMPI_Migrate_info VPMPI_Migrate_info
#define MPI_Migrate_to_pe VMPI_Migrate_to_pe
#define PMPI_Migrate_to_pe VPMPI_Migrate_to_pe
#define MPI_Load_set_value VMPI_Load_set_value
#define PMPI_Load_set_value VPMPI_Load_set_value
#define MPI_Load_start_measure VMPI_Load_start_measure
#define PMPI_Load_start_measure VPMPI_Load_start_measure
#define MPI_Load_stop_measure VMPI_Load_stop_measure
#define PMPI_Load_stop_measure VPMPI_Load_stop_measure
#define MPI_Register_about_to_migrate VMPI_Register_about_to_migrate
#define PMPI_Register_about_to_migrate VPMPI_Register_about_to_migrate
#define MPI_Register_just_migrated VMPI_Register_just_migrated
#define PMPI_Register_just_migrated VPMPI_Register_just_migrated
#define MPI_My_pe VMPI_My_pe
#define PMPI_My_pe VPMPI_My_pe
#define MPI_My_node VMPI_My_node
#define PMPI_My_node VPMPI_My_node
#define MPI_Num_pes VMPI_Num_pes
#define PMPI_Num_pes VPMPI_Num_pes
#define MPI_Num_nodes VMPI_Num_nodes
#define PMPI_Num_nodes VPMPI_Num_nodes
/* A function MPI_Register_about_to_migrate / MPI_Register_just_migrated call in the rank. */
typedef void (*MPI_MigrateFn)(void);
VMPI_DECLARE(int, Migrate, (void));
VMPI_DECLARE(int, Yield, (void));
/* A balancing point with hints, collective as MPI_Migrate: MPI_INFO_NULL is MPI_Migrate (as
 * the run says: --lb-async or not); MPI_INFO_LB_SYNC balances here inline; MPI_INFO_LB_ASYNC
 * hands the measured loads to the balancing thread and returns once every rank is measured, an
 * earlier answer that is ready being applied here (the moves of this one come at a later
 * balancing point). */
VMPI_DECLARE(int, Migrate_info, (MPI_Info hints));
/* At the next balancing point the calling rank moves to PE `pe` (0..MPI_Num_pes - 1). */
VMPI_DECLARE(int, Migrate_to_pe, (int pe));
/* The load the next balancing step takes for the rank (seconds of work) instead of its measured
 * one. */
VMPI_DECLARE(int, Load_set_value, (double value));
/* Stop and start measuring the rank's computation as its load (measured from the start). */
VMPI_DECLARE(int, Load_start_measure, (void));
VMPI_DECLARE(int, Load_stop_measure, (void));
/* Called at each balancing point: `about` before the rank may move, `just` after it moved (to
 * another PE or process). NULL unregisters. */
VMPI_DECLARE(int, Register_about_to_migrate, (MPI_MigrateFn fn));
VMPI_DECLARE(int, Register_just_migrated, (MPI_MigrateFn fn));
/* Where the calling rank runs now: its PE and process ("node"), and how many there are. */
VMPI_DECLARE(int, My_pe, (void));
VMPI_DECLARE(int, My_node, (void));
VMPI_DECLARE(int, Num_pes, (void));
VMPI_DECLARE(int, Num_nodes, (void));

/* Calls not implemented: using one is a compile error that names it. */
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
      VMPI_UNAVAILABLE("MPI_" #name " is not supported by Vela's MPI (docs/user-guide.md)")

#define MPI_Type_create_keyval VMPI_Type_create_keyval
#define PMPI_Type_create_keyval VPMPI_Type_create_keyval
#define MPI_Type_free_keyval VMPI_Type_free_keyval
#define PMPI_Type_free_keyval VPMPI_Type_free_keyval
#define MPI_Type_set_attr VMPI_Type_set_attr
#define PMPI_Type_set_attr VPMPI_Type_set_attr
#define MPI_Type_get_attr VMPI_Type_get_attr
#define PMPI_Type_get_attr VPMPI_Type_get_attr
#define MPI_Type_delete_attr VMPI_Type_delete_attr
#define PMPI_Type_delete_attr VPMPI_Type_delete_attr
#define MPI_Type_create_f90_integer VMPI_Type_create_f90_integer
#define PMPI_Type_create_f90_integer VPMPI_Type_create_f90_integer
#define MPI_Type_create_f90_real VMPI_Type_create_f90_real
#define PMPI_Type_create_f90_real VPMPI_Type_create_f90_real
#define MPI_Type_create_f90_complex VMPI_Type_create_f90_complex
#define PMPI_Type_create_f90_complex VPMPI_Type_create_f90_complex
#define MPI_Status_set_elements VMPI_Status_set_elements
#define PMPI_Status_set_elements VPMPI_Status_set_elements
#define MPI_Status_set_elements_x VMPI_Status_set_elements_x
#define PMPI_Status_set_elements_x VPMPI_Status_set_elements_x
#define MPI_Grequest_start VMPI_Grequest_start
#define PMPI_Grequest_start VPMPI_Grequest_start
#define MPI_Grequest_complete VMPI_Grequest_complete
#define PMPI_Grequest_complete VPMPI_Grequest_complete
#define MPI_Win_create VMPI_Win_create
#define PMPI_Win_create VPMPI_Win_create
#define MPI_Win_allocate VMPI_Win_allocate
#define PMPI_Win_allocate VPMPI_Win_allocate
#define MPI_Win_allocate_shared VMPI_Win_allocate_shared
#define PMPI_Win_allocate_shared VPMPI_Win_allocate_shared
#define MPI_Win_shared_query VMPI_Win_shared_query
#define PMPI_Win_shared_query VPMPI_Win_shared_query
#define MPI_Win_create_dynamic VMPI_Win_create_dynamic
#define PMPI_Win_create_dynamic VPMPI_Win_create_dynamic
#define MPI_Win_attach VMPI_Win_attach
#define PMPI_Win_attach VPMPI_Win_attach
#define MPI_Win_detach VMPI_Win_detach
#define PMPI_Win_detach VPMPI_Win_detach
#define MPI_Win_free VMPI_Win_free
#define PMPI_Win_free VPMPI_Win_free
#define MPI_Win_fence VMPI_Win_fence
#define PMPI_Win_fence VPMPI_Win_fence
#define MPI_Win_post VMPI_Win_post
#define PMPI_Win_post VPMPI_Win_post
#define MPI_Win_start VMPI_Win_start
#define PMPI_Win_start VPMPI_Win_start
#define MPI_Win_complete VMPI_Win_complete
#define PMPI_Win_complete VPMPI_Win_complete
#define MPI_Win_wait VMPI_Win_wait
#define PMPI_Win_wait VPMPI_Win_wait
#define MPI_Win_test VMPI_Win_test
#define PMPI_Win_test VPMPI_Win_test
#define MPI_Win_lock VMPI_Win_lock
#define PMPI_Win_lock VPMPI_Win_lock
#define MPI_Win_unlock VMPI_Win_unlock
#define PMPI_Win_unlock VPMPI_Win_unlock
#define MPI_Win_lock_all VMPI_Win_lock_all
#define PMPI_Win_lock_all VPMPI_Win_lock_all
#define MPI_Win_unlock_all VMPI_Win_unlock_all
#define PMPI_Win_unlock_all VPMPI_Win_unlock_all
#define MPI_Win_flush VMPI_Win_flush
#define PMPI_Win_flush VPMPI_Win_flush
#define MPI_Win_flush_all VMPI_Win_flush_all
#define PMPI_Win_flush_all VPMPI_Win_flush_all
#define MPI_Win_flush_local VMPI_Win_flush_local
#define PMPI_Win_flush_local VPMPI_Win_flush_local
#define MPI_Win_flush_local_all VMPI_Win_flush_local_all
#define PMPI_Win_flush_local_all VPMPI_Win_flush_local_all
#define MPI_Win_sync VMPI_Win_sync
#define PMPI_Win_sync VPMPI_Win_sync
#define MPI_Win_get_group VMPI_Win_get_group
#define PMPI_Win_get_group VPMPI_Win_get_group
#define MPI_Win_set_name VMPI_Win_set_name
#define PMPI_Win_set_name VPMPI_Win_set_name
#define MPI_Win_get_name VMPI_Win_get_name
#define PMPI_Win_get_name VPMPI_Win_get_name
#define MPI_Win_create_errhandler VMPI_Win_create_errhandler
#define PMPI_Win_create_errhandler VPMPI_Win_create_errhandler
#define MPI_Win_set_errhandler VMPI_Win_set_errhandler
#define PMPI_Win_set_errhandler VPMPI_Win_set_errhandler
#define MPI_Win_get_errhandler VMPI_Win_get_errhandler
#define PMPI_Win_get_errhandler VPMPI_Win_get_errhandler
#define MPI_Win_create_keyval VMPI_Win_create_keyval
#define PMPI_Win_create_keyval VPMPI_Win_create_keyval
#define MPI_Win_free_keyval VMPI_Win_free_keyval
#define PMPI_Win_free_keyval VPMPI_Win_free_keyval
#define MPI_Win_set_attr VMPI_Win_set_attr
#define PMPI_Win_set_attr VPMPI_Win_set_attr
#define MPI_Win_get_attr VMPI_Win_get_attr
#define PMPI_Win_get_attr VPMPI_Win_get_attr
#define MPI_Win_delete_attr VMPI_Win_delete_attr
#define PMPI_Win_delete_attr VPMPI_Win_delete_attr
#define MPI_Win_set_info VMPI_Win_set_info
#define PMPI_Win_set_info VPMPI_Win_set_info
#define MPI_Win_get_info VMPI_Win_get_info
#define PMPI_Win_get_info VPMPI_Win_get_info
#define MPI_Put VMPI_Put
#define PMPI_Put VPMPI_Put
#define MPI_Get VMPI_Get
#define PMPI_Get VPMPI_Get
#define MPI_Accumulate VMPI_Accumulate
#define PMPI_Accumulate VPMPI_Accumulate
#define MPI_Get_accumulate VMPI_Get_accumulate
#define PMPI_Get_accumulate VPMPI_Get_accumulate
#define MPI_Fetch_and_op VMPI_Fetch_and_op
#define PMPI_Fetch_and_op VPMPI_Fetch_and_op
#define MPI_Compare_and_swap VMPI_Compare_and_swap
#define PMPI_Compare_and_swap VPMPI_Compare_and_swap
#define MPI_Rput VMPI_Rput
#define PMPI_Rput VPMPI_Rput
#define MPI_Rget VMPI_Rget
#define PMPI_Rget VPMPI_Rget
#define MPI_Raccumulate VMPI_Raccumulate
#define PMPI_Raccumulate VPMPI_Raccumulate
#define MPI_Rget_accumulate VMPI_Rget_accumulate
#define PMPI_Rget_accumulate VPMPI_Rget_accumulate
#define MPI_File_open VMPI_File_open
#define PMPI_File_open VMPI_File_open
#define MPI_File_close VMPI_File_close
#define PMPI_File_close VMPI_File_close
#define MPI_File_delete VMPI_File_delete
#define PMPI_File_delete VMPI_File_delete
#define MPI_File_read VMPI_File_read
#define PMPI_File_read VMPI_File_read
#define MPI_File_write VMPI_File_write
#define PMPI_File_write VMPI_File_write
#define MPI_File_read_at VMPI_File_read_at
#define PMPI_File_read_at VMPI_File_read_at
#define MPI_File_write_at VMPI_File_write_at
#define PMPI_File_write_at VMPI_File_write_at
#define MPI_File_read_all VMPI_File_read_all
#define PMPI_File_read_all VMPI_File_read_all
#define MPI_File_write_all VMPI_File_write_all
#define PMPI_File_write_all VMPI_File_write_all
#define MPI_File_read_at_all VMPI_File_read_at_all
#define PMPI_File_read_at_all VMPI_File_read_at_all
#define MPI_File_write_at_all VMPI_File_write_at_all
#define PMPI_File_write_at_all VMPI_File_write_at_all
#define MPI_File_set_view VMPI_File_set_view
#define PMPI_File_set_view VMPI_File_set_view
#define MPI_File_get_size VMPI_File_get_size
#define PMPI_File_get_size VMPI_File_get_size
#define MPI_File_set_size VMPI_File_set_size
#define PMPI_File_set_size VMPI_File_set_size
#define MPI_File_seek VMPI_File_seek
#define PMPI_File_seek VMPI_File_seek
#define MPI_File_get_position VMPI_File_get_position
#define PMPI_File_get_position VMPI_File_get_position
#define MPI_File_iread VMPI_File_iread
#define PMPI_File_iread VMPI_File_iread
#define MPI_File_iwrite VMPI_File_iwrite
#define PMPI_File_iwrite VMPI_File_iwrite
#define MPI_File_sync VMPI_File_sync
#define PMPI_File_sync VMPI_File_sync
#define MPI_File_preallocate VMPI_File_preallocate
#define PMPI_File_preallocate VMPI_File_preallocate
#define MPI_File_set_errhandler VMPI_File_set_errhandler
#define PMPI_File_set_errhandler VMPI_File_set_errhandler
#define MPI_File_get_errhandler VMPI_File_get_errhandler
#define PMPI_File_get_errhandler VMPI_File_get_errhandler
#define MPI_Comm_spawn VMPI_Comm_spawn
#define PMPI_Comm_spawn VMPI_Comm_spawn
#define MPI_Comm_spawn_multiple VMPI_Comm_spawn_multiple
#define PMPI_Comm_spawn_multiple VMPI_Comm_spawn_multiple
#define MPI_Comm_get_parent VMPI_Comm_get_parent
#define PMPI_Comm_get_parent VMPI_Comm_get_parent
#define MPI_Comm_accept VMPI_Comm_accept
#define PMPI_Comm_accept VMPI_Comm_accept
#define MPI_Comm_connect VMPI_Comm_connect
#define PMPI_Comm_connect VMPI_Comm_connect
#define MPI_Comm_disconnect VMPI_Comm_disconnect
#define PMPI_Comm_disconnect VMPI_Comm_disconnect
#define MPI_Comm_join VMPI_Comm_join
#define PMPI_Comm_join VMPI_Comm_join
#define MPI_Open_port VMPI_Open_port
#define PMPI_Open_port VMPI_Open_port
#define MPI_Close_port VMPI_Close_port
#define PMPI_Close_port VMPI_Close_port
#define MPI_Publish_name VMPI_Publish_name
#define PMPI_Publish_name VMPI_Publish_name
#define MPI_Unpublish_name VMPI_Unpublish_name
#define PMPI_Unpublish_name VMPI_Unpublish_name
#define MPI_Lookup_name VMPI_Lookup_name
#define PMPI_Lookup_name VMPI_Lookup_name
#if !defined(__cplusplus) && defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#endif
VMPI_UNSUPPORTED(File_open);
VMPI_UNSUPPORTED(File_close);
VMPI_UNSUPPORTED(File_delete);
VMPI_UNSUPPORTED(File_read);
VMPI_UNSUPPORTED(File_write);
VMPI_UNSUPPORTED(File_read_at);
VMPI_UNSUPPORTED(File_write_at);
VMPI_UNSUPPORTED(File_read_all);
VMPI_UNSUPPORTED(File_write_all);
VMPI_UNSUPPORTED(File_read_at_all);
VMPI_UNSUPPORTED(File_write_at_all);
VMPI_UNSUPPORTED(File_set_view);
VMPI_UNSUPPORTED(File_get_size);
VMPI_UNSUPPORTED(File_set_size);
VMPI_UNSUPPORTED(File_seek);
VMPI_UNSUPPORTED(File_get_position);
VMPI_UNSUPPORTED(File_iread);
VMPI_UNSUPPORTED(File_iwrite);
VMPI_UNSUPPORTED(File_sync);
VMPI_UNSUPPORTED(File_preallocate);
VMPI_UNSUPPORTED(File_set_errhandler);
VMPI_UNSUPPORTED(File_get_errhandler);
VMPI_UNSUPPORTED(Comm_spawn);
VMPI_UNSUPPORTED(Comm_spawn_multiple);
VMPI_UNSUPPORTED(Comm_get_parent);
VMPI_UNSUPPORTED(Comm_accept);
VMPI_UNSUPPORTED(Comm_connect);
VMPI_UNSUPPORTED(Comm_disconnect);
VMPI_UNSUPPORTED(Comm_join);
VMPI_UNSUPPORTED(Open_port);
VMPI_UNSUPPORTED(Close_port);
VMPI_UNSUPPORTED(Publish_name);
VMPI_UNSUPPORTED(Unpublish_name);
VMPI_UNSUPPORTED(Lookup_name);
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
