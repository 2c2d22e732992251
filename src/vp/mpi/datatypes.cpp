// MPI's datatypes: the predefined ones, each sent as one of vp's element types, and the
// questions about them.
#include "internal.hpp"

namespace vela::mpi::detail {

constinit const Datatype datatypes[VMPI_DATATYPE_COUNT] = {
    {"MPI_CHAR", vp::Type::char8},
    {"MPI_SIGNED_CHAR", vp::type_of<signed char>()},
    {"MPI_UNSIGNED_CHAR", vp::type_of<unsigned char>()},
    {"MPI_BYTE", vp::Type::bytes},
    {"MPI_SHORT", vp::type_of<short>()},
    {"MPI_UNSIGNED_SHORT", vp::type_of<unsigned short>()},
    {"MPI_INT", vp::type_of<int>()},
    {"MPI_UNSIGNED", vp::type_of<unsigned>()},
    {"MPI_LONG", vp::type_of<long>()},
    {"MPI_UNSIGNED_LONG", vp::type_of<unsigned long>()},
    {"MPI_LONG_LONG", vp::type_of<long long>()},
    {"MPI_UNSIGNED_LONG_LONG", vp::type_of<unsigned long long>()},
    {"MPI_FLOAT", vp::Type::f32},
    {"MPI_DOUBLE", vp::Type::f64},
    {"MPI_LONG_DOUBLE", vp::Type::f128},
    {"MPI_DOUBLE_INT", vp::Type::pair_f64_i32},
    {"MPI_2INT", vp::Type::pair_i32_i32},
    {"MPI_INT8_T", vp::Type::i8},
    {"MPI_UINT8_T", vp::Type::u8},
    {"MPI_INT16_T", vp::Type::i16},
    {"MPI_UINT16_T", vp::Type::u16},
    {"MPI_INT32_T", vp::Type::i32},
    {"MPI_UINT32_T", vp::Type::u32},
    {"MPI_INT64_T", vp::Type::i64},
    {"MPI_UINT64_T", vp::Type::u64},
    {"MPI_C_BOOL", vp::Type::u8},
    {"MPI_WCHAR", vp::type_of<wchar_t>()},
};
static_assert(sizeof(bool) == 1, "MPI_C_BOOL is sent as one byte");

}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VMPI_Type_size(MPI_Datatype datatype, int* size) {
  constexpr const char* call = "MPI_Type_size";
  return guarded(call, [&] {
    const Datatype& type = datatype_of(call, datatype);
    check_out(call, size, "size");
    *size = static_cast<int>(vp::size_of(type.type));
  });
}

}  // extern "C"
