// Reduction operators (operators.hpp): each predefined operator on each kind and size of
// predefined datatype is one instance of a template over the C type, found in a table by
// (operator, datatype); a program's operator is called through MPI_User_function with the
// datatype's handle. All combine inout[i] = in[i] op inout[i], `in` holding the lower ranks'
// values (the order a non-commutative operator needs), in O(count).
#include "operators.hpp"

#include <algorithm>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "typemap.hpp"

namespace vela::mpi::detail {
namespace {

// The predefined operators in vela/mpi.h's order.
enum Index : int {
  max,
  min,
  sum,
  prod,
  land,
  band,
  lor,
  bor,
  lxor,
  bxor,
  maxloc,
  minloc,
  replace,
  no_op
};
constexpr const char* op_names[VMPI_OP_COUNT] = {
    "MPI_MAX", "MPI_MIN",  "MPI_SUM",  "MPI_PROD",   "MPI_LAND",   "MPI_BAND",    "MPI_LOR",
    "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP"};

using Function = void (*)(const void*, void*, std::size_t, const void*);

template <class T, int op>
void arithmetic(const void* in_data, void* inout_data, std::size_t n, const void*) {
  const T* in = static_cast<const T*>(in_data);
  T* inout = static_cast<T*>(inout_data);
  for (std::size_t i = 0; i < n; ++i) {
    const T a = in[i];
    const T b = inout[i];
    if constexpr (op == max) {
      inout[i] = a < b ? b : a;
    } else if constexpr (op == min) {
      inout[i] = b < a ? b : a;
    } else if constexpr (op == sum) {
      inout[i] = static_cast<T>(a + b);
    } else if constexpr (op == prod) {
      inout[i] = static_cast<T>(a * b);
    } else if constexpr (op == land) {
      inout[i] = static_cast<T>((a != T{}) && (b != T{}));
    } else if constexpr (op == lor) {
      inout[i] = static_cast<T>((a != T{}) || (b != T{}));
    } else if constexpr (op == lxor) {
      inout[i] = static_cast<T>((a != T{}) != (b != T{}));
    } else if constexpr (op == band) {
      inout[i] = static_cast<T>(a & b);
    } else if constexpr (op == bor) {
      inout[i] = static_cast<T>(a | b);
    } else if constexpr (op == bxor) {
      inout[i] = static_cast<T>(a ^ b);
    }
  }
}

template <class V, class I>
struct Located {
  V value;
  I index;
};

// MPI_MAXLOC and MPI_MINLOC: the larger (smaller) value, the smaller index on a tie.
template <class V, class I, int op>
void located(const void* in_data, void* inout_data, std::size_t n, const void*) {
  using P = Located<V, I>;
  for (std::size_t i = 0; i < n; ++i) {
    P a;
    P b;
    std::memcpy(&a, static_cast<const char*>(in_data) + i * sizeof(P), sizeof(P));
    std::memcpy(&b, static_cast<char*>(inout_data) + i * sizeof(P), sizeof(P));
    const bool better = op == maxloc ? a.value > b.value : a.value < b.value;
    if (better || (a.value == b.value && a.index < b.index)) b = a;
    std::memcpy(static_cast<char*>(inout_data) + i * sizeof(P), &b, sizeof(P));
  }
}

template <class T>
Function integer_op(int op) {
  switch (op) {
    case max:
      return &arithmetic<T, max>;
    case min:
      return &arithmetic<T, min>;
    case sum:
      return &arithmetic<T, sum>;
    case prod:
      return &arithmetic<T, prod>;
    case land:
      return &arithmetic<T, land>;
    case lor:
      return &arithmetic<T, lor>;
    case lxor:
      return &arithmetic<T, lxor>;
    case band:
      return &arithmetic<T, band>;
    case bor:
      return &arithmetic<T, bor>;
    case bxor:
      return &arithmetic<T, bxor>;
    default:
      return nullptr;
  }
}

template <class T>
Function floating_op(int op) {
  switch (op) {
    case max:
      return &arithmetic<T, max>;
    case min:
      return &arithmetic<T, min>;
    case sum:
      return &arithmetic<T, sum>;
    case prod:
      return &arithmetic<T, prod>;
    default:
      return nullptr;
  }
}

template <class T>
Function complex_op(int op) {
  switch (op) {
    case sum:
      return &arithmetic<T, sum>;
    case prod:
      return &arithmetic<T, prod>;
    default:
      return nullptr;
  }
}

template <class T>
Function logical_op(int op) {
  switch (op) {
    case land:
      return &arithmetic<T, land>;
    case lor:
      return &arithmetic<T, lor>;
    case lxor:
      return &arithmetic<T, lxor>;
    default:
      return nullptr;
  }
}

template <class V, class I>
Function located_op(int op) {
  if (op == maxloc) return &located<V, I, maxloc>;
  if (op == minloc) return &located<V, I, minloc>;
  return nullptr;
}

Function signed_op(std::size_t size, int op) {
  switch (size) {
    case 1:
      return integer_op<std::int8_t>(op);
    case 2:
      return integer_op<std::int16_t>(op);
    case 4:
      return integer_op<std::int32_t>(op);
    case 8:
      return integer_op<std::int64_t>(op);
    default:
      return nullptr;
  }
}

Function unsigned_op(std::size_t size, int op) {
  switch (size) {
    case 1:
      return integer_op<std::uint8_t>(op);
    case 2:
      return integer_op<std::uint16_t>(op);
    case 4:
      return integer_op<std::uint32_t>(op);
    case 8:
      return integer_op<std::uint64_t>(op);
    default:
      return nullptr;
  }
}

Function pair_op(const Datatype& type, int op) {
  switch (type.part) {
    case 2:
      return located_op<short, int>(op);
    case 4:
      return type.reducible == Reducible::pair_same
                 ? (type.size == 8 && std::string(type.name) == "MPI_2INTEGER"
                        ? located_op<std::int32_t, std::int32_t>(op)
                        : located_op<float, float>(op))
                 : (std::string(type.name) == "MPI_2INT" ? located_op<int, int>(op)
                                                         : located_op<float, int>(op));
    case 8:
      return type.reducible == Reducible::pair_same
                 ? located_op<double, double>(op)
                 : (std::string(type.name) == "MPI_LONG_INT" ? located_op<long, int>(op)
                                                             : located_op<double, int>(op));
    case 16:
      return located_op<long double, int>(op);
    default:
      return nullptr;
  }
}

// Whether any grouping and order of `a op b op c ...` gives the same bits: every operator on
// integers and logicals (sums and products wrap around), none on floating-point numbers.
bool exact(const Datatype& type) {
  switch (type.reducible) {
    case Reducible::signed_integer:
    case Reducible::character:
    case Reducible::unsigned_integer:
    case Reducible::logical:
      return true;
    default:
      return false;
  }
}

// Whether `a op b` has the bits of `b op a`: every exact operator; sums and products of
// floating-point numbers (IEEE operations commute; only which of two NaNs' payloads survives may
// differ); sums of complex numbers. Not the maxima and minima of floating-point numbers (the
// sign of a zero, a NaN) nor the pairs' location operators (not needed).
bool symmetric(const Datatype& type, int op) {
  if (exact(type)) return true;
  switch (type.reducible) {
    case Reducible::floating:
    case Reducible::quad:
      return op == sum || op == prod;
    case Reducible::complex:
    case Reducible::quad_complex:
      return op == sum;
    default:
      return false;
  }
}

// The function of predefined operator `op` on `type`, or nullptr where it does not apply.
Function predefined(const Datatype& type, int op) {
  switch (type.reducible) {
    case Reducible::signed_integer:
    case Reducible::character:
      return signed_op(type.size, op);
    case Reducible::unsigned_integer:
      return unsigned_op(type.size, op);
    case Reducible::floating:
      if (type.size == 4) return floating_op<float>(op);
      if (type.size == 8) return floating_op<double>(op);
      return floating_op<long double>(op);
    case Reducible::quad:
      return floating_op<__float128>(op);
    case Reducible::complex:
      if (type.part == 4) return complex_op<std::complex<float>>(op);
      if (type.part == 8) return complex_op<std::complex<double>>(op);
      return complex_op<std::complex<long double>>(op);
    case Reducible::quad_complex:
      return complex_op<_Complex __float128>(op);
    case Reducible::logical:
      return type.size == 1 ? logical_op<std::uint8_t>(op) : logical_op<std::int32_t>(op);
    case Reducible::pair:
    case Reducible::pair_same:
      return pair_op(type, op);
    case Reducible::none:
      return nullptr;
  }
  return nullptr;
}

// A program's operator: MPI_User_function(in, inout, &len, &datatype).
void call_user(const void* in, void* inout, std::size_t count, const void* self) {
  const auto& operation = *static_cast<const Operation*>(self);
  int len = static_cast<int>(count);
  MPI_Datatype datatype = operation.datatype;
  operation.user(const_cast<void*>(in), inout, &len, &datatype);
}

// A program's operator on a derived datatype of several basic types (Operation::layout): the
// packed operands are laid out in scratch memory as the datatype lays them out (its holes
// zero), the operator called on `count` of them with the datatype, and the result packed back.
// Two unpacks and a pack per call: the layout is the program's contract with its operator.
void call_user_laid_out(const void* in, void* inout, std::size_t count, const void* self) {
  const auto& operation = *static_cast<const Operation*>(self);
  const Typemap& map = *operation.layout->map;
  const std::size_t packed = count * operation.layout->size;
  // The span `count` elements cover from the buffer's address, its lowest byte at `low`.
  const std::int64_t last = static_cast<std::int64_t>(count) - 1;
  const std::int64_t low = std::min(map.true_lb(), map.true_lb() + last * map.extent());
  const std::int64_t high =
      std::max(map.true_lb(), map.true_lb() + last * map.extent()) + map.true_extent();
  std::vector<std::byte> a(static_cast<std::size_t>(high - low));
  std::vector<std::byte> b(a.size());
  std::byte* a_base = a.data() - low;
  std::byte* b_base = b.data() - low;
  map.unpack(static_cast<const std::byte*>(in), packed, a_base, count);
  map.unpack(static_cast<const std::byte*>(inout), packed, b_base, count);
  int len = static_cast<int>(count);
  MPI_Datatype datatype = operation.datatype;
  operation.user(a_base, b_base, &len, &datatype);
  map.pack(b_base, count, static_cast<std::byte*>(inout));
}

}  // namespace

static_assert(replace_index == replace && no_op_index == no_op);

CombineFunction predefined_function(const Datatype& type, int op) {
  return predefined(type, op);
}

int predefined_index(const char* call, MPI_Op op) {
  const auto value = reinterpret_cast<std::uintptr_t>(op);
  const std::uintptr_t index = value & VMPI_INDEX_MASK;
  if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) != VMPI_OP_BASE || index >= VMPI_OP_COUNT) {
    fail(call, MPI_ERR_OP,
         "op " + (op == MPI_OP_NULL ? std::string("MPI_OP_NULL") : handle_text(op)) +
             " is not a predefined operator (one-sided accumulates take only those)");
  }
  return static_cast<int>(index);
}

