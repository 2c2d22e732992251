// MPI's datatypes and packing for Fortran (the standard's chapter 4; conventions in
// bindings.hpp). Addresses, displacements, extents and sizes are INTEGER(KIND=MPI_ADDRESS_KIND)
// or INTEGER(KIND=MPI_COUNT_KIND), 8 bytes as MPI_Aint and MPI_Count: passed as they are. The
// MPI-1 calls (MPI_ADDRESS, MPI_TYPE_HVECTOR, MPI_TYPE_HINDEXED, MPI_TYPE_STRUCT,
// MPI_TYPE_EXTENT, MPI_TYPE_LB, MPI_TYPE_UB) take them as default INTEGERs: widened on the way
// in. On the way out, MPI_ADDRESS keeps the address's low 32 bits, as Open MPI does (programs
// use the differences of such addresses, which stay right within 2 GiB, and every rank's data
// lies above 4 GiB); an extent or bound that does not fit is an error MPI_ERR_ARG (raised on
// MPI_COMM_WORLD, as the C calls' errors are) rather than a wrong value. The types
// the MPI-1 constructors make are their MPI-2 forms' (MPI_Type_get_envelope says
// MPI_COMBINER_HVECTOR, not MPI_COMBINER_HVECTOR_INTEGER, as in C).
#include "bindings.hpp"

using namespace vela::mpi::fortran;

namespace {

// `value` stored in the INTEGER `f`: MPI_SUCCESS, or MPI_ERR_ARG if it does not fit.
int integer_out(MPI_Aint value, F* f) {
  *f = static_cast<F>(value);
  if (*f != value) return MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG);
  return MPI_SUCCESS;
}

// An address stored in the INTEGER `f`: its low 32 bits (two's complement).
int address_out(MPI_Aint value, F* f) {
  *f = static_cast<F>(static_cast<std::uint32_t>(value));
  return MPI_SUCCESS;
}

// `count` INTEGER displacements as MPI_Aint.
class Displacements {
 public:
  Displacements(int count, const F* f) : c_(count) {
    for (int i = 0; i < c_.size(); ++i) c_[i] = f[i];
  }
  MPI_Aint* get() { return c_.data(); }

 private:
  Scratch<MPI_Aint> c_;
};

}  // namespace

