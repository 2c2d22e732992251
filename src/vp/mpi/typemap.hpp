// The datatype engine of the MPI layer (MPI 3.1 chapter 4, derived datatypes), with no handles:
// a Typemap is what a datatype handle stands for. The MPI calls map handles to Typemaps and call
// the factory functions here; a bad argument is a TypeError naming the call and the argument.
//
// A type map is kept flattened into a small tree of shared, immutable nodes: a leaf is n basic
// elements side by side, a repeat is one part at `count` strided offsets, a sequence is parts in
// type-map order. Regular layouts stay regular (vector(10^6, 1, 2, MPI_DOUBLE) is one repeat of
// one leaf), so a type costs memory in proportion to its description, never to its counts, and
// building one on another shares the other's nodes. Bounds (lb, ub, true bounds) are computed
// from the constructor's arguments as the standard defines them, not from the tree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace vela::mpi::detail {

// The predefined (basic) datatypes. The pair types are MINLOC/MAXLOC's (C layout: struct {T v;
// int i;}); the Fortran types are as C sees gfortran's defaults.
// clang-format off
enum class Basic : std::uint8_t {
  char_, signed_char, unsigned_char, byte, short_, unsigned_short, int_, unsigned_, long_,
  unsigned_long, long_long, unsigned_long_long, float_, double_, long_double, wchar, c_bool,
  int8, uint8, int16, uint16, int32, uint32, int64, uint64, c_float_complex, c_double_complex,
  c_long_double_complex, aint, offset, count, packed, cxx_bool, cxx_float_complex,
  cxx_double_complex, cxx_long_double_complex,
  float_int, double_int, long_int, two_int, short_int, long_double_int,
  f_integer, f_real, f_double_precision, f_complex, f_double_complex, f_logical, f_character,
  f_2real, f_2double_precision, f_2integer, f_integer1, f_integer2, f_integer4, f_integer8,
  f_real4, f_real8, f_real16, f_complex8, f_complex16, f_complex32
};
// clang-format on
constexpr int basic_count = static_cast<int>(Basic::f_complex32) + 1;

// What a reduction may do with a basic type (MPI 3.1 §5.9.2's groups).
enum class BasicClass : std::uint8_t { integer, floating, logical, complex, byte, character, pair };

// How one scalar is stored, for external32: raw bytes, a signed or unsigned integer, an IEEE
// binary float of the same width in both, or the platform's long double (binary128 in external32).
enum class Scalar : std::uint8_t { raw, sint, uint, ieee, long_double };

struct BasicInfo {
  const char* name;              // "MPI_INT"
  std::uint8_t size;             // sizeof the C type (a pair's struct, padding included)
  std::uint8_t alignment;        // alignof the C type
  std::uint8_t external32_size;  // bytes in external32 (MPI 3.1 Table 13.2)
  BasicClass kind;
  Scalar scalar;              // for non-pairs
  std::uint8_t scalars;       // 2 for complex numbers (real, imaginary), else 1
  Basic value, index;         // pairs: the value's and the index's basic types
  std::uint8_t index_offset;  // pairs: where the index lies in the struct
};
const BasicInfo& info(Basic b);
// Bytes of data in one element of `b` (a pair's value and index, without its padding).
std::size_t data_size(Basic b);

enum class ErrorClass : std::uint8_t { count, type, arg, truncate, buffer, dims, other };

// A bad constructor argument or a bad pack/unpack: what() is a sentence naming the call and the
// argument; mpi_class says which MPI error class fits.
class TypeError : public std::runtime_error {
 public:
  TypeError(ErrorClass mpi_class, const std::string& what)
      : std::runtime_error(what), mpi_class_(mpi_class) {}
  ErrorClass mpi_class() const { return mpi_class_; }

 private:
  ErrorClass mpi_class_;
};

// MPI_Type_get_envelope's combiners.
enum class Combiner : std::uint8_t {
  named,
  dup,
  contiguous,
  vector,
  hvector,
  indexed,
  hindexed,
  indexed_block,
  hindexed_block,
  structure,
  subarray,
  darray,
  resized
};

// What MPI_Type_get_contents returns, laid out as the standard lists it per combiner (3.1
// §4.1.13). The datatypes are the caller's opaque ids (Typemap::set_children); a subarray's or
// darray's order is stored as 0 (C) or 1 (Fortran), a darray's distributions and arguments as
// given, for the caller to map to its MPI_ORDER_* / MPI_DISTRIBUTE_* constants.
struct Envelope {
  Combiner combiner = Combiner::named;
  std::vector<std::int64_t> integers;
  std::vector<std::int64_t> addresses;
  std::vector<std::uint64_t> children;
};

struct Node;