Operation operation_of(const char* call, Objects& objects, MPI_Op op, MPI_Datatype datatype,
                       const Datatype& type) {
  const auto value = reinterpret_cast<std::uintptr_t>(op);
  Operation operation;
  operation.datatype = datatype;
  operation.element = type.size;
  if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) != VMPI_OP_BASE) {
    fail(call, MPI_ERR_OP,
         "op " + (op == MPI_OP_NULL ? std::string("MPI_OP_NULL") : handle_text(op)) +
             " is not an operator");
  }
  const int index = static_cast<int>(value & VMPI_INDEX_MASK);
  if (index >= VMPI_OP_COUNT) {
    const UserOp* user = objects.user_ops.find(index - VMPI_OP_COUNT);
    if (user == nullptr) {
      fail(call, MPI_ERR_OP, "op " + handle_text(op) + " is not an operator of this rank (freed?)");
    }
    operation.user = user->function;
    operation.function = &call_user;
    return operation;
  }
  operation.function = predefined(type, index);
  if (operation.function == nullptr) {
    fail(call, MPI_ERR_OP,
         std::string(op_names[index]) + " does not apply to " + type.name +
             (index == replace || index == no_op ? " (it is for MPI_Accumulate only)" : ""));
  }
  operation.symmetric = symmetric(type, index);
  operation.exact = exact(type);
  return operation;
}

