// MPI's datatypes: the predefined ones, each sent as one of vp's element types (raw bytes where
// vp has none of its size and kind), and the questions about them.
#include <cstring>
#include <limits>

#include "internal.hpp"

namespace vela::mpi::detail {

namespace {
constexpr Datatype make(const char* name, vp::Type type, std::size_t size, Reducible reducible,
                        std::size_t part) {
  Datatype d{name, type, size, reducible, static_cast<std::uint8_t>(part)};
  d.extent = static_cast<std::int64_t>(size);
  return d;
}
constexpr Datatype integer(const char* name, vp::Type type, std::size_t size, bool is_signed) {
  return make(name, type, size, is_signed ? Reducible::signed_integer : Reducible::unsigned_integer,
              size);
}
template <class T>
constexpr Datatype integer_of(const char* name) {
  return integer(name, vp::type_of<T>(), sizeof(T), std::numeric_limits<T>::is_signed);
}
constexpr Datatype floating(const char* name, vp::Type type, std::size_t size,
                            Reducible reducible = Reducible::floating) {
  return make(name, type, size, reducible, size);
}
constexpr Datatype complex(const char* name, std::size_t part,
                           Reducible reducible = Reducible::complex) {
  return make(name, vp::Type::bytes, 2 * part, reducible, part);
}
// A {value, index} type: `size` bytes, the value's `part`.
constexpr Datatype pair(const char* name, vp::Type type, std::size_t size, std::size_t part,
                        Reducible reducible = Reducible::pair) {
  return make(name, type, size, reducible, part);
}
constexpr Datatype other(const char* name, vp::Type type, std::size_t size, Reducible reducible) {
  return make(name, type, size, reducible, size);
}
}  // namespace

constinit const Datatype datatypes[VMPI_DATATYPE_COUNT] = {
    other("MPI_CHAR", vp::Type::char8, 1, Reducible::character),
    integer_of<signed char>("MPI_SIGNED_CHAR"),
    integer_of<unsigned char>("MPI_UNSIGNED_CHAR"),
    other("MPI_BYTE", vp::Type::bytes, 1, Reducible::unsigned_integer),
    integer_of<short>("MPI_SHORT"),
    integer_of<unsigned short>("MPI_UNSIGNED_SHORT"),
    integer_of<int>("MPI_INT"),
    integer_of<unsigned>("MPI_UNSIGNED"),
    integer_of<long>("MPI_LONG"),
    integer_of<unsigned long>("MPI_UNSIGNED_LONG"),
    integer_of<long long>("MPI_LONG_LONG"),
    integer_of<unsigned long long>("MPI_UNSIGNED_LONG_LONG"),
    floating("MPI_FLOAT", vp::Type::f32, 4),
    floating("MPI_DOUBLE", vp::Type::f64, 8),
    floating("MPI_LONG_DOUBLE", vp::Type::f128, sizeof(long double)),
    integer_of<wchar_t>("MPI_WCHAR"),
    other("MPI_C_BOOL", vp::Type::u8, 1, Reducible::logical),
    integer("MPI_INT8_T", vp::Type::i8, 1, true),
    integer("MPI_UINT8_T", vp::Type::u8, 1, false),
    integer("MPI_INT16_T", vp::Type::i16, 2, true),
    integer("MPI_UINT16_T", vp::Type::u16, 2, false),
    integer("MPI_INT32_T", vp::Type::i32, 4, true),
    integer("MPI_UINT32_T", vp::Type::u32, 4, false),
    integer("MPI_INT64_T", vp::Type::i64, 8, true),
    integer("MPI_UINT64_T", vp::Type::u64, 8, false),
    complex("MPI_C_COMPLEX", 4),
    complex("MPI_C_DOUBLE_COMPLEX", 8),
    complex("MPI_C_LONG_DOUBLE_COMPLEX", sizeof(long double)),
    integer_of<MPI_Aint>("MPI_AINT"),
    integer_of<MPI_Offset>("MPI_OFFSET"),
    integer_of<MPI_Count>("MPI_COUNT"),
    other("MPI_PACKED", vp::Type::bytes, 1, Reducible::none),
    other("MPI_CXX_BOOL", vp::Type::u8, 1, Reducible::logical),
    complex("MPI_CXX_FLOAT_COMPLEX", 4),
    complex("MPI_CXX_DOUBLE_COMPLEX", 8),
    complex("MPI_CXX_LONG_DOUBLE_COMPLEX", sizeof(long double)),
    pair("MPI_FLOAT_INT", vp::Type::bytes, 8, 4),
    pair("MPI_DOUBLE_INT", vp::Type::pair_f64_i32, 16, 8),
    pair("MPI_LONG_INT", vp::Type::bytes, 16, 8),
    pair("MPI_2INT", vp::Type::pair_i32_i32, 8, 4),
    pair("MPI_SHORT_INT", vp::Type::bytes, 8, 2),
    pair("MPI_LONG_DOUBLE_INT", vp::Type::bytes, 2 * sizeof(long double), sizeof(long double)),
    integer("MPI_INTEGER", vp::Type::i32, 4, true),
    floating("MPI_REAL", vp::Type::f32, 4),
    floating("MPI_DOUBLE_PRECISION", vp::Type::f64, 8),
    complex("MPI_COMPLEX", 4),
    complex("MPI_DOUBLE_COMPLEX", 8),
    other("MPI_LOGICAL", vp::Type::i32, 4, Reducible::logical),
    other("MPI_CHARACTER", vp::Type::char8, 1, Reducible::character),
    pair("MPI_2REAL", vp::Type::bytes, 8, 4, Reducible::pair_same),
    pair("MPI_2DOUBLE_PRECISION", vp::Type::bytes, 16, 8, Reducible::pair_same),
    pair("MPI_2INTEGER", vp::Type::bytes, 8, 4, Reducible::pair_same),
    integer("MPI_INTEGER1", vp::Type::i8, 1, true),
    integer("MPI_INTEGER2", vp::Type::i16, 2, true),
    integer("MPI_INTEGER4", vp::Type::i32, 4, true),
    integer("MPI_INTEGER8", vp::Type::i64, 8, true),
    floating("MPI_REAL4", vp::Type::f32, 4),
    floating("MPI_REAL8", vp::Type::f64, 8),
    floating("MPI_REAL16", vp::Type::bytes, 16, Reducible::quad),
    complex("MPI_COMPLEX8", 4),
    complex("MPI_COMPLEX16", 8),
    complex("MPI_COMPLEX32", 16, Reducible::quad_complex),
    other("MPI_LB", vp::Type::bytes, 0, Reducible::none),
    other("MPI_UB", vp::Type::bytes, 0, Reducible::none),
};
static_assert(sizeof(bool) == 1, "MPI_C_BOOL is sent as one byte");
static_assert(sizeof(long double) == 16, "MPI_LONG_DOUBLE is 16 bytes on the targets Vela runs on");

}  // namespace vela::mpi::detail