extern "C" {

// ---- sizes, extents and addresses ----

VELA_FORTRAN(type_size, (F * t, F* size, F* ierr), { *ierr = MPI_Type_size(type(t), size); })

VELA_FORTRAN(type_size_x, (F * t, MPI_Count* size, F* ierr),
             { *ierr = MPI_Type_size_x(type(t), size); })

VELA_FORTRAN(get_address, (void* location, MPI_Aint* address, F* ierr),
             { *ierr = MPI_Get_address(buffer(location), address); })

VELA_FORTRAN(address, (void* location, F* address, F* ierr), {
  MPI_Aint a = 0;
  *ierr = MPI_Address(buffer(location), &a);
  if (*ierr == MPI_SUCCESS) *ierr = address_out(a, address);
})

VELA_FORTRAN_FUNCTION(MPI_Aint, aint_add, (MPI_Aint * base, MPI_Aint* disp),
                      { return MPI_Aint_add(*base, *disp); })

VELA_FORTRAN_FUNCTION(MPI_Aint, aint_diff, (MPI_Aint * addr1, MPI_Aint* addr2),
                      { return MPI_Aint_diff(*addr1, *addr2); })

VELA_FORTRAN(type_get_extent, (F * t, MPI_Aint* lb, MPI_Aint* extent, F* ierr),
             { *ierr = MPI_Type_get_extent(type(t), lb, extent); })

VELA_FORTRAN(type_get_extent_x, (F * t, MPI_Count* lb, MPI_Count* extent, F* ierr),
             { *ierr = MPI_Type_get_extent_x(type(t), lb, extent); })

VELA_FORTRAN(type_get_true_extent, (F * t, MPI_Aint* lb, MPI_Aint* extent, F* ierr),
             { *ierr = MPI_Type_get_true_extent(type(t), lb, extent); })

VELA_FORTRAN(type_get_true_extent_x, (F * t, MPI_Count* lb, MPI_Count* extent, F* ierr),
             { *ierr = MPI_Type_get_true_extent_x(type(t), lb, extent); })

VELA_FORTRAN(type_extent, (F * t, F* extent, F* ierr), {
  MPI_Aint e = 0;
  *ierr = MPI_Type_extent(type(t), &e);
  if (*ierr == MPI_SUCCESS) *ierr = integer_out(e, extent);
})

VELA_FORTRAN(type_lb, (F * t, F* displacement, F* ierr), {
  MPI_Aint d = 0;
  *ierr = MPI_Type_lb(type(t), &d);
  if (*ierr == MPI_SUCCESS) *ierr = integer_out(d, displacement);
})

VELA_FORTRAN(type_ub, (F * t, F* displacement, F* ierr), {
  MPI_Aint d = 0;
  *ierr = MPI_Type_ub(type(t), &d);
  if (*ierr == MPI_SUCCESS) *ierr = integer_out(d, displacement);
})

// ---- constructors ----

VELA_FORTRAN(type_contiguous, (F * count, F* oldtype, F* n, F* ierr), {
  HandleOut<MPI_Datatype> made(n);
  *ierr = MPI_Type_contiguous(*count, type(oldtype), made.get());
})

VELA_FORTRAN(type_vector, (F * count, F* blocklength, F* stride, F* oldtype, F* n, F* ierr), {
  HandleOut<MPI_Datatype> made(n);
  *ierr = MPI_Type_vector(*count, *blocklength, *stride, type(oldtype), made.get());
})

VELA_FORTRAN(type_create_hvector,
             (F * count, F* blocklength, MPI_Aint* stride, F* oldtype, F* n, F* ierr), {
               HandleOut<MPI_Datatype> made(n);
               *ierr = MPI_Type_create_hvector(*count, *blocklength, *stride, type(oldtype),
                                               made.get());
             })

VELA_FORTRAN(type_hvector, (F * count, F* blocklength, F* stride, F* oldtype, F* n, F* ierr), {
  HandleOut<MPI_Datatype> made(n);
  *ierr = MPI_Type_hvector(*count, *blocklength, MPI_Aint{*stride}, type(oldtype), made.get());
})

VELA_FORTRAN(type_indexed,
             (F * count, F* blocklengths, F* displacements, F* oldtype, F* n, F* ierr), {
               HandleOut<MPI_Datatype> made(n);
               *ierr =
                   MPI_Type_indexed(*count, blocklengths, displacements, type(oldtype), made.get());
             })

VELA_FORTRAN(type_create_hindexed,
             (F * count, F* blocklengths, MPI_Aint* displacements, F* oldtype, F* n, F* ierr), {
               HandleOut<MPI_Datatype> made(n);
               *ierr = MPI_Type_create_hindexed(*count, blocklengths, displacements, type(oldtype),
                                                made.get());
             })

VELA_FORTRAN(type_hindexed,
             (F * count, F* blocklengths, F* displacements, F* oldtype, F* n, F* ierr), {
               Displacements d(*count, displacements);
               HandleOut<MPI_Datatype> made(n);
               *ierr = MPI_Type_hindexed(*count, blocklengths, d.get(), type(oldtype), made.get());
             })

VELA_FORTRAN(type_create_indexed_block,
             (F * count, F* blocklength, F* displacements, F* oldtype, F* n, F* ierr), {
               HandleOut<MPI_Datatype> made(n);
               *ierr = MPI_Type_create_indexed_block(*count, *blocklength, displacements,
                                                     type(oldtype), made.get());
             })

VELA_FORTRAN(type_create_hindexed_block,
             (F * count, F* blocklength, MPI_Aint* displacements, F* oldtype, F* n, F* ierr), {
               HandleOut<MPI_Datatype> made(n);
               *ierr = MPI_Type_create_hindexed_block(*count, *blocklength, displacements,
                                                      type(oldtype), made.get());
             })

VELA_FORTRAN(type_create_struct,
             (F * count, F* blocklengths, MPI_Aint* displacements, F* types, F* n, F* ierr), {
               HandlesIn<MPI_Datatype> t(*count, types);
               HandleOut<MPI_Datatype> made(n);
               *ierr =
                   MPI_Type_create_struct(*count, blocklengths, displacements, t.get(), made.get());
             })

VELA_FORTRAN(type_struct, (F * count, F* blocklengths, F* displacements, F* types, F* n, F* ierr), {
  Displacements d(*count, displacements);
  HandlesIn<MPI_Datatype> t(*count, types);
  HandleOut<MPI_Datatype> made(n);
  *ierr = MPI_Type_struct(*count, blocklengths, d.get(), t.get(), made.get());
})

// `order` is MPI_ORDER_FORTRAN or MPI_ORDER_C, as in C; starts count from 0, as in C.
VELA_FORTRAN(type_create_subarray,
             (F * ndims, F* sizes, F* subsizes, F* starts, F* order, F* oldtype, F* n, F* ierr), {
               HandleOut<MPI_Datatype> made(n);
               *ierr = MPI_Type_create_subarray(*ndims, sizes, subsizes, starts, *order,
                                                type(oldtype), made.get());
             })

VELA_FORTRAN(type_create_darray,
             (F * size, F* rank, F* ndims, F* gsizes, F* distribs, F* dargs, F* psizes, F* order,
              F* oldtype, F* n, F* ierr),
             {
               HandleOut<MPI_Datatype> made(n);
               *ierr = MPI_Type_create_darray(*size, *rank, *ndims, gsizes, distribs, dargs, psizes,
                                              *order, type(oldtype), made.get());
             })

VELA_FORTRAN(type_create_resized, (F * oldtype, MPI_Aint* lb, MPI_Aint* extent, F* n, F* ierr), {
  HandleOut<MPI_Datatype> made(n);
  *ierr = MPI_Type_create_resized(type(oldtype), *lb, *extent, made.get());
})

VELA_FORTRAN(type_dup, (F * oldtype, F* n, F* ierr), {
  HandleOut<MPI_Datatype> made(n);
  *ierr = MPI_Type_dup(type(oldtype), made.get());
})

VELA_FORTRAN(type_create_f90_integer, (F * r, F* n, F* ierr), {
  HandleOut<MPI_Datatype> made(n);
  *ierr = MPI_Type_create_f90_integer(*r, made.get());
})

VELA_FORTRAN(type_create_f90_real, (F * p, F* r, F* n, F* ierr), {
  HandleOut<MPI_Datatype> made(n);
  *ierr = MPI_Type_create_f90_real(*p, *r, made.get());
})

VELA_FORTRAN(type_create_f90_complex, (F * p, F* r, F* n, F* ierr), {
  HandleOut<MPI_Datatype> made(n);
  *ierr = MPI_Type_create_f90_complex(*p, *r, made.get());
})

VELA_FORTRAN(type_match_size, (F * typeclass, F* size, F* t, F* ierr), {
  HandleOut<MPI_Datatype> matched(t);
  *ierr = MPI_Type_match_size(*typeclass, *size, matched.get());
})

VELA_FORTRAN(type_commit, (F * t, F* ierr), {
  HandleInOut<MPI_Datatype> committed(t);
  *ierr = MPI_Type_commit(committed.get());
})

VELA_FORTRAN(type_free, (F * t, F* ierr), {
  HandleInOut<MPI_Datatype> freed(t);
  *ierr = MPI_Type_free(freed.get());
})

// ---- names and contents ----

VELA_FORTRAN(type_set_name, (F * t, char* name, F* ierr, std::size_t name_length),
             { *ierr = MPI_Type_set_name(type(t), text_in(name, name_length).c_str()); })

VELA_FORTRAN(type_get_name, (F * t, char* name, F* length, F* ierr, std::size_t name_length), {
  TextOut text(name, name_length, MPI_MAX_OBJECT_NAME);
  *ierr = MPI_Type_get_name(type(t), text.get(), length);
})

VELA_FORTRAN(type_get_envelope,
             (F * t, F* num_integers, F* num_addresses, F* num_datatypes, F* combiner, F* ierr), {
               *ierr = MPI_Type_get_envelope(type(t), num_integers, num_addresses, num_datatypes,
                                             combiner);
             })

// The datatypes come back as Fortran numbers; only as many as the type has are written.
VELA_FORTRAN(type_get_contents,
             (F * t, F* max_integers, F* max_addresses, F* max_datatypes, F* integers,
              MPI_Aint* addresses, F* datatypes, F* ierr),
             {
               Scratch<MPI_Datatype> c(*max_datatypes);
               *ierr = MPI_Type_get_contents(type(t), *max_integers, *max_addresses, *max_datatypes,
                                             integers, addresses, c.data());
               if (*ierr != MPI_SUCCESS) return;
               int ni = 0;
               int na = 0;
               int nd = 0;
               int combiner = 0;
               if (MPI_Type_get_envelope(type(t), &ni, &na, &nd, &combiner) != MPI_SUCCESS) return;
               for (int i = 0; i < std::min(nd, c.size()); ++i) datatypes[i] = number(c[i]);
             })

// ---- packing ----

VELA_FORTRAN(pack,
             (void* inbuf, F* incount, F* t, void* outbuf, F* outsize, F* position, F* c, F* ierr),
             {
               *ierr = MPI_Pack(buffer(inbuf), *incount, type(t), buffer(outbuf), *outsize,
                                position, comm(c));
             })

VELA_FORTRAN(unpack,
             (void* inbuf, F* insize, F* position, void* outbuf, F* outcount, F* t, F* c, F* ierr),
             {
               *ierr = MPI_Unpack(buffer(inbuf), *insize, position, buffer(outbuf), *outcount,
                                  type(t), comm(c));
             })

VELA_FORTRAN(pack_size, (F * incount, F* t, F* c, F* size, F* ierr),
             { *ierr = MPI_Pack_size(*incount, type(t), comm(c), size); })

VELA_FORTRAN(pack_external,
             (char* datarep, void* inbuf, F* incount, F* t, void* outbuf, MPI_Aint* outsize,
              MPI_Aint* position, F* ierr, std::size_t datarep_length),
             {
               *ierr = MPI_Pack_external(text_in(datarep, datarep_length).c_str(), buffer(inbuf),
                                         *incount, type(t), buffer(outbuf), *outsize, position);
             })

VELA_FORTRAN(unpack_external,
             (char* datarep, void* inbuf, MPI_Aint* insize, MPI_Aint* position, void* outbuf,
              F* outcount, F* t, F* ierr, std::size_t datarep_length),
             {
               *ierr = MPI_Unpack_external(text_in(datarep, datarep_length).c_str(), buffer(inbuf),
                                           *insize, position, buffer(outbuf), *outcount, type(t));
             })

VELA_FORTRAN(pack_external_size,
             (char* datarep, F* incount, F* t, MPI_Aint* size, F* ierr, std::size_t datarep_length),
             {
               *ierr = MPI_Pack_external_size(text_in(datarep, datarep_length).c_str(), *incount,
                                              type(t), size);
             })

}  // extern "C"