Reduction reduction_of(const char* call, Objects& objects, int count, MPI_Datatype datatype,
                       MPI_Op op) {
  const Datatype& type = datatype_of(call, datatype);
  const std::size_t n = count_of(call, count);
  if (type.map == nullptr) {
    Operation operation = operation_of(call, objects, op, datatype, type);
    operation.splittable = true;
    return {type, n, type, n, operation};
  }
  if (type.element == nullptr) {
    const auto value = reinterpret_cast<std::uintptr_t>(op);
    const bool program_operator = (value & ~std::uintptr_t{VMPI_INDEX_MASK}) == VMPI_OP_BASE &&
                                  (value & VMPI_INDEX_MASK) >= VMPI_OP_COUNT;
    if (!program_operator) {
      fail(call, MPI_ERR_OP,
           "datatype " + handle_text(datatype) +
               " is a derived datatype whose elements are not all of one basic type (or are "
               "{value, index} pairs): a predefined operator does not apply to it (an operator "
               "of MPI_Op_create does)");
    }
    Operation operation = operation_of(call, objects, op, datatype, type);
    operation.function = &call_user_laid_out;
    operation.layout = &type;
    return {type, n, type, n, operation};
  }
  const Datatype& element = *type.element;
  const MPI_Datatype basic = reinterpret_cast<MPI_Datatype>(
      static_cast<std::uintptr_t>(VMPI_DATATYPE_BASE + (&element - datatypes)));
  const std::size_t per = type.size / element.size;
  Operation operation = operation_of(call, objects, op, basic, element);
  operation.splittable = operation.user == nullptr;
  return {type, n, element, n * per, operation};
}

}  // namespace vela::mpi::detail