namespace vela::mpi::detail {
namespace {

// MPI_Type_create_f90_*: the predefined type of the smallest gfortran kind with at least
// precision `p` (decimal digits) and exponent range `r` (either may be MPI_UNDEFINED), as
// SELECTED_INT_KIND / SELECTED_REAL_KIND choose: integer kinds 1, 2, 4, 8 (ranges 2, 4, 9,
// 18); real kinds 4, 8, 16 (precisions 6, 15, 33; ranges 37, 307, 4931). The result is the
// named type itself (its envelope says MPI_COMBINER_NAMED; the program must not free it).
int f90_type(const char* call, int p, int r, MPI_Datatype* newtype, bool integer,
             const MPI_Datatype* kinds) {
  return guarded(call, [&](const Label& label) {
    active(call, label);
    check_out(call, newtype, "newtype");
    const int ranges_int[] = {2, 4, 9, 18};
    const int precisions[] = {6, 15, 33};
    const int ranges_real[] = {37, 307, 4931};
    if ((p < 0 && p != MPI_UNDEFINED) || (r < 0 && r != MPI_UNDEFINED)) {
      fail(call, MPI_ERR_ARG, "a precision or range is negative (and not MPI_UNDEFINED)");
    }
    const int count = integer ? 4 : 3;
    for (int k = 0; k < count; ++k) {
      const bool range_ok = r == MPI_UNDEFINED || r <= (integer ? ranges_int[k] : ranges_real[k]);
      const bool precision_ok = integer || p == MPI_UNDEFINED || p <= precisions[k];
      if (range_ok && precision_ok) {
        *newtype = kinds[k];
        return;
      }
    }
    fail(call, MPI_ERR_ARG,
         integer ? "no integer kind has a decimal range of " + std::to_string(r)
                 : "no real kind has precision " + std::to_string(p) + " and range " +
                       std::to_string(r));
  });
}

}  // namespace
}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VPMPI_Type_size(MPI_Datatype datatype, int* size) {
  constexpr const char* call = "MPI_Type_size";
  return guarded(call, [&] {
    const Datatype& type = datatype_of(call, datatype);
    check_out(call, size, "size");
    *size = static_cast<int>(type.size);
  });
}

int VPMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  constexpr const char* call = "MPI_Type_size_x";
  return guarded(call, [&] {
    const Datatype& type = datatype_of(call, datatype);
    check_out(call, size, "size");
    *size = static_cast<MPI_Count>(type.size);
  });
}

int VPMPI_Get_address(const void* location, MPI_Aint* address) {
  constexpr const char* call = "MPI_Get_address";
  return guarded(call, [&] {
    check_out(call, address, "address");
    *address = reinterpret_cast<MPI_Aint>(location);
  });
}

int VPMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  const MPI_Datatype kinds[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8};
  return f90_type("MPI_Type_create_f90_integer", MPI_UNDEFINED, r, newtype, true, kinds);
}

int VPMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  const MPI_Datatype kinds[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16};
  return f90_type("MPI_Type_create_f90_real", p, r, newtype, false, kinds);
}

int VPMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  const MPI_Datatype kinds[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32};
  return f90_type("MPI_Type_create_f90_complex", p, r, newtype, false, kinds);
}

int VPMPI_Address(void* location, MPI_Aint* address) {
  return VPMPI_Get_address(location, address);
}

MPI_Aint VPMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(base) +
                               static_cast<std::uintptr_t>(disp));
}

MPI_Aint VPMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(addr1) -
                               static_cast<std::uintptr_t>(addr2));
}

}  // extern "C"

// The MPI names, weak aliases of the profiling names (a tool's own MPI_x takes their place).
VMPI_PROFILED(Type_size);
VMPI_PROFILED(Type_size_x);
VMPI_PROFILED(Get_address);
VMPI_PROFILED(Type_create_f90_integer);
VMPI_PROFILED(Type_create_f90_real);
VMPI_PROFILED(Type_create_f90_complex);
VMPI_PROFILED(Address);
VMPI_PROFILED(Aint_add);
VMPI_PROFILED(Aint_diff);
