// MPI's one-sided communication for Fortran (the standard's chapter 11; conventions in
// bindings.hpp). Displacements and sizes are INTEGER(KIND=MPI_ADDRESS_KIND); the base address
// MPI_WIN_ALLOCATE and MPI_WIN_SHARED_QUERY give back is one too (a Cray pointer's value, as
// MPI_ALLOC_MEM's).
#include "bindings.hpp"

using namespace vela::mpi::fortran;

extern "C" {

// ---- windows ----

VELA_FORTRAN(win_create, (void* base, MPI_Aint* size, F* disp_unit, F* i, F* c, F* w, F* ierr), {
  HandleOut<MPI_Win> made(w);
  *ierr = MPI_Win_create(buffer(base), *size, *disp_unit, info(i), comm(c), made.get());
})

VELA_FORTRAN(win_allocate,
             (MPI_Aint * size, F* disp_unit, F* i, F* c, MPI_Aint* base, F* w, F* ierr), {
               HandleOut<MPI_Win> made(w);
               void* memory = nullptr;
               *ierr = MPI_Win_allocate(*size, *disp_unit, info(i), comm(c), &memory, made.get());
               *base = reinterpret_cast<MPI_Aint>(memory);
             })

VELA_FORTRAN(win_allocate_shared,
             (MPI_Aint * size, F* disp_unit, F* i, F* c, MPI_Aint* base, F* w, F* ierr), {
               HandleOut<MPI_Win> made(w);
               void* memory = nullptr;
               *ierr = MPI_Win_allocate_shared(*size, *disp_unit, info(i), comm(c), &memory,
                                               made.get());
               *base = reinterpret_cast<MPI_Aint>(memory);
             })

VELA_FORTRAN(win_shared_query,
             (F * w, F* rank, MPI_Aint* size, F* disp_unit, MPI_Aint* base, F* ierr), {
               void* memory = nullptr;
               *ierr = MPI_Win_shared_query(win(w), *rank, size, disp_unit, &memory);
               *base = reinterpret_cast<MPI_Aint>(memory);
             })

VELA_FORTRAN(win_create_dynamic, (F * i, F* c, F* w, F* ierr), {
  HandleOut<MPI_Win> made(w);
  *ierr = MPI_Win_create_dynamic(info(i), comm(c), made.get());
})

VELA_FORTRAN(win_attach, (F * w, void* base, MPI_Aint* size, F* ierr),
             { *ierr = MPI_Win_attach(win(w), base, *size); })

VELA_FORTRAN(win_detach, (F * w, void* base, F* ierr), { *ierr = MPI_Win_detach(win(w), base); })

VELA_FORTRAN(win_free, (F * w, F* ierr), {
  HandleInOut<MPI_Win> freed(w);
  *ierr = MPI_Win_free(freed.get());
})

// ---- synchronization ----

VELA_FORTRAN(win_fence, (F * assertion, F* w, F* ierr),
             { *ierr = MPI_Win_fence(*assertion, win(w)); })
VELA_FORTRAN(win_post, (F * g, F* assertion, F* w, F* ierr),
             { *ierr = MPI_Win_post(group(g), *assertion, win(w)); })
VELA_FORTRAN(win_start, (F * g, F* assertion, F* w, F* ierr),
             { *ierr = MPI_Win_start(group(g), *assertion, win(w)); })
VELA_FORTRAN(win_complete, (F * w, F* ierr), { *ierr = MPI_Win_complete(win(w)); })
VELA_FORTRAN(win_wait, (F * w, F* ierr), { *ierr = MPI_Win_wait(win(w)); })
VELA_FORTRAN(win_test, (F * w, F* flag, F* ierr), { *ierr = MPI_Win_test(win(w), flag); })
VELA_FORTRAN(win_lock, (F * type, F* rank, F* assertion, F* w, F* ierr),
             { *ierr = MPI_Win_lock(*type, *rank, *assertion, win(w)); })
VELA_FORTRAN(win_unlock, (F * rank, F* w, F* ierr), { *ierr = MPI_Win_unlock(*rank, win(w)); })
VELA_FORTRAN(win_lock_all, (F * assertion, F* w, F* ierr),
             { *ierr = MPI_Win_lock_all(*assertion, win(w)); })
VELA_FORTRAN(win_unlock_all, (F * w, F* ierr), { *ierr = MPI_Win_unlock_all(win(w)); })
VELA_FORTRAN(win_flush, (F * rank, F* w, F* ierr), { *ierr = MPI_Win_flush(*rank, win(w)); })
VELA_FORTRAN(win_flush_all, (F * w, F* ierr), { *ierr = MPI_Win_flush_all(win(w)); })
VELA_FORTRAN(win_flush_local, (F * rank, F* w, F* ierr),
             { *ierr = MPI_Win_flush_local(*rank, win(w)); })
VELA_FORTRAN(win_flush_local_all, (F * w, F* ierr), { *ierr = MPI_Win_flush_local_all(win(w)); })
VELA_FORTRAN(win_sync, (F * w, F* ierr), { *ierr = MPI_Win_sync(win(w)); })

// ---- operations ----

VELA_FORTRAN(put,
             (void* origin, F* origin_count, F* origin_type, F* target, MPI_Aint* disp,
              F* target_count, F* target_type, F* w, F* ierr),
             {
               *ierr = MPI_Put(buffer(origin), *origin_count, type(origin_type), *target, *disp,
                               *target_count, type(target_type), win(w));
             })

VELA_FORTRAN(get,
             (void* origin, F* origin_count, F* origin_type, F* target, MPI_Aint* disp,
              F* target_count, F* target_type, F* w, F* ierr),
             {
               *ierr = MPI_Get(buffer(origin), *origin_count, type(origin_type), *target, *disp,
                               *target_count, type(target_type), win(w));
             })

VELA_FORTRAN(accumulate,
             (void* origin, F* origin_count, F* origin_type, F* target, MPI_Aint* disp,
              F* target_count, F* target_type, F* o, F* w, F* ierr),
             {
               *ierr = MPI_Accumulate(buffer(origin), *origin_count, type(origin_type), *target,
                                      *disp, *target_count, type(target_type), op(o), win(w));
             })

VELA_FORTRAN(get_accumulate,
             (void* origin, F* origin_count, F* origin_type, void* result, F* result_count,
              F* result_type, F* target, MPI_Aint* disp, F* target_count, F* target_type, F* o,
              F* w, F* ierr),
             {
               *ierr = MPI_Get_accumulate(buffer(origin), *origin_count, type(origin_type),
                                          buffer(result), *result_count, type(result_type), *target,
                                          *disp, *target_count, type(target_type), op(o), win(w));
             })

VELA_FORTRAN(fetch_and_op,
             (void* origin, void* result, F* t, F* target, MPI_Aint* disp, F* o, F* w, F* ierr), {
               *ierr = MPI_Fetch_and_op(buffer(origin), buffer(result), type(t), *target, *disp,
                                        op(o), win(w));
             })

VELA_FORTRAN(
    compare_and_swap,
    (void* origin, void* compare, void* result, F* t, F* target, MPI_Aint* disp, F* w, F* ierr),
    { *ierr = MPI_Compare_and_swap(origin, compare, result, type(t), *target, *disp, win(w)); })

VELA_FORTRAN(rput,
             (void* origin, F* origin_count, F* origin_type, F* target, MPI_Aint* disp,
              F* target_count, F* target_type, F* w, F* r, F* ierr),
             {
               RequestOut request(r);
               *ierr = MPI_Rput(buffer(origin), *origin_count, type(origin_type), *target, *disp,
                                *target_count, type(target_type), win(w), request.get());
             })

VELA_FORTRAN(rget,
             (void* origin, F* origin_count, F* origin_type, F* target, MPI_Aint* disp,
              F* target_count, F* target_type, F* w, F* r, F* ierr),
             {
               RequestOut request(r);
               *ierr = MPI_Rget(buffer(origin), *origin_count, type(origin_type), *target, *disp,
                                *target_count, type(target_type), win(w), request.get());
             })

VELA_FORTRAN(raccumulate,
             (void* origin, F* origin_count, F* origin_type, F* target, MPI_Aint* disp,
              F* target_count, F* target_type, F* o, F* w, F* r, F* ierr),
             {
               RequestOut request(r);
               *ierr =
                   MPI_Raccumulate(buffer(origin), *origin_count, type(origin_type), *target, *disp,
                                   *target_count, type(target_type), op(o), win(w), request.get());
             })

// ---- names, groups, info, error handlers (attributes: attributes.cpp) ----

VELA_FORTRAN(win_get_group, (F * w, F* g, F* ierr), {
  HandleOut<MPI_Group> made(g);
  *ierr = MPI_Win_get_group(win(w), made.get());
})

VELA_FORTRAN(win_set_name, (F * w, char* name, F* ierr, std::size_t name_length),
             { *ierr = MPI_Win_set_name(win(w), text_in(name, name_length).c_str()); })

VELA_FORTRAN(win_get_name, (F * w, char* name, F* length, F* ierr, std::size_t name_length), {
  TextOut text(name, name_length, MPI_MAX_OBJECT_NAME);
  *ierr = MPI_Win_get_name(win(w), text.get(), length);
})

VELA_FORTRAN(win_set_info, (F * w, F* i, F* ierr), { *ierr = MPI_Win_set_info(win(w), info(i)); })

VELA_FORTRAN(win_get_info, (F * w, F* i, F* ierr), {
  HandleOut<MPI_Info> made(i);
  *ierr = MPI_Win_get_info(win(w), made.get());
})

VELA_FORTRAN(win_set_errhandler, (F * w, F* e, F* ierr),
             { *ierr = MPI_Win_set_errhandler(win(w), errhandler(e)); })

VELA_FORTRAN(win_get_errhandler, (F * w, F* e, F* ierr), {
  HandleOut<MPI_Errhandler> got(e);
  *ierr = MPI_Win_get_errhandler(win(w), got.get());
})

VELA_FORTRAN(win_call_errhandler, (F * w, F* code, F* ierr),
             { *ierr = MPI_Win_call_errhandler(win(w), *code); })

}  // extern "C"