using namespace vela;
using namespace vela::mpi::detail;

extern "C" {

int VPMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  constexpr const char* call = "MPI_Op_create";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, reinterpret_cast<const void*>(user_fn), "user_fn");
    check_out(call, op, "op");
    const InRankHeap heap;
    const int index = objects.user_ops.add(UserOp{user_fn, commute != 0});
    *op =
        reinterpret_cast<MPI_Op>(static_cast<std::uintptr_t>(VMPI_OP_BASE + VMPI_OP_COUNT + index));
  });
}

int VPMPI_Op_free(MPI_Op* op) {
  constexpr const char* call = "MPI_Op_free";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, op, "op");
    const auto value = reinterpret_cast<std::uintptr_t>(*op);
    const int index = static_cast<int>(value & VMPI_INDEX_MASK) - VMPI_OP_COUNT;
    if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) != VMPI_OP_BASE || index < 0 ||
        objects.user_ops.find(index) == nullptr) {
      fail(call, MPI_ERR_OP,
           "op " + handle_text(*op) + " is not an operator made by MPI_Op_create (or freed)");
    }
    objects.user_ops.remove(index);
    *op = MPI_OP_NULL;
  });
}

int VPMPI_Op_commutative(MPI_Op op, int* commute) {
  constexpr const char* call = "MPI_Op_commutative";
  return guarded(call, [&](const Label& label) {
    Objects& objects = active(call, label);
    check_out(call, commute, "commute");
    const auto value = reinterpret_cast<std::uintptr_t>(op);
    const int index = static_cast<int>(value & VMPI_INDEX_MASK);
    if ((value & ~std::uintptr_t{VMPI_INDEX_MASK}) != VMPI_OP_BASE) {
      fail(call, MPI_ERR_OP, "op " + handle_text(op) + " is not an operator");
    }
    if (index < VMPI_OP_COUNT) {
      *commute = 1;
      return;
    }
    const UserOp* user = objects.user_ops.find(index - VMPI_OP_COUNT);
    if (user == nullptr) fail(call, MPI_ERR_OP, "op " + handle_text(op) + " was freed");
    *commute = user->commute ? 1 : 0;
  });
}

}  // extern "C"

// The MPI names, weak aliases of the profiling names (a tool's own MPI_x takes their place).
VMPI_PROFILED(Op_create);
VMPI_PROFILED(Op_free);
VMPI_PROFILED(Op_commutative);