// A flattened type map. Immutable after construction (except for set_children); copies share
// their nodes.
class Typemap {
 public:
  // The layout's building block: `node` placed at byte `offset` from an element's origin.
  struct Part {
    std::int64_t offset = 0;
    std::shared_ptr<const Node> node;
  };

  static Typemap basic(Basic b);
  static Typemap dup(const Typemap& old);
  static Typemap contiguous(const char* call, long long count, const Typemap& old);
  // `stride` in extents of `old`.
  static Typemap vector(const char* call, long long count, long long blocklength, long long stride,
                        const Typemap& old);
  static Typemap hvector(const char* call, long long count, long long blocklength,
                         std::int64_t stride_bytes, const Typemap& old);
  // `displacements` in extents of `old`.
  static Typemap indexed(const char* call, std::span<const int> blocklengths,
                         std::span<const int> displacements, const Typemap& old);
  static Typemap hindexed(const char* call, std::span<const int> blocklengths,
                          std::span<const std::int64_t> displacements_bytes, const Typemap& old);
  static Typemap indexed_block(const char* call, int blocklength,
                               std::span<const int> displacements, const Typemap& old);
  static Typemap hindexed_block(const char* call, int blocklength,
                                std::span<const std::int64_t> displacements, const Typemap& old);
  static Typemap structure(const char* call, std::span<const int> blocklengths,
                           std::span<const std::int64_t> displacements,
                           std::span<const Typemap* const> types);
  static Typemap subarray(const char* call, std::span<const int> sizes,
                          std::span<const int> subsizes, std::span<const int> starts,
                          bool fortran_order, const Typemap& old);
  // distribs: block = 0, cyclic = 1, none = 2; a darg of -1 is the default.
  static Typemap darray(const char* call, int size, int rank, std::span<const int> gsizes,
                        std::span<const int> distribs, std::span<const int> dargs,
                        std::span<const int> psizes, bool fortran_order, const Typemap& old);
  static Typemap resized(const char* call, std::int64_t lb, std::int64_t extent,
                         const Typemap& old);

  std::size_t size() const;  // bytes of data in one element (MPI_Type_size)
  std::int64_t lb() const { return lb_; }
  std::int64_t ub() const { return ub_; }
  std::int64_t extent() const { return ub_ - lb_; }
  std::int64_t true_lb() const { return true_lb_; }
  std::int64_t true_extent() const { return true_ub_ - true_lb_; }
  // One element is size() bytes at true_lb() with no holes, in type-map order, and extent() ==
  // size(): `count` elements are one block of memory.
  bool contiguous() const;
  // The one basic type of every element of the signature, if there is one.
  std::optional<Basic> homogeneous() const;
  // Basic elements in one element (a pair type counts two, as its type map has two entries).
  std::size_t basic_elements() const;
  std::size_t alignment() const { return align_; }
  // Nodes in the flattened layout: what the type costs in memory, whatever its counts.
  std::size_t layout_nodes() const;

  // Packs `count` elements at `buffer` into count * size() bytes at `out`.
  void pack(const void* buffer, std::size_t count, std::byte* out) const;
  // Unpacks `bytes` packed bytes into `count` elements at `buffer`: fewer than count * size()
  // (a short message) fill the first basic elements in type-map order, a partial basic element
  // at the end is left out; more is a TypeError(truncate).
  void unpack(const std::byte* in, std::size_t bytes, void* buffer, std::size_t count) const;
  // The runs of data of `count` elements at offset 0, in type-map order (packing order):
  // visit(offset, bytes) for each, adjacent runs merged. O(runs).
  void runs(std::size_t count, const std::function<void(std::int64_t, std::size_t)>& visit) const;
  // MPI_Get_elements: basic elements in `bytes` packed bytes, -1 (MPI_UNDEFINED) when `bytes`
  // does not end on a basic element.
  long long elements_in(std::size_t bytes) const;

  // external32 (MPI_Pack_external): big-endian, each basic type at its external32 size.
  std::size_t external32_size() const;  // per element
  void pack_external32(const void* buffer, std::size_t count, std::byte* out) const;
  void unpack_external32(const std::byte* in, void* buffer, std::size_t count) const;

  // MPI_Type_get_envelope / MPI_Type_get_contents.
  const Envelope& envelope() const { return *envelope_; }
  Combiner combiner() const { return envelope_->combiner; }
  // Records the datatype ids this type was made of (one per type argument of its call).
  void set_children(std::vector<std::uint64_t> ids);

 private:
  Typemap() = default;

  Part root_;
  std::int64_t lb_ = 0, ub_ = 0, true_lb_ = 0, true_ub_ = 0;
  bool explicit_bounds_ = false;  // lb and ub were set by MPI_Type_create_resized (sticky)
  std::uint8_t align_ = 1;        // the largest alignment of its basic types
  std::shared_ptr<Envelope> envelope_;

  friend class TypemapBuilder;
};

}  // namespace vela::mpi::detail
