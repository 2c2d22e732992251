// Element types and the reduction operators over them.
#include <cmath>
#include <cstring>
#include <string>

#include "messaging/reduce_ops.hpp"
#include "vela/vp/vp.hpp"

namespace vela::vp {

namespace {

struct DoubleInt {
  double value;
  int index;
};
struct IntInt {
  int value;
  int index;
};

}  // namespace

void detail::unknown_type(int type) {
  throw Error("unknown datatype " + std::to_string(type));
}

static_assert(sizeof(DoubleInt) == 16 && sizeof(IntInt) == 8,
              "the {value, index} types' sizes in vp.hpp's table");

const char* name_of(Type type) {
  switch (type) {
    case Type::bytes:
      return "bytes";
    case Type::i8:
      return "int8";
    case Type::u8:
      return "uint8";
    case Type::char8:
      return "char";
    case Type::i16:
      return "int16";
    case Type::u16:
      return "uint16";
    case Type::i32:
      return "int32";
    case Type::u32:
      return "uint32";
    case Type::f32:
      return "float";
    case Type::i64:
      return "int64";
    case Type::u64:
      return "uint64";
    case Type::f64:
      return "double";
    case Type::f128:
      return "long double";
    case Type::pair_f64_i32:
      return "{double, int}";
    case Type::pair_i32_i32:
      return "{int, int}";
  }
  return "unknown datatype";
}

const char* name_of(Op op) {
  switch (op) {
    case Op::sum:
      return "sum";
    case Op::prod:
      return "prod";
    case Op::min:
      return "min";
    case Op::max:
      return "max";
    case Op::land:
      return "logical and";
    case Op::lor:
      return "logical or";
    case Op::band:
      return "bitwise and";
    case Op::bor:
      return "bitwise or";
    case Op::maxloc:
      return "maxloc";
    case Op::minloc:
      return "minloc";
  }
  return "unknown op";
}

namespace detail {

namespace {

template <class T>
void arithmetic(Op op, T* acc, const T* in, std::size_t n, const char* call, Type type) {
  for (std::size_t i = 0; i < n; ++i) {
    T a = acc[i];
    const T b = in[i];
    switch (op) {
      case Op::sum:
        a = static_cast<T>(a + b);
        break;
      case Op::prod:
        a = static_cast<T>(a * b);
        break;
      case Op::min:
        a = b < a ? b : a;
        break;
      case Op::max:
        a = a < b ? b : a;
        break;
      case Op::land:
        a = static_cast<T>((a != T{}) && (b != T{}));
        break;
      case Op::lor:
        a = static_cast<T>((a != T{}) || (b != T{}));
        break;
      case Op::band:
      case Op::bor:
        if constexpr (std::is_integral_v<T>) {
          a = op == Op::band ? static_cast<T>(a & b) : static_cast<T>(a | b);
          break;
        } else {
          throw Error(std::string(call) + ": " + name_of(op) + " of " + name_of(type) +
                      " (bitwise operators need an integer type)");
        }
      case Op::maxloc:
      case Op::minloc:
        throw Error(std::string(call) + ": " + name_of(op) + " needs a {value, index} type, not " +
                    name_of(type));
    }
    acc[i] = a;
  }
}

template <class P>
void located(Op op, P* acc, const P* in, std::size_t n, const char* call, Type type) {
  if (op != Op::maxloc && op != Op::minloc) {
    throw Error(std::string(call) + ": " + name_of(op) + " of " + name_of(type) +
                " (a {value, index} type takes maxloc or minloc)");
  }
  for (std::size_t i = 0; i < n; ++i) {
    const bool better = op == Op::maxloc ? in[i].value > acc[i].value : in[i].value < acc[i].value;
    if (better || (in[i].value == acc[i].value && in[i].index < acc[i].index)) acc[i] = in[i];
  }
}

}  // namespace

void check_op(const char* call, Type type, Op op) {
  if (static_cast<std::uint8_t>(op) > static_cast<std::uint8_t>(Op::minloc)) {
    throw Error(std::string(call) + ": unknown reduction operator " +
                std::to_string(static_cast<int>(op)));
  }
  if (type == Type::bytes) {
    throw Error(std::string(call) + ": cannot reduce raw bytes: give the element type");
  }
  // A dry run on one zero element checks the pairing of operator and type.
  alignas(16) std::byte a[32] = {};
  alignas(16) std::byte b[32] = {};
  combine(op, type, a, b, 1, call);
}

void combine(Op op, Type type, void* acc, const void* in, std::size_t n, const char* call) {
  switch (type) {
    case Type::bytes:
      throw Error(std::string(call) + ": cannot reduce raw bytes: give the element type");
    case Type::i8:
      return arithmetic(op, static_cast<std::int8_t*>(acc), static_cast<const std::int8_t*>(in), n,
                        call, type);
    case Type::u8:
      return arithmetic(op, static_cast<std::uint8_t*>(acc), static_cast<const std::uint8_t*>(in),
                        n, call, type);
    case Type::char8:
      return arithmetic(op, static_cast<char*>(acc), static_cast<const char*>(in), n, call, type);
    case Type::i16:
      return arithmetic(op, static_cast<std::int16_t*>(acc), static_cast<const std::int16_t*>(in),
                        n, call, type);
    case Type::u16:
      return arithmetic(op, static_cast<std::uint16_t*>(acc), static_cast<const std::uint16_t*>(in),
                        n, call, type);
    case Type::i32:
      return arithmetic(op, static_cast<std::int32_t*>(acc), static_cast<const std::int32_t*>(in),
                        n, call, type);
    case Type::u32:
      return arithmetic(op, static_cast<std::uint32_t*>(acc), static_cast<const std::uint32_t*>(in),
                        n, call, type);
    case Type::i64:
      return arithmetic(op, static_cast<std::int64_t*>(acc), static_cast<const std::int64_t*>(in),
                        n, call, type);
    case Type::u64:
      return arithmetic(op, static_cast<std::uint64_t*>(acc), static_cast<const std::uint64_t*>(in),
                        n, call, type);
    case Type::f32:
      return arithmetic(op, static_cast<float*>(acc), static_cast<const float*>(in), n, call, type);
    case Type::f64:
      return arithmetic(op, static_cast<double*>(acc), static_cast<const double*>(in), n, call,
                        type);
    case Type::f128:
      return arithmetic(op, static_cast<long double*>(acc), static_cast<const long double*>(in), n,
                        call, type);
    case Type::pair_f64_i32:
      return located(op, static_cast<DoubleInt*>(acc), static_cast<const DoubleInt*>(in), n, call,
                     type);
    case Type::pair_i32_i32:
      return located(op, static_cast<IntInt*>(acc), static_cast<const IntInt*>(in), n, call, type);
  }
  throw Error(std::string(call) + ": unknown datatype " + std::to_string(static_cast<int>(type)));
}

}  // namespace detail
}  // namespace vela::vp
