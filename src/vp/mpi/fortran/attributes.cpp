// MPI's attributes for Fortran: keyvals, their copy and delete functions, the values of
// communicators, datatypes and windows (the standard's chapters 6.7 and 11; conventions in
// bindings.hpp).
//
// A Fortran attribute value is an INTEGER(KIND=MPI_ADDRESS_KIND) (a default INTEGER in MPI-1's
// MPI_ATTR_GET/PUT and MPI_KEYVAL_CREATE), kept as the C attribute's pointer value. The
// predefined attributes are C pointers to their value (MPI_TAG_UB's int, MPI_WIN_SIZE's
// MPI_Aint; MPI_WIN_BASE is the base itself) and come to Fortran as the value.
//
// A keyval made from Fortran copy and delete functions (every argument by reference) is made
// in C with the trampolines below (C passes the object, keyval and values by value), which
// find the Fortran functions and extra state in a Keyval given as the C extra state. A Keyval
// lives in the rank's heap, moving with it, and is never freed (a keyval may outlive its
// MPI_COMM_FREE_KEYVAL while attributes still use it): a few dozen bytes per keyval made.
// MPI_COMM_NULL_COPY_FN and the other predefined functions are Fortran-callable here, so that
// a program passes them as it passes its own.
#include "bindings.hpp"

using namespace vela::mpi::fortran;

namespace {

using FortranCopy = void (*)(F* object, F* keyval, MPI_Aint* extra, MPI_Aint* in, MPI_Aint* out,
                             F* flag, F* ierr);
using FortranDelete = void (*)(F* object, F* keyval, MPI_Aint* value, MPI_Aint* extra, F* ierr);
// MPI-1's (MPI_KEYVAL_CREATE): default INTEGERs.
using FortranCopy1 = void (*)(F* comm, F* keyval, F* extra, F* in, F* out, F* flag, F* ierr);
using FortranDelete1 = void (*)(F* comm, F* keyval, F* value, F* extra, F* ierr);

struct Keyval {
  void* copy;    // FortranCopy or FortranCopy1
  void* remove;  // FortranDelete or FortranDelete1
  MPI_Aint extra;
};

Keyval* keyval_of(void* copy, void* remove, MPI_Aint extra) {
  return new Keyval{copy, remove, extra};
}

// The C copy function of keyvals made from Fortran ones, for objects of type T.
template <typename T>
int copy_through(T object, int keyval, void* state, void* in, void* out, int* flag) {
  auto* k = static_cast<Keyval*>(state);
  F o = number(object);
  F kv = keyval;
  MPI_Aint value_in = reinterpret_cast<MPI_Aint>(in);
  MPI_Aint value_out = 0;
  F copied = 0;
  F ierr = MPI_SUCCESS;
  reinterpret_cast<FortranCopy>(k->copy)(&o, &kv, &k->extra, &value_in, &value_out, &copied, &ierr);
  *flag = copied;
  if (copied != 0) *static_cast<void**>(out) = reinterpret_cast<void*>(value_out);
  return ierr;
}

template <typename T>
int delete_through(T object, int keyval, void* value, void* state) {
  auto* k = static_cast<Keyval*>(state);
  F o = number(object);
  F kv = keyval;
  MPI_Aint v = reinterpret_cast<MPI_Aint>(value);
  F ierr = MPI_SUCCESS;
  reinterpret_cast<FortranDelete>(k->remove)(&o, &kv, &v, &k->extra, &ierr);
  return ierr;
}

int copy_through1(MPI_Comm comm, int keyval, void* state, void* in, void* out, int* flag) {
  auto* k = static_cast<Keyval*>(state);
  F o = number(comm);
  F kv = keyval;
  F extra = static_cast<F>(k->extra);
  F value_in = static_cast<F>(reinterpret_cast<MPI_Aint>(in));
  F value_out = 0;
  F copied = 0;
  F ierr = MPI_SUCCESS;
  reinterpret_cast<FortranCopy1>(k->copy)(&o, &kv, &extra, &value_in, &value_out, &copied, &ierr);
  *flag = copied;
  if (copied != 0) {
    *static_cast<void**>(out) = reinterpret_cast<void*>(static_cast<MPI_Aint>(value_out));
  }
  return ierr;
}

int delete_through1(MPI_Comm comm, int keyval, void* value, void* state) {
  auto* k = static_cast<Keyval*>(state);
  F o = number(comm);
  F kv = keyval;
  F v = static_cast<F>(reinterpret_cast<MPI_Aint>(value));
  F extra = static_cast<F>(k->extra);
  F ierr = MPI_SUCCESS;
  reinterpret_cast<FortranDelete1>(k->remove)(&o, &kv, &v, &extra, &ierr);
  return ierr;
}

// A predefined communicator attribute's keyval: its C value points to an int.
bool predefined_comm_attribute(int keyval) {
  return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
         keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_UNIVERSE_SIZE || keyval == MPI_APPNUM ||
         keyval == MPI_LASTUSEDCODE;
}

// The Fortran value of a C attribute value of `keyval`.
MPI_Aint comm_value(int keyval, void* value) {
  if (predefined_comm_attribute(keyval)) return *static_cast<const int*>(value);
  return reinterpret_cast<MPI_Aint>(value);
}

MPI_Aint win_value(int keyval, void* value) {
  switch (keyval) {
    case MPI_WIN_SIZE:
      return *static_cast<const MPI_Aint*>(value);
    case MPI_WIN_DISP_UNIT:
    case MPI_WIN_CREATE_FLAVOR:
    case MPI_WIN_MODEL:
      return *static_cast<const int*>(value);
    default:  // MPI_WIN_BASE (the base itself) and the program's
      return reinterpret_cast<MPI_Aint>(value);
  }
}

// The value of attribute `keyval`, through `get` (MPI_Comm_get_attr and the others), stored in
// `out` when there is one.
template <typename Get, typename Value, typename Out>
void get_attribute(Get get, int keyval, Value value_of, Out* out, F* flag, F* ierr) {
  void* value = nullptr;
  *ierr = get(&value, flag);
  if (*ierr == MPI_SUCCESS && *flag != 0) *out = static_cast<Out>(value_of(keyval, value));
}

void* as_value(MPI_Aint value) {
  return reinterpret_cast<void*>(value);
}

}  // namespace

