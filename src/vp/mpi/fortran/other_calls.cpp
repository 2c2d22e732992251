// The rest of MPI's calls for Fortran (conventions in bindings.hpp): the program's error
// classes, codes and strings, generalized requests, the status setters, the profiling control,
// request-based get-accumulate, window error handlers, and Vela's MPI_YIELD and MPI_NUM_NODES.
//
// A generalized request's Fortran functions (query, free, cancel; every argument by reference,
// the status an integer array) are called through the C ones below, which find them and the
// extra state in a GeneralizedRequest given as the C extra state; it is freed after the free
// function ran (the request's end).
#include "bindings.hpp"

using namespace vela::mpi::fortran;

namespace {

using FortranQuery = void (*)(MPI_Aint* extra, F* status, F* ierr);
using FortranFree = void (*)(MPI_Aint* extra, F* ierr);
using FortranCancel = void (*)(MPI_Aint* extra, F* complete, F* ierr);

struct GeneralizedRequest {
  FortranQuery query;
  FortranFree release;
  FortranCancel cancel;
  MPI_Aint extra;
};

int query_through(void* state, MPI_Status* status) {
  auto* g = static_cast<GeneralizedRequest*>(state);
  F fortran[status_size] = {};
  std::memcpy(fortran, status, sizeof *status);
  F ierr = MPI_SUCCESS;
  g->query(&g->extra, fortran, &ierr);
  std::memcpy(status, fortran, sizeof *status);
  return ierr;
}

int free_through(void* state) {
  auto* g = static_cast<GeneralizedRequest*>(state);
  F ierr = MPI_SUCCESS;
  g->release(&g->extra, &ierr);
  delete g;
  return ierr;
}

int cancel_through(void* state, int complete) {
  auto* g = static_cast<GeneralizedRequest*>(state);
  F done = complete;
  F ierr = MPI_SUCCESS;
  g->cancel(&g->extra, &done, &ierr);
  return ierr;
}

// A status the call reads and writes (MPI_Status_set_elements): copied in, then out.
class StatusInOut {
 public:
  explicit StatusInOut(F* f) : f_(f), status_(status_in(f)) {}
  StatusInOut(const StatusInOut&) = delete;
  StatusInOut& operator=(const StatusInOut&) = delete;
  ~StatusInOut() { std::memcpy(f_, &status_, sizeof status_); }
  MPI_Status* get() { return &status_; }

 private:
  F* f_;
  MPI_Status status_;
};

}  // namespace

extern "C" {

VELA_FORTRAN(add_error_class, (F * error_class, F* ierr),
             { *ierr = MPI_Add_error_class(error_class); })

VELA_FORTRAN(add_error_code, (F * error_class, F* code, F* ierr),
             { *ierr = MPI_Add_error_code(*error_class, code); })

VELA_FORTRAN(add_error_string, (F * code, char* string, F* ierr, std::size_t length),
             { *ierr = MPI_Add_error_string(*code, text_in(string, length).c_str()); })

VELA_FORTRAN(grequest_start,
             (FortranQuery query, FortranFree release, FortranCancel cancel, MPI_Aint* extra, F* r,
              F* ierr),
             {
               RequestOut request(r);
               *ierr = MPI_Grequest_start(&query_through, &free_through, &cancel_through,
                                          new GeneralizedRequest{query, release, cancel, *extra},
                                          request.get());
             })

VELA_FORTRAN(grequest_complete, (F * r, F* ierr),
             { *ierr = MPI_Grequest_complete(handle<MPI_Request>(r)); })

VELA_FORTRAN(status_set_cancelled, (F * s, F* flag, F* ierr), {
  StatusInOut status(s);
  *ierr = MPI_Status_set_cancelled(status.get(), *flag);
})

VELA_FORTRAN(status_set_elements, (F * s, F* t, F* count, F* ierr), {
  StatusInOut status(s);
  *ierr = MPI_Status_set_elements(status.get(), type(t), *count);
})

VELA_FORTRAN(status_set_elements_x, (F * s, F* t, MPI_Count* count, F* ierr), {
  StatusInOut status(s);
  *ierr = MPI_Status_set_elements_x(status.get(), type(t), *count);
})

// MPI_PCONTROL(LEVEL) has no ierror argument.
VELA_FORTRAN(pcontrol, (F * level), { MPI_Pcontrol(*level); })

VELA_FORTRAN(rget_accumulate,
             (void* origin, F* origin_count, F* origin_type, void* result, F* result_count,
              F* result_type, F* target, MPI_Aint* disp, F* target_count, F* target_type, F* o,
              F* w, F* r, F* ierr),
             {
               RequestOut request(r);
               *ierr = MPI_Rget_accumulate(buffer(origin), *origin_count, type(origin_type),
                                           buffer(result), *result_count, type(result_type),
                                           *target, *disp, *target_count, type(target_type), op(o),
                                           win(w), request.get());
             })

// A Fortran window handler (`subroutine h(win, code)`) is called as a C one, as a
// communicator's is (environment.cpp).
VELA_FORTRAN(win_create_errhandler, (MPI_Win_errhandler_function * function, F* e, F* ierr), {
  HandleOut<MPI_Errhandler> made(e);
  *ierr = MPI_Win_create_errhandler(function, made.get());
})

VELA_FORTRAN(yield, (F * ierr), { *ierr = MPI_Yield(); })
VELA_FORTRAN_FUNCTION(F, num_nodes, (), { return MPI_Num_nodes(); })

}  // extern "C"
