// MPI's environment, communicators, error handlers and Vela's extensions for Fortran (the
// standard's chapters 6 and 8; conventions in bindings.hpp; attributes in attributes.cpp).
// Also the storage of mpif.h's COMMON blocks.
#include "bindings.hpp"

using namespace vela::mpi::fortran;

extern "C" {

// mpif.h's COMMON blocks: the one copy in a process (bindings.hpp), aligned as gfortran aligns
// a COMMON block.
alignas(16) F vmpi_fortran_bottom_ = 0;
alignas(16) F vmpi_fortran_in_place_ = 0;
alignas(16) F vmpi_fortran_status_ignore_[status_size] = {};
alignas(16) F vmpi_fortran_statuses_ignore_[status_size] = {};
alignas(16) F vmpi_fortran_errcodes_ignore_[1] = {};
alignas(16) F vmpi_fortran_unweighted_[1] = {};
alignas(16) F vmpi_fortran_weights_empty_[1] = {};
alignas(16) char vmpi_fortran_argv_null_[1] = {' '};

// ---- environment ----

VELA_FORTRAN(init, (F * ierr), { *ierr = MPI_Init(nullptr, nullptr); })

VELA_FORTRAN(init_thread, (F * required, F* provided, F* ierr),
             { *ierr = MPI_Init_thread(nullptr, nullptr, *required, provided); })

VELA_FORTRAN(initialized, (F * flag, F* ierr), { *ierr = MPI_Initialized(flag); })
VELA_FORTRAN(finalize, (F * ierr), { *ierr = MPI_Finalize(); })
VELA_FORTRAN(finalized, (F * flag, F* ierr), { *ierr = MPI_Finalized(flag); })
VELA_FORTRAN(query_thread, (F * provided, F* ierr), { *ierr = MPI_Query_thread(provided); })
VELA_FORTRAN(is_thread_main, (F * flag, F* ierr), { *ierr = MPI_Is_thread_main(flag); })
VELA_FORTRAN(abort, (F * c, F* code, F* ierr), { *ierr = MPI_Abort(comm(c), *code); })

VELA_FORTRAN_FUNCTION(double, wtime, (), { return MPI_Wtime(); })
VELA_FORTRAN_FUNCTION(double, wtick, (), { return MPI_Wtick(); })

VELA_FORTRAN(get_version, (F * version, F* subversion, F* ierr),
             { *ierr = MPI_Get_version(version, subversion); })

VELA_FORTRAN(get_processor_name, (char* name, F* length, F* ierr, std::size_t name_length), {
  TextOut text(name, name_length, MPI_MAX_PROCESSOR_NAME);
  *ierr = MPI_Get_processor_name(text.get(), length);
})

VELA_FORTRAN(get_library_version, (char* version, F* length, F* ierr, std::size_t version_length), {
  TextOut text(version, version_length, MPI_MAX_LIBRARY_VERSION_STRING);
  *ierr = MPI_Get_library_version(text.get(), length);
})

VELA_FORTRAN(error_string, (F * code, char* string, F* length, F* ierr, std::size_t string_length),
             {
               TextOut text(string, string_length, MPI_MAX_ERROR_STRING);
               *ierr = MPI_Error_string(*code, text.get(), length);
             })

VELA_FORTRAN(error_class, (F * code, F* error_class, F* ierr),
             { *ierr = MPI_Error_class(*code, error_class); })

// The base address comes back as an INTEGER(KIND=MPI_ADDRESS_KIND) (a Cray pointer's value).
VELA_FORTRAN(alloc_mem, (MPI_Aint * size, F* i, MPI_Aint* base, F* ierr), {
  void* memory = nullptr;
  *ierr = MPI_Alloc_mem(*size, info(i), &memory);
  *base = reinterpret_cast<MPI_Aint>(memory);
})

VELA_FORTRAN(free_mem, (void* base, F* ierr), { *ierr = MPI_Free_mem(base); })

// ---- communicators ----

VELA_FORTRAN(comm_rank, (F * c, F* rank, F* ierr), { *ierr = MPI_Comm_rank(comm(c), rank); })
VELA_FORTRAN(comm_size, (F * c, F* size, F* ierr), { *ierr = MPI_Comm_size(comm(c), size); })

VELA_FORTRAN(comm_dup, (F * c, F* n, F* ierr), {
  HandleOut<MPI_Comm> made(n);
  *ierr = MPI_Comm_dup(comm(c), made.get());
})

VELA_FORTRAN(comm_dup_with_info, (F * c, F* i, F* n, F* ierr), {
  HandleOut<MPI_Comm> made(n);
  *ierr = MPI_Comm_dup_with_info(comm(c), info(i), made.get());
})

VELA_FORTRAN(comm_idup, (F * c, F* n, F* r, F* ierr), {
  HandleOut<MPI_Comm> made(n);
  RequestOut request(r);
  *ierr = MPI_Comm_idup(comm(c), made.get(), request.get());
})

VELA_FORTRAN(comm_split, (F * c, F* color, F* key, F* n, F* ierr), {
  HandleOut<MPI_Comm> made(n);
  *ierr = MPI_Comm_split(comm(c), *color, *key, made.get());
})

VELA_FORTRAN(comm_split_type, (F * c, F* split_type, F* key, F* i, F* n, F* ierr), {
  HandleOut<MPI_Comm> made(n);
  *ierr = MPI_Comm_split_type(comm(c), *split_type, *key, info(i), made.get());
})

VELA_FORTRAN(comm_create, (F * c, F* g, F* n, F* ierr), {
  HandleOut<MPI_Comm> made(n);
  *ierr = MPI_Comm_create(comm(c), group(g), made.get());
})

VELA_FORTRAN(comm_create_group, (F * c, F* g, F* tag, F* n, F* ierr), {
  HandleOut<MPI_Comm> made(n);
  *ierr = MPI_Comm_create_group(comm(c), group(g), *tag, made.get());
})

VELA_FORTRAN(comm_free, (F * c, F* ierr), {
  HandleInOut<MPI_Comm> freed(c);
  *ierr = MPI_Comm_free(freed.get());
})

VELA_FORTRAN(comm_compare, (F * a, F* b, F* result, F* ierr),
             { *ierr = MPI_Comm_compare(comm(a), comm(b), result); })

VELA_FORTRAN(comm_set_name, (F * c, char* name, F* ierr, std::size_t name_length),
             { *ierr = MPI_Comm_set_name(comm(c), text_in(name, name_length).c_str()); })

VELA_FORTRAN(comm_get_name, (F * c, char* name, F* length, F* ierr, std::size_t name_length), {
  TextOut text(name, name_length, MPI_MAX_OBJECT_NAME);
  *ierr = MPI_Comm_get_name(comm(c), text.get(), length);
})

VELA_FORTRAN(comm_test_inter, (F * c, F* flag, F* ierr),
             { *ierr = MPI_Comm_test_inter(comm(c), flag); })

VELA_FORTRAN(comm_remote_size, (F * c, F* size, F* ierr),
             { *ierr = MPI_Comm_remote_size(comm(c), size); })

VELA_FORTRAN(comm_remote_group, (F * c, F* g, F* ierr), {
  HandleOut<MPI_Group> made(g);
  *ierr = MPI_Comm_remote_group(comm(c), made.get());
})

VELA_FORTRAN(comm_group, (F * c, F* g, F* ierr), {
  HandleOut<MPI_Group> made(g);
  *ierr = MPI_Comm_group(comm(c), made.get());
})

VELA_FORTRAN(comm_set_info, (F * c, F* i, F* ierr),
             { *ierr = MPI_Comm_set_info(comm(c), info(i)); })

VELA_FORTRAN(comm_get_info, (F * c, F* i, F* ierr), {
  HandleOut<MPI_Info> made(i);
  *ierr = MPI_Comm_get_info(comm(c), made.get());
})

VELA_FORTRAN(intercomm_create,
             (F * local, F* local_leader, F* peer, F* remote_leader, F* tag, F* n, F* ierr), {
               HandleOut<MPI_Comm> made(n);
               *ierr = MPI_Intercomm_create(comm(local), *local_leader, comm(peer), *remote_leader,
                                            *tag, made.get());
             })

VELA_FORTRAN(intercomm_merge, (F * c, F* high, F* n, F* ierr), {
  HandleOut<MPI_Comm> made(n);
  *ierr = MPI_Intercomm_merge(comm(c), *high, made.get());
})

// ---- error handlers ----
// A Fortran handler (`subroutine h(comm, code)`) is called as a C one: its communicator
// argument is the C handle's address, whose first four bytes are the Fortran number
// (little-endian: collectives.cpp).

VELA_FORTRAN(comm_set_errhandler, (F * c, F* e, F* ierr),
             { *ierr = MPI_Comm_set_errhandler(comm(c), errhandler(e)); })

VELA_FORTRAN(errhandler_set, (F * c, F* e, F* ierr),
             { *ierr = MPI_Errhandler_set(comm(c), errhandler(e)); })

VELA_FORTRAN(comm_get_errhandler, (F * c, F* e, F* ierr), {
  HandleOut<MPI_Errhandler> got(e);
  *ierr = MPI_Comm_get_errhandler(comm(c), got.get());
})

VELA_FORTRAN(errhandler_get, (F * c, F* e, F* ierr), {
  HandleOut<MPI_Errhandler> got(e);
  *ierr = MPI_Errhandler_get(comm(c), got.get());
})

VELA_FORTRAN(comm_create_errhandler, (MPI_Comm_errhandler_function * function, F* e, F* ierr), {
  HandleOut<MPI_Errhandler> made(e);
  *ierr = MPI_Comm_create_errhandler(function, made.get());
})

VELA_FORTRAN(errhandler_create, (MPI_Handler_function * function, F* e, F* ierr), {
  HandleOut<MPI_Errhandler> made(e);
  *ierr = MPI_Errhandler_create(function, made.get());
})

VELA_FORTRAN(errhandler_free, (F * e, F* ierr), {
  HandleInOut<MPI_Errhandler> freed(e);
  *ierr = MPI_Errhandler_free(freed.get());
})

VELA_FORTRAN(comm_call_errhandler, (F * c, F* code, F* ierr),
             { *ierr = MPI_Comm_call_errhandler(comm(c), *code); })

// ---- Vela's extensions (AMPI's, vela/mpi.h) ----

VELA_FORTRAN(migrate, (F * ierr), { *ierr = MPI_Migrate(); })
VELA_FORTRAN(migrate_info, (F * hints, F* ierr), { *ierr = MPI_Migrate_info(info(hints)); })
VELA_FORTRAN(migrate_to_pe, (F * pe, F* ierr), { *ierr = MPI_Migrate_to_pe(*pe); })
VELA_FORTRAN(load_set_value, (double* value, F* ierr), { *ierr = MPI_Load_set_value(*value); })
VELA_FORTRAN(load_start_measure, (F * ierr), { *ierr = MPI_Load_start_measure(); })
VELA_FORTRAN(load_stop_measure, (F * ierr), { *ierr = MPI_Load_stop_measure(); })

// A Fortran subroutine without arguments is a C function without arguments.
VELA_FORTRAN(register_about_to_migrate, (MPI_MigrateFn function, F* ierr),
             { *ierr = MPI_Register_about_to_migrate(function); })
VELA_FORTRAN(register_just_migrated, (MPI_MigrateFn function, F* ierr),
             { *ierr = MPI_Register_just_migrated(function); })

VELA_FORTRAN_FUNCTION(F, my_pe, (), { return MPI_My_pe(); })
VELA_FORTRAN_FUNCTION(F, my_node, (), { return MPI_My_node(); })
VELA_FORTRAN_FUNCTION(F, num_pes, (), { return MPI_Num_pes(); })

}  // extern "C"