extern "C" {

// ---- the predefined copy and delete functions, callable from Fortran ----

#define VELA_FORTRAN_NULL_COPY(lower)                                                  \
  VELA_FORTRAN(lower, (F*, F*, MPI_Aint*, MPI_Aint*, MPI_Aint*, F * flag, F * ierr), { \
    *flag = 0;                                                                         \
    *ierr = MPI_SUCCESS;                                                               \
  })
#define VELA_FORTRAN_DUP(lower)                                                                 \
  VELA_FORTRAN(lower, (F*, F*, MPI_Aint*, MPI_Aint * in, MPI_Aint * out, F * flag, F * ierr), { \
    *out = *in;                                                                                 \
    *flag = 1;                                                                                  \
    *ierr = MPI_SUCCESS;                                                                        \
  })
#define VELA_FORTRAN_NULL_DELETE(lower) \
  VELA_FORTRAN(lower, (F*, F*, MPI_Aint*, MPI_Aint*, F * ierr), { *ierr = MPI_SUCCESS; })
VELA_FORTRAN_NULL_COPY(comm_null_copy_fn)
VELA_FORTRAN_NULL_COPY(type_null_copy_fn)
VELA_FORTRAN_NULL_COPY(win_null_copy_fn)
VELA_FORTRAN_DUP(comm_dup_fn)
VELA_FORTRAN_DUP(type_dup_fn)
VELA_FORTRAN_DUP(win_dup_fn)
VELA_FORTRAN_NULL_DELETE(comm_null_delete_fn)
VELA_FORTRAN_NULL_DELETE(type_null_delete_fn)
VELA_FORTRAN_NULL_DELETE(win_null_delete_fn)
// MPI-1's, with default INTEGERs.
VELA_FORTRAN(null_copy_fn, (F*, F*, F*, F*, F*, F* flag, F* ierr), {
  *flag = 0;
  *ierr = MPI_SUCCESS;
})
VELA_FORTRAN(dup_fn, (F*, F*, F*, F* in, F* out, F* flag, F* ierr), {
  *out = *in;
  *flag = 1;
  *ierr = MPI_SUCCESS;
})
VELA_FORTRAN(null_delete_fn, (F*, F*, F*, F*, F* ierr), { *ierr = MPI_SUCCESS; })

// ---- keyvals ----

VELA_FORTRAN(comm_create_keyval, (void* copy, void* remove, F* keyval, MPI_Aint* extra, F* ierr), {
  *ierr = MPI_Comm_create_keyval(&copy_through<MPI_Comm>, &delete_through<MPI_Comm>, keyval,
                                 keyval_of(copy, remove, *extra));
})

VELA_FORTRAN(type_create_keyval, (void* copy, void* remove, F* keyval, MPI_Aint* extra, F* ierr), {
  *ierr = MPI_Type_create_keyval(&copy_through<MPI_Datatype>, &delete_through<MPI_Datatype>, keyval,
                                 keyval_of(copy, remove, *extra));
})

VELA_FORTRAN(win_create_keyval, (void* copy, void* remove, F* keyval, MPI_Aint* extra, F* ierr), {
  *ierr = MPI_Win_create_keyval(&copy_through<MPI_Win>, &delete_through<MPI_Win>, keyval,
                                keyval_of(copy, remove, *extra));
})

VELA_FORTRAN(keyval_create, (void* copy, void* remove, F* keyval, F* extra, F* ierr), {
  *ierr =
      MPI_Keyval_create(&copy_through1, &delete_through1, keyval, keyval_of(copy, remove, *extra));
})

VELA_FORTRAN(comm_free_keyval, (F * keyval, F* ierr), { *ierr = MPI_Comm_free_keyval(keyval); })
VELA_FORTRAN(type_free_keyval, (F * keyval, F* ierr), { *ierr = MPI_Type_free_keyval(keyval); })
VELA_FORTRAN(win_free_keyval, (F * keyval, F* ierr), { *ierr = MPI_Win_free_keyval(keyval); })
VELA_FORTRAN(keyval_free, (F * keyval, F* ierr), { *ierr = MPI_Keyval_free(keyval); })

// ---- values ----

VELA_FORTRAN(comm_get_attr, (F * c, F* keyval, MPI_Aint* value, F* flag, F* ierr), {
  get_attribute([&](void* v, F* f) { return MPI_Comm_get_attr(comm(c), *keyval, v, f); }, *keyval,
                comm_value, value, flag, ierr);
})

VELA_FORTRAN(attr_get, (F * c, F* keyval, F* value, F* flag, F* ierr), {
  get_attribute([&](void* v, F* f) { return MPI_Attr_get(comm(c), *keyval, v, f); }, *keyval,
                comm_value, value, flag, ierr);
})

VELA_FORTRAN(type_get_attr, (F * t, F* keyval, MPI_Aint* value, F* flag, F* ierr), {
  get_attribute([&](void* v, F* f) { return MPI_Type_get_attr(type(t), *keyval, v, f); }, *keyval,
                [](int, void* v) { return reinterpret_cast<MPI_Aint>(v); }, value, flag, ierr);
})

VELA_FORTRAN(win_get_attr, (F * w, F* keyval, MPI_Aint* value, F* flag, F* ierr), {
  get_attribute([&](void* v, F* f) { return MPI_Win_get_attr(win(w), *keyval, v, f); }, *keyval,
                win_value, value, flag, ierr);
})

VELA_FORTRAN(comm_set_attr, (F * c, F* keyval, MPI_Aint* value, F* ierr),
             { *ierr = MPI_Comm_set_attr(comm(c), *keyval, as_value(*value)); })

VELA_FORTRAN(attr_put, (F * c, F* keyval, F* value, F* ierr),
             { *ierr = MPI_Attr_put(comm(c), *keyval, as_value(*value)); })

VELA_FORTRAN(type_set_attr, (F * t, F* keyval, MPI_Aint* value, F* ierr),
             { *ierr = MPI_Type_set_attr(type(t), *keyval, as_value(*value)); })

VELA_FORTRAN(win_set_attr, (F * w, F* keyval, MPI_Aint* value, F* ierr),
             { *ierr = MPI_Win_set_attr(win(w), *keyval, as_value(*value)); })

VELA_FORTRAN(comm_delete_attr, (F * c, F* keyval, F* ierr),
             { *ierr = MPI_Comm_delete_attr(comm(c), *keyval); })
VELA_FORTRAN(attr_delete, (F * c, F* keyval, F* ierr),
             { *ierr = MPI_Attr_delete(comm(c), *keyval); })
VELA_FORTRAN(type_delete_attr, (F * t, F* keyval, F* ierr),
             { *ierr = MPI_Type_delete_attr(type(t), *keyval); })
VELA_FORTRAN(win_delete_attr, (F * w, F* keyval, F* ierr),
             { *ierr = MPI_Win_delete_attr(win(w), *keyval); })

}  // extern "C"
