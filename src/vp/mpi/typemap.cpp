// The datatype engine (typemap.hpp): construction, bounds and pack/unpack of flattened type maps.
//
// Invariants of the layout tree: a node is immutable and shared; a part of size 0 is never kept
// in a sequence; a sequence never holds a sequence (children are spliced in), and neighbours that
// continue one another (a leaf after a leaf of the same basic type, the same node one stride on)
// are joined, so vector, subarray and regular indexed layouts become nested repeats. A node is
// `dense` when its data is `size` bytes at [0, size) in type-map order: packing it is one memcpy.
//
// Costs: a constructor is O(its argument arrays) plus O(depth) for the repeats it wraps; packing
// is O(leaves visited) with no allocation, a repeat of a dense part being one tight strided loop;
// elements_in and the boundary of a short unpack are O(depth * sequence width).
//
// Bounds follow MPI 3.1 §4.1.6: lb and ub are the least and greatest of the placed blocks' lb and
// ub, except that bounds set by MPI_Type_create_resized are sticky (once a block carries them,
// only such blocks count); a struct's extent is rounded up to the largest alignment of its basic
// types unless its bounds are sticky. true_lb/true_ub cover the data alone. Subarray and darray
// are built dimension by dimension, each resized to [0, the full dimension), as the standard
// defines them. Every size, extent and offset is checked against int64 overflow.
#include "typemap.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace vela::mpi::detail {

constexpr std::int16_t kNoData = -1;  // Node::only of a node with no data
constexpr std::int16_t kMixed = -2;   // Node::only of a node with several basic types

struct Node {
  enum class Kind : std::uint8_t { leaf, repeat, sequence };
  Kind kind = Kind::sequence;
  bool dense = true;
  Basic basic = Basic::byte;  // leaf: its basic type
  std::int16_t only = kNoData;
  std::uint64_t count = 0;           // leaf: elements of `basic`; repeat: repetitions
  std::int64_t stride = 0;           // leaf: sizeof `basic`; repeat: bytes between repetitions
  std::vector<Typemap::Part> parts;  // repeat: the repeated part; sequence: in type-map order
  std::uint64_t size = 0;            // data bytes
  std::uint64_t elements = 0;        // basic elements
  std::uint64_t external32 = 0;      // bytes in external32
};

namespace {

using Part = Typemap::Part;
using NodePtr = std::shared_ptr<const Node>;

// ---- the predefined types ----

template <class T>
struct Pair {
  T value;
  int index;
};

constexpr BasicInfo plain(const char* name, std::size_t size, std::size_t alignment,
                          std::size_t external32, BasicClass kind, Scalar scalar,
                          std::size_t scalars = 1) {
  return {name,
          static_cast<std::uint8_t>(size),
          static_cast<std::uint8_t>(alignment),
          static_cast<std::uint8_t>(external32),
          kind,
          scalar,
          static_cast<std::uint8_t>(scalars),
          Basic::byte,
          Basic::byte,
          0};
}
template <class T>
constexpr BasicInfo plain(const char* name, std::size_t external32, BasicClass kind,
                          Scalar scalar) {
  return plain(name, sizeof(T), alignof(T), external32, kind, scalar);
}
// A complex number of two T (C's _Complex T has T's alignment).
template <class T>
constexpr BasicInfo complex(const char* name, std::size_t external32, Scalar scalar) {
  return plain(name, 2 * sizeof(T), alignof(T), 2 * external32, BasicClass::complex, scalar, 2);
}
// A MINLOC/MAXLOC pair laid out as struct {T value; U index;}.
template <class T, class U>
constexpr BasicInfo pair(const char* name, std::size_t external32, Basic value, Basic index) {
  struct Layout {
    T value;
    U index;
  };
  return {name,
          static_cast<std::uint8_t>(sizeof(Layout)),
          static_cast<std::uint8_t>(alignof(Layout)),
          static_cast<std::uint8_t>(external32),
          BasicClass::pair,
          Scalar::raw,
          1,
          value,
          index,
          static_cast<std::uint8_t>(offsetof(Layout, index))};
}

constexpr Scalar signed_or_unsigned(bool is_signed) {
  return is_signed ? Scalar::sint : Scalar::uint;
}

using C = BasicClass;
using S = Scalar;
// In Basic's order; gfortran's real(16) is IEEE binary128, its logical a 4-byte integer.
const BasicInfo kBasics[basic_count] = {
    plain<char>("MPI_CHAR", 1, C::character, S::raw),
    plain<signed char>("MPI_SIGNED_CHAR", 1, C::integer, S::sint),
    plain<unsigned char>("MPI_UNSIGNED_CHAR", 1, C::integer, S::uint),
    plain<unsigned char>("MPI_BYTE", 1, C::byte, S::raw),
    plain<short>("MPI_SHORT", 2, C::integer, S::sint),
    plain<unsigned short>("MPI_UNSIGNED_SHORT", 2, C::integer, S::uint),
    plain<int>("MPI_INT", 4, C::integer, S::sint),
    plain<unsigned>("MPI_UNSIGNED", 4, C::integer, S::uint),
    plain<long>("MPI_LONG", 4, C::integer, S::sint),
    plain<unsigned long>("MPI_UNSIGNED_LONG", 4, C::integer, S::uint),
    plain<long long>("MPI_LONG_LONG", 8, C::integer, S::sint),
    plain<unsigned long long>("MPI_UNSIGNED_LONG_LONG", 8, C::integer, S::uint),
    plain<float>("MPI_FLOAT", 4, C::floating, S::ieee),
    plain<double>("MPI_DOUBLE", 8, C::floating, S::ieee),
    plain<long double>("MPI_LONG_DOUBLE", 16, C::floating, S::long_double),
    plain<wchar_t>("MPI_WCHAR", 2, C::character, signed_or_unsigned(std::is_signed_v<wchar_t>)),
    plain<bool>("MPI_C_BOOL", 1, C::logical, S::raw),
    plain<std::int8_t>("MPI_INT8_T", 1, C::integer, S::sint),
    plain<std::uint8_t>("MPI_UINT8_T", 1, C::integer, S::uint),
    plain<std::int16_t>("MPI_INT16_T", 2, C::integer, S::sint),
    plain<std::uint16_t>("MPI_UINT16_T", 2, C::integer, S::uint),
    plain<std::int32_t>("MPI_INT32_T", 4, C::integer, S::sint),
    plain<std::uint32_t>("MPI_UINT32_T", 4, C::integer, S::uint),
    plain<std::int64_t>("MPI_INT64_T", 8, C::integer, S::sint),
    plain<std::uint64_t>("MPI_UINT64_T", 8, C::integer, S::uint),
    complex<float>("MPI_C_FLOAT_COMPLEX", 4, S::ieee),
    complex<double>("MPI_C_DOUBLE_COMPLEX", 8, S::ieee),
    complex<long double>("MPI_C_LONG_DOUBLE_COMPLEX", 16, S::long_double),
    plain<std::ptrdiff_t>("MPI_AINT", 8, C::integer, S::sint),
    plain<long long>("MPI_OFFSET", 8, C::integer, S::sint),
    plain<long long>("MPI_COUNT", 8, C::integer, S::sint),
    plain<unsigned char>("MPI_PACKED", 1, C::byte, S::raw),
    plain<bool>("MPI_CXX_BOOL", 1, C::logical, S::raw),
    complex<float>("MPI_CXX_FLOAT_COMPLEX", 4, S::ieee),
    complex<double>("MPI_CXX_DOUBLE_COMPLEX", 8, S::ieee),
    complex<long double>("MPI_CXX_LONG_DOUBLE_COMPLEX", 16, S::long_double),
    pair<float, int>("MPI_FLOAT_INT", 8, Basic::float_, Basic::int_),
    pair<double, int>("MPI_DOUBLE_INT", 12, Basic::double_, Basic::int_),
    pair<long, int>("MPI_LONG_INT", 8, Basic::long_, Basic::int_),
    pair<int, int>("MPI_2INT", 8, Basic::int_, Basic::int_),
    pair<short, int>("MPI_SHORT_INT", 6, Basic::short_, Basic::int_),
    pair<long double, int>("MPI_LONG_DOUBLE_INT", 20, Basic::long_double, Basic::int_),
    plain<std::int32_t>("MPI_INTEGER", 4, C::integer, S::sint),
    plain<float>("MPI_REAL", 4, C::floating, S::ieee),
    plain<double>("MPI_DOUBLE_PRECISION", 8, C::floating, S::ieee),
    complex<float>("MPI_COMPLEX", 4, S::ieee),
    complex<double>("MPI_DOUBLE_COMPLEX", 8, S::ieee),
    plain<std::int32_t>("MPI_LOGICAL", 4, C::logical, S::sint),
    plain<char>("MPI_CHARACTER", 1, C::character, S::raw),
    pair<float, float>("MPI_2REAL", 8, Basic::f_real, Basic::f_real),
    pair<double, double>("MPI_2DOUBLE_PRECISION", 16, Basic::f_double_precision,
                         Basic::f_double_precision),
    pair<std::int32_t, std::int32_t>("MPI_2INTEGER", 8, Basic::f_integer, Basic::f_integer),
    plain<std::int8_t>("MPI_INTEGER1", 1, C::integer, S::sint),
    plain<std::int16_t>("MPI_INTEGER2", 2, C::integer, S::sint),
    plain<std::int32_t>("MPI_INTEGER4", 4, C::integer, S::sint),
    plain<std::int64_t>("MPI_INTEGER8", 8, C::integer, S::sint),
    plain<float>("MPI_REAL4", 4, C::floating, S::ieee),
    plain<double>("MPI_REAL8", 8, C::floating, S::ieee),
    plain("MPI_REAL16", 16, 16, 16, C::floating, S::ieee),
    complex<float>("MPI_COMPLEX8", 4, S::ieee),
    complex<double>("MPI_COMPLEX16", 8, S::ieee),
    plain("MPI_COMPLEX32", 32, 16, 32, C::complex, S::ieee, 2),
};
static_assert(std::numeric_limits<long double>::digits == 64 ||
                  std::numeric_limits<long double>::digits == 113,
              "external32 of MPI_LONG_DOUBLE handles x87 extended and binary128 long doubles");

std::size_t basic_size(Basic b) {
  return info(b).size;
}
bool is_pair(Basic b) {
  return info(b).kind == BasicClass::pair;
}
std::uint64_t elements_of(Basic b) {
  return is_pair(b) ? 2 : 1;
}
// The pair's value and index lie side by side (all pairs but MPI_SHORT_INT).
bool data_is_contiguous(Basic b) {
  const BasicInfo& i = info(b);
  return i.kind != BasicClass::pair || i.index_offset == basic_size(i.value);
}

// ---- checked arithmetic: a size, extent or offset past int64 is a TypeError(count) ----

[[noreturn]] void overflow(const char* call) {
  throw TypeError(ErrorClass::count, std::string(call) +
                                         ": the datatype's size, extent or a displacement does "
                                         "not fit in 64 bits");
}
std::int64_t mul(const char* call, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) overflow(call);
  return r;
}
std::int64_t add(const char* call, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) overflow(call);
  return r;
}
std::int64_t sub(const char* call, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) overflow(call);
  return r;
}
std::uint64_t umul(const char* call, std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r) || r > std::uint64_t{INT64_MAX}) overflow(call);
  return r;
}
std::uint64_t uadd(const char* call, std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r) || r > std::uint64_t{INT64_MAX}) overflow(call);
  return r;
}
std::int64_t as_signed(const char* call, std::uint64_t v) {
  if (v > std::uint64_t{INT64_MAX}) overflow(call);
  return static_cast<std::int64_t>(v);
}

[[noreturn]] void bad(ErrorClass c, const char* call, const std::string& what) {
  throw TypeError(c, std::string(call) + ": " + what);
}
std::string indexed_name(const char* name, std::size_t i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}

// ---- layout nodes ----

// A fresh empty node each time (not one shared by the process): a type's nodes live in its
// rank's heap and move with it, and a node shared with the process would have its use count
// raised in one process and lowered in another.
Part empty_part() {
  return {0, std::make_shared<const Node>()};
}
bool is_empty(const Part& p) {
  return p.node->size == 0;
}

NodePtr make_leaf(const char* call, Basic b, std::uint64_t n) {
  auto node = std::make_shared<Node>();
  node->kind = Node::Kind::leaf;
  node->basic = b;
  node->only = static_cast<std::int16_t>(b);
  node->count = n;
  node->stride = static_cast<std::int64_t>(basic_size(b));
  node->size = umul(call, n, data_size(b));
  node->elements = umul(call, n, elements_of(b));
  node->external32 = umul(call, n, info(b).external32_size);
  node->dense = data_is_contiguous(b) && (n == 1 || data_size(b) == basic_size(b));
  return node;
}

NodePtr make_repeat_node(const char* call, std::uint64_t count, std::int64_t stride, Part child) {
  auto node = std::make_shared<Node>();
  const Node& c = *child.node;
  node->kind = Node::Kind::repeat;
  node->only = c.only;
  node->count = count;
  node->stride = stride;
  node->size = umul(call, count, c.size);
  node->elements = umul(call, count, c.elements);
  node->external32 = umul(call, count, c.external32);
  node->dense = c.dense && child.offset == 0 && stride == static_cast<std::int64_t>(c.size);
  node->parts.push_back(std::move(child));
  return node;
}

// `parts` (at least two, none empty, the first at offset 0) in type-map order.
NodePtr make_sequence_node(const char* call, std::vector<Part> parts) {
  auto node = std::make_shared<Node>();
  node->only = parts.front().node->only;
  for (const Part& p : parts) {
    const Node& n = *p.node;
    node->dense = node->dense && n.dense && p.offset == static_cast<std::int64_t>(node->size);
    if (n.only != node->only) node->only = kMixed;
    node->size = uadd(call, node->size, n.size);
    node->elements = uadd(call, node->elements, n.elements);
    node->external32 = uadd(call, node->external32, n.external32);
  }
  node->parts = std::move(parts);
  return node;
}

bool same_node(const Node& a, const Node& b) {
  if (&a == &b) return true;
  return a.kind == Node::Kind::leaf && b.kind == Node::Kind::leaf && a.basic == b.basic &&
         a.count == b.count;
}

// `count` copies of `p`, each `stride` bytes after the previous: a longer leaf or repeat when
// the copies continue the one `p` already is.
Part repeat(const char* call, std::uint64_t count, std::int64_t stride, const Part& p) {
  if (count == 0 || is_empty(p)) return empty_part();
  if (count == 1) return p;
  const Node& n = *p.node;
  std::int64_t span = 0;
  const bool continues = n.kind != Node::Kind::sequence &&
                         !__builtin_mul_overflow(as_signed(call, n.count), n.stride, &span) &&
                         span == stride;
  if (continues && n.kind == Node::Kind::leaf) {
    return {p.offset, make_leaf(call, n.basic, umul(call, count, n.count))};
  }
  if (continues) {
    return {p.offset, make_repeat_node(call, umul(call, count, n.count), n.stride, n.parts[0])};
  }
  return {p.offset, make_repeat_node(call, count, stride, {0, p.node})};
}

// Appends `q` to the flattened parts, joining it to the last part when it continues it.
void append(const char* call, std::vector<Part>& parts, Part q) {
  if (!parts.empty()) {
    Part& last = parts.back();
    const Node& a = *last.node;
    const Node& b = *q.node;
    const std::int64_t gap = sub(call, q.offset, last.offset);
    if (a.kind == Node::Kind::leaf && b.kind == Node::Kind::leaf && a.basic == b.basic &&
        gap == mul(call, as_signed(call, a.count), a.stride)) {
      last.node = make_leaf(call, a.basic, uadd(call, a.count, b.count));
      return;
    }
    if (same_node(a, b)) {  // two copies: a repeat
      last = repeat(call, 2, gap, last);
      return;
    }
    if (a.kind == Node::Kind::repeat && same_node(*a.parts[0].node, b) && a.parts[0].offset == 0 &&
        gap == mul(call, as_signed(call, a.count), a.stride)) {
      last.node = make_repeat_node(call, a.count + 1, a.stride, a.parts[0]);
      return;
    }
  }
  parts.push_back(std::move(q));
}

// The parts one after the other in type-map order, flattened and joined.
Part sequence(const char* call, const std::vector<Part>& parts) {
  std::vector<Part> flat;
  for (const Part& p : parts) {
    if (is_empty(p)) continue;
    if (p.node->kind != Node::Kind::sequence) {
      append(call, flat, p);
      continue;
    }
    for (const Part& q : p.node->parts) append(call, flat, {add(call, p.offset, q.offset), q.node});
  }
  if (flat.empty()) return empty_part();
  if (flat.size() == 1) return flat.front();
  const std::int64_t origin = flat.front().offset;
  for (Part& p : flat) p.offset = sub(call, p.offset, origin);
  return {origin, make_sequence_node(call, std::move(flat))};
}

Part shifted(const char* call, Part p, std::int64_t by) {
  p.offset = add(call, p.offset, by);
  return p;
}

}  // namespace

const BasicInfo& info(Basic b) {
  return kBasics[static_cast<std::size_t>(b)];
}

std::size_t data_size(Basic b) {
  const BasicInfo& i = info(b);
  if (i.kind != BasicClass::pair) return i.size;
  return data_size(i.value) + data_size(i.index);
}

// ---- construction: blocks placed one by one, with the bounds they bring ----

class TypemapBuilder {
 public:
  explicit TypemapBuilder(const char* call) : call_(call) {}

  // `count` blocks of `blocklength` copies of `t` (side by side at its extent), block k at
  // `displacement` + k * `stride` bytes.
  void place(const Typemap& t, std::uint64_t count, std::int64_t stride, std::uint64_t blocklength,
             std::int64_t displacement) {
    if (count == 0 || blocklength == 0) return;
    const std::int64_t within = mul(call_, as_signed(call_, blocklength - 1), t.extent());
    const std::int64_t across = mul(call_, as_signed(call_, count - 1), stride);
    const std::int64_t low =
        add(call_, std::min<std::int64_t>(0, within), std::min<std::int64_t>(0, across));
    const std::int64_t high =
        add(call_, std::max<std::int64_t>(0, within), std::max<std::int64_t>(0, across));
    bound(t.explicit_bounds_, add(call_, add(call_, displacement, t.lb_), low),
          add(call_, add(call_, displacement, t.ub_), high));
    if (t.size() > 0) {
      true_bound(add(call_, add(call_, displacement, t.true_lb_), low),
                 add(call_, add(call_, displacement, t.true_ub_), high));
    }
    align_ = std::max(align_, t.align_);
    const Part block = repeat(call_, blocklength, t.extent(), t.root_);
    parts_.push_back(shifted(call_, repeat(call_, count, stride, block), displacement));
  }

  // The type, its extent rounded up to its alignment when `pad` (structs) and not sticky.
  Typemap finish(Envelope envelope, bool pad = false) {
    Typemap t;
    t.root_ = sequence(call_, parts_);
    t.lb_ = lb_;
    t.ub_ = ub_;
    t.true_lb_ = true_lb_;
    t.true_ub_ = true_ub_;
    t.explicit_bounds_ = explicit_;
    t.align_ = align_;
    const std::int64_t extent = sub(call_, ub_, lb_);
    if (pad && !explicit_ && extent % align_ != 0) {
      t.ub_ = add(call_, t.ub_, align_ - extent % align_);
    }
    t.envelope_ = std::make_shared<Envelope>(std::move(envelope));
    return t;
  }

 private:
  // Once a block has sticky bounds, only blocks with sticky bounds set lb and ub.
  void bound(bool sticky, std::int64_t lb, std::int64_t ub) {
    if (sticky && !explicit_) any_ = false;
    if (!sticky && explicit_) return;
    explicit_ = sticky;
    lb_ = any_ ? std::min(lb_, lb) : lb;
    ub_ = any_ ? std::max(ub_, ub) : ub;
    any_ = true;
  }
  void true_bound(std::int64_t lb, std::int64_t ub) {
    true_lb_ = any_data_ ? std::min(true_lb_, lb) : lb;
    true_ub_ = any_data_ ? std::max(true_ub_, ub) : ub;
    any_data_ = true;
  }

  const char* call_;
  std::vector<Part> parts_;
  bool any_ = false, any_data_ = false, explicit_ = false;
  std::int64_t lb_ = 0, ub_ = 0, true_lb_ = 0, true_ub_ = 0;
  std::uint8_t align_ = 1;
};

namespace {

std::uint64_t count_arg(const char* call, long long count, const char* name = "count") {
  if (count < 0) {
    bad(ErrorClass::count, call, std::string(name) + " " + std::to_string(count) + " is negative");
  }
  return static_cast<std::uint64_t>(count);
}
std::uint64_t blocklength_arg(const char* call, long long v, const std::string& name) {
  if (v < 0) bad(ErrorClass::arg, call, name + " " + std::to_string(v) + " is negative");
  return static_cast<std::uint64_t>(v);
}
void same_length(const char* call, std::size_t a, std::size_t b, const char* name) {
  if (a != b) {
    bad(ErrorClass::arg, call,
        std::string(name) + " has " + std::to_string(b) + " entries where " + std::to_string(a) +
            " were expected");
  }
}

}  // namespace

Typemap Typemap::basic(Basic b) {
  Typemap t;
  const BasicInfo& i = info(b);
  t.root_ = {0, make_leaf("MPI_Type_basic", b, 1)};
  t.ub_ = i.size;
  t.true_ub_ = is_pair(b) ? static_cast<std::int64_t>(i.index_offset + data_size(i.index))
                          : static_cast<std::int64_t>(i.size);
  t.align_ = i.alignment;
  t.envelope_ = std::make_shared<Envelope>();
  return t;
}

Typemap Typemap::dup(const Typemap& old) {
  Typemap t = old;
  t.envelope_ = std::make_shared<Envelope>(Envelope{Combiner::dup, {}, {}, {}});
  return t;
}

Typemap Typemap::contiguous(const char* call, long long count, const Typemap& old) {
  TypemapBuilder b(call);
  b.place(old, 1, 0, count_arg(call, count), 0);
  return b.finish({Combiner::contiguous, {count}, {}, {}});
}

Typemap Typemap::vector(const char* call, long long count, long long blocklength, long long stride,
                        const Typemap& old) {
  TypemapBuilder b(call);
  b.place(old, count_arg(call, count), mul(call, stride, old.extent()),
          blocklength_arg(call, blocklength, "blocklength"), 0);
  return b.finish({Combiner::vector, {count, blocklength, stride}, {}, {}});
}

Typemap Typemap::hvector(const char* call, long long count, long long blocklength,
                         std::int64_t stride_bytes, const Typemap& old) {
  TypemapBuilder b(call);
  b.place(old, count_arg(call, count), stride_bytes,
          blocklength_arg(call, blocklength, "blocklength"), 0);
  return b.finish({Combiner::hvector, {count, blocklength}, {stride_bytes}, {}});
}

namespace {

// The envelope's integers: count, then each array in turn.
std::vector<std::int64_t> integers(std::initializer_list<std::int64_t> head,
                                   std::initializer_list<std::span<const int>> arrays) {
  std::vector<std::int64_t> out(head);
  for (std::span<const int> a : arrays) out.insert(out.end(), a.begin(), a.end());
  return out;
}

}  // namespace

Typemap Typemap::indexed(const char* call, std::span<const int> blocklengths,
                         std::span<const int> displacements, const Typemap& old) {
  same_length(call, blocklengths.size(), displacements.size(), "displacements");
  TypemapBuilder b(call);
  for (std::size_t i = 0; i < blocklengths.size(); ++i) {
    b.place(old, 1, 0, blocklength_arg(call, blocklengths[i], indexed_name("blocklengths", i)),
            mul(call, displacements[i], old.extent()));
  }
  const auto count = static_cast<std::int64_t>(blocklengths.size());
  return b.finish({Combiner::indexed, integers({count}, {blocklengths, displacements}), {}, {}});
}

Typemap Typemap::hindexed(const char* call, std::span<const int> blocklengths,
                          std::span<const std::int64_t> displacements_bytes, const Typemap& old) {
  same_length(call, blocklengths.size(), displacements_bytes.size(), "displacements");
  TypemapBuilder b(call);
  for (std::size_t i = 0; i < blocklengths.size(); ++i) {
    b.place(old, 1, 0, blocklength_arg(call, blocklengths[i], indexed_name("blocklengths", i)),
            displacements_bytes[i]);
  }
  const auto count = static_cast<std::int64_t>(blocklengths.size());
  return b.finish({Combiner::hindexed,
                   integers({count}, {blocklengths}),
                   {displacements_bytes.begin(), displacements_bytes.end()},
                   {}});
}

Typemap Typemap::indexed_block(const char* call, int blocklength,
                               std::span<const int> displacements, const Typemap& old) {
  const std::uint64_t length = blocklength_arg(call, blocklength, "blocklength");
  TypemapBuilder b(call);
  for (int d : displacements) b.place(old, 1, 0, length, mul(call, d, old.extent()));
  const auto count = static_cast<std::int64_t>(displacements.size());
  return b.finish(
      {Combiner::indexed_block, integers({count, blocklength}, {displacements}), {}, {}});
}

Typemap Typemap::hindexed_block(const char* call, int blocklength,
                                std::span<const std::int64_t> displacements, const Typemap& old) {
  const std::uint64_t length = blocklength_arg(call, blocklength, "blocklength");
  TypemapBuilder b(call);
  for (std::int64_t d : displacements) b.place(old, 1, 0, length, d);
  const auto count = static_cast<std::int64_t>(displacements.size());
  return b.finish({Combiner::hindexed_block,
                   {count, blocklength},
                   {displacements.begin(), displacements.end()},
                   {}});
}

Typemap Typemap::structure(const char* call, std::span<const int> blocklengths,
                           std::span<const std::int64_t> displacements,
                           std::span<const Typemap* const> types) {
  same_length(call, blocklengths.size(), displacements.size(), "displacements");
  same_length(call, blocklengths.size(), types.size(), "types");
  TypemapBuilder b(call);
  for (std::size_t i = 0; i < blocklengths.size(); ++i) {
    if (types[i] == nullptr) bad(ErrorClass::type, call, indexed_name("types", i) + " is null");
    b.place(*types[i], 1, 0,
            blocklength_arg(call, blocklengths[i], indexed_name("blocklengths", i)),
            displacements[i]);
  }
  const auto count = static_cast<std::int64_t>(blocklengths.size());
  return b.finish({Combiner::structure,
                   integers({count}, {blocklengths}),
                   {displacements.begin(), displacements.end()},
                   {}},
                  true);
}

Typemap Typemap::resized(const char* call, std::int64_t lb, std::int64_t extent,
                         const Typemap& old) {
  Typemap t = old;
  t.lb_ = lb;
  t.ub_ = add(call, lb, extent);
  t.explicit_bounds_ = true;
  t.envelope_ = std::make_shared<Envelope>(Envelope{Combiner::resized, {}, {lb, extent}, {}});
  return t;
}

namespace {

// The elements one grid coordinate (or a subarray) takes of one dimension: `runs` runs of
// `length` elements, run k from element `first` + k * `step`, then a last run of `tail`
// elements from element `tail_first`.
struct Runs {
  std::uint64_t runs = 0;
  std::int64_t first = 0, step = 0;
  std::uint64_t length = 0;
  std::int64_t tail_first = 0;
  std::uint64_t tail = 0;
};

// One dimension of a subarray or darray: the runs of `inner` (the dimensions inside this one,
// already resized to their full extent), resized to [0, `extent` elements of `inner`) as the
// standard's definitions do.
Typemap dimension(const char* call, const Typemap& inner, const Runs& r, std::int64_t extent) {
  const std::int64_t e = inner.extent();
  TypemapBuilder b(call);
  b.place(inner, r.runs, mul(call, r.step, e), r.length, mul(call, r.first, e));
  b.place(inner, 1, 0, r.tail, mul(call, r.tail_first, e));
  return Typemap::resized(call, 0, mul(call, extent, e), b.finish({}));
}

std::vector<std::size_t> dimension_order(std::size_t ndims, bool fortran_order) {
  std::vector<std::size_t> order(ndims);
  for (std::size_t i = 0; i < ndims; ++i) order[i] = fortran_order ? i : ndims - 1 - i;
  return order;
}

void positive(const char* call, const char* name, std::size_t i, int v) {
  if (v <= 0) {
    bad(ErrorClass::arg, call,
        indexed_name(name, i) + " " + std::to_string(v) + " is not positive");
  }
}

}  // namespace

Typemap Typemap::subarray(const char* call, std::span<const int> sizes,
                          std::span<const int> subsizes, std::span<const int> starts,
                          bool fortran_order, const Typemap& old) {
  if (sizes.empty()) bad(ErrorClass::dims, call, "ndims 0 is not positive");
  same_length(call, sizes.size(), subsizes.size(), "subsizes");
  same_length(call, sizes.size(), starts.size(), "starts");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    positive(call, "sizes", i, sizes[i]);
    if (subsizes[i] < 0 || starts[i] < 0 || subsizes[i] > sizes[i] - starts[i]) {
      bad(ErrorClass::arg, call,
          indexed_name("starts", i) + " " + std::to_string(starts[i]) + " and " +
              indexed_name("subsizes", i) + " " + std::to_string(subsizes[i]) +
              " do not lie within " + indexed_name("sizes", i) + " " + std::to_string(sizes[i]));
    }
  }
  Typemap t = old;
  for (std::size_t d : dimension_order(sizes.size(), fortran_order)) {
    Runs r;
    r.runs = 1;
    r.first = starts[d];
    r.length = static_cast<std::uint64_t>(subsizes[d]);
    t = dimension(call, t, r, sizes[d]);
  }
  const auto ndims = static_cast<std::int64_t>(sizes.size());
  t.envelope_ = std::make_shared<Envelope>(
      Envelope{Combiner::subarray, integers({ndims}, {sizes, subsizes, starts}), {}, {}});
  t.envelope_->integers.push_back(fortran_order ? 1 : 0);
  return t;
}

namespace {

constexpr int kBlock = 0, kCyclic = 1, kNone = 2;

// The elements of one dimension of `gsize` that grid coordinate `r` of `psize` holds.
Runs distribution(const char* call, std::size_t d, int distrib, int darg, int gsize, int psize,
                  int r) {
  Runs runs;
  if (distrib == kNone) {
    if (psize != 1) {
      bad(ErrorClass::arg, call,
          indexed_name("psizes", d) + " " + std::to_string(psize) +
              " is not 1 for an undistributed dimension");
    }
    runs.runs = 1;
    runs.length = static_cast<std::uint64_t>(gsize);
    return runs;
  }
  const std::int64_t g = gsize, p = psize;
  if (distrib == kBlock) {
    const std::int64_t b = darg == -1 ? (g + p - 1) / p : darg;
    if (b * p < g) {
      bad(ErrorClass::arg, call,
          indexed_name("dargs", d) + " " + std::to_string(darg) + " times " +
              indexed_name("psizes", d) + " " + std::to_string(psize) + " is less than " +
              indexed_name("gsizes", d) + " " + std::to_string(gsize));
    }
    runs.runs = 1;
    runs.first = std::min(r * b, g);
    runs.length = static_cast<std::uint64_t>(std::clamp<std::int64_t>(g - r * b, 0, b));
    return runs;
  }
  // Cyclic(k): block j of k elements, from element j * k, belongs to coordinate j mod p.
  const std::int64_t k = darg == -1 ? 1 : darg;
  const std::int64_t blocks = (g + k - 1) / k;
  const std::int64_t mine = r < blocks ? (blocks - r + p - 1) / p : 0;
  const bool partial_last = g % k != 0 && mine > 0 && (blocks - 1) % p == r;
  runs.runs = static_cast<std::uint64_t>(partial_last ? mine - 1 : mine);
  runs.first = r * k;
  runs.step = p * k;
  runs.length = static_cast<std::uint64_t>(k);
  if (partial_last) {
    runs.tail_first = (blocks - 1) * k;
    runs.tail = static_cast<std::uint64_t>(g - runs.tail_first);
  }
  return runs;
}

void check_darray(const char* call, int size, int rank, std::span<const int> gsizes,
                  std::span<const int> distribs, std::span<const int> dargs,
                  std::span<const int> psizes) {
  if (size <= 0) bad(ErrorClass::arg, call, "size " + std::to_string(size) + " is not positive");
  if (rank < 0 || rank >= size) {
    bad(ErrorClass::arg, call,
        "rank " + std::to_string(rank) + " is not in [0, " + std::to_string(size) + ")");
  }
  if (gsizes.empty()) bad(ErrorClass::dims, call, "ndims 0 is not positive");
  same_length(call, gsizes.size(), distribs.size(), "distribs");
  same_length(call, gsizes.size(), dargs.size(), "dargs");
  same_length(call, gsizes.size(), psizes.size(), "psizes");
  std::int64_t processes = 1;
  for (std::size_t i = 0; i < gsizes.size(); ++i) {
    positive(call, "gsizes", i, gsizes[i]);
    positive(call, "psizes", i, psizes[i]);
    if (distribs[i] != kBlock && distribs[i] != kCyclic && distribs[i] != kNone) {
      bad(ErrorClass::arg, call,
          indexed_name("distribs", i) + " " + std::to_string(distribs[i]) +
              " is not block (0), cyclic (1) or none (2)");
    }
    if (dargs[i] != -1 && dargs[i] <= 0) {
      bad(ErrorClass::arg, call,
          indexed_name("dargs", i) + " " + std::to_string(dargs[i]) +
              " is neither positive nor the default");
    }
    if (processes <= size) processes *= psizes[i];
  }
  if (processes != size) {
    bad(ErrorClass::dims, call, "the product of psizes is not size " + std::to_string(size));
  }
}

}  // namespace

Typemap Typemap::darray(const char* call, int size, int rank, std::span<const int> gsizes,
                        std::span<const int> distribs, std::span<const int> dargs,
                        std::span<const int> psizes, bool fortran_order, const Typemap& old) {
  check_darray(call, size, rank, gsizes, distribs, dargs, psizes);
  // The process grid is row-major whatever the array's order.
  std::vector<int> coords(gsizes.size());
  for (std::size_t i = gsizes.size(), left = static_cast<std::size_t>(rank); i-- > 0;) {
    coords[i] = static_cast<int>(left % static_cast<std::size_t>(psizes[i]));
    left /= static_cast<std::size_t>(psizes[i]);
  }
  Typemap t = old;
  for (std::size_t d : dimension_order(gsizes.size(), fortran_order)) {
    const Runs r = distribution(call, d, distribs[d], dargs[d], gsizes[d], psizes[d], coords[d]);
    t = dimension(call, t, r, gsizes[d]);
  }
  const auto ndims = static_cast<std::int64_t>(gsizes.size());
  t.envelope_ = std::make_shared<Envelope>(Envelope{
      Combiner::darray, integers({size, rank, ndims}, {gsizes, distribs, dargs, psizes}), {}, {}});
  t.envelope_->integers.push_back(fortran_order ? 1 : 0);
  return t;
}

// ---- questions ----

std::size_t Typemap::size() const {
  return root_.node->size;
}

bool Typemap::contiguous() const {
  return root_.node->dense && extent() == static_cast<std::int64_t>(size());
}

std::optional<Basic> Typemap::homogeneous() const {
  const std::int16_t only = root_.node->only;
  if (only < 0) return std::nullopt;
  return static_cast<Basic>(only);
}

std::size_t Typemap::basic_elements() const {
  return root_.node->elements;
}

std::size_t Typemap::external32_size() const {
  return root_.node->external32;
}

namespace {

std::size_t nodes_under(const Node& n) {
  std::size_t total = 1;
  for (const Part& p : n.parts) total += nodes_under(*p.node);
  return total;
}

}  // namespace

std::size_t Typemap::layout_nodes() const {
  return nodes_under(*root_.node);
}

void Typemap::set_children(std::vector<std::uint64_t> ids) {
  auto envelope = std::make_shared<Envelope>(*envelope_);
  envelope->children = std::move(ids);
  envelope_ = std::move(envelope);
}

namespace {

// The basic elements wholly inside the first `bytes` packed bytes of a node.
struct Prefix {
  std::uint64_t bytes = 0, elements = 0;
};

Prefix prefix(const Node& n, std::uint64_t bytes) {
  if (bytes >= n.size) return {n.size, n.elements};
  Prefix p;
  switch (n.kind) {
    case Node::Kind::leaf: {
      const std::uint64_t each = data_size(n.basic), whole = bytes / each;
      p = {whole * each, whole * elements_of(n.basic)};
      const std::uint64_t value = is_pair(n.basic) ? data_size(info(n.basic).value) : each;
      if (bytes - p.bytes >= value && value < each) p = {p.bytes + value, p.elements + 1};
      return p;
    }
    case Node::Kind::repeat: {
      const Node& c = *n.parts[0].node;
      const std::uint64_t whole = bytes / c.size;
      const Prefix rest = prefix(c, bytes - whole * c.size);
      return {whole * c.size + rest.bytes, whole * c.elements + rest.elements};
    }
    case Node::Kind::sequence:
      for (const Part& part : n.parts) {
        const Prefix q = prefix(*part.node, bytes - p.bytes);
        p = {p.bytes + q.bytes, p.elements + q.elements};
        if (q.bytes < part.node->size) break;
      }
      return p;
  }
  return p;
}

// ---- native pack and unpack: a walk over the tree with a mover ----

// Copies `count` blocks of N bytes, `stride` apart, into one run (N known: a tight loop).
template <std::size_t N>
void gather(const std::byte* from, std::int64_t stride, std::uint64_t count, std::byte* to) {
  for (std::uint64_t i = 0; i < count; ++i, from += stride, to += N) std::memcpy(to, from, N);
}
template <std::size_t N>
void scatter(const std::byte* from, std::int64_t stride, std::uint64_t count, std::byte* to) {
  for (std::uint64_t i = 0; i < count; ++i, to += stride, from += N) std::memcpy(to, from, N);
}

// Packs into `out`.
struct Packer {
  using Memory = const std::byte*;
  std::byte* out;

  bool run(Memory at, std::size_t bytes) {
    std::memcpy(out, at, bytes);
    out += bytes;
    return true;
  }
  bool strided(Memory at, std::int64_t stride, std::uint64_t count, std::size_t block) {
    switch (block) {
      case 4:
        gather<4>(at, stride, count, out);
        break;
      case 8:
        gather<8>(at, stride, count, out);
        break;
      case 16:
        gather<16>(at, stride, count, out);
        break;
      default:
        for (std::uint64_t i = 0; i < count; ++i)
          std::memcpy(out + i * block, at + static_cast<std::int64_t>(i) * stride, block);
    }
    out += count * block;
    return true;
  }
};

// Unpacks from `in`, stopping when the `left` bytes (which end on a basic element) are used up.
struct Unpacker {
  using Memory = std::byte*;
  const std::byte* in;
  std::size_t left;

  bool run(Memory at, std::size_t bytes) {
    const std::size_t n = std::min(bytes, left);
    std::memcpy(at, in, n);
    in += n;
    left -= n;
    return left > 0;
  }
  bool strided(Memory at, std::int64_t stride, std::uint64_t count, std::size_t block) {
    const std::uint64_t whole = std::min<std::uint64_t>(count, left / block);
    switch (block) {
      case 4:
        scatter<4>(in, stride, whole, at);
        break;
      case 8:
        scatter<8>(in, stride, whole, at);
        break;
      case 16:
        scatter<16>(in, stride, whole, at);
        break;
      default:
        for (std::uint64_t i = 0; i < whole; ++i)
          std::memcpy(at + static_cast<std::int64_t>(i) * stride, in + i * block, block);
    }
    in += whole * block;
    left -= whole * block;
    if (whole < count && left > 0) return run(at + static_cast<std::int64_t>(whole) * stride, left);
    return left > 0;
  }
};

// Moves the elements of a leaf whose data has holes (pairs), value then index.
template <class Mover>
bool move_pairs(typename Mover::Memory at, Basic b, std::uint64_t count, Mover& m) {
  const BasicInfo& i = info(b);
  for (std::uint64_t k = 0; k < count; ++k, at += i.size) {
    if (!m.run(at, data_size(i.value))) return false;
    if (!m.run(at + i.index_offset, data_size(i.index))) return false;
  }
  return true;
}

template <class Mover>
bool walk(const Part& p, typename Mover::Memory base, Mover& m) {
  const Node& n = *p.node;
  const auto at = base + p.offset;
  if (n.dense) return n.size == 0 || m.run(at, n.size);
  switch (n.kind) {
    case Node::Kind::leaf:
      return move_pairs(at, n.basic, n.count, m);
    case Node::Kind::repeat: {
      const Part& c = n.parts[0];
      if (c.node->dense) return m.strided(at + c.offset, n.stride, n.count, c.node->size);
      for (std::uint64_t i = 0; i < n.count; ++i) {
        if (!walk(c, at + static_cast<std::int64_t>(i) * n.stride, m)) return false;
      }
      return true;
    }
    case Node::Kind::sequence:
      for (const Part& q : n.parts) {
        if (!walk(q, at, m)) return false;
      }
      return true;
  }
  return true;
}

// ---- external32: big-endian scalars at their external32 sizes ----

std::uint64_t load_native(const std::byte* p, std::size_t n) {
  unsigned char bytes[8] = {};
  std::memcpy(bytes, p, n);
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t shift = std::endian::native == std::endian::little ? i : n - 1 - i;
    v |= std::uint64_t{bytes[i]} << (8 * shift);
  }
  return v;
}
void store_native(std::uint64_t v, std::size_t n, std::byte* p) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t shift = std::endian::native == std::endian::little ? i : n - 1 - i;
    p[i] = static_cast<std::byte>(v >> (8 * shift));
  }
}
std::uint64_t load_big(const std::byte* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
  return v;
}
void store_big(std::uint64_t v, std::size_t n, std::byte* p) {
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::byte>(v >> (8 * (n - 1 - i)));
}
std::uint64_t sign_extend(std::uint64_t v, std::size_t n) {
  if (n >= 8 || ((v >> (8 * n - 1)) & 1) == 0) return v;
  return v | (~std::uint64_t{0} << (8 * n));
}
// An IEEE value: its bytes in the other order on a little-endian machine.
void to_big(const std::byte* from, std::size_t n, std::byte* to) {
  for (std::size_t i = 0; i < n; ++i) {
    to[i] = std::endian::native == std::endian::little ? from[n - 1 - i] : from[i];
  }
}

// x87 extended precision (64-bit significand with its integer bit) and binary128 share the sign
// and the 15-bit biased exponent; the 63 fraction bits are binary128's top ones.
void long_double_to_big(const std::byte* from, std::byte* to) {
  if constexpr (std::numeric_limits<long double>::digits == 113) {
    to_big(from, 16, to);
  } else {
    const std::uint64_t significand = load_native(from, 8);
    const std::uint64_t sign_exponent = load_native(from + 8, 2);
    const std::uint64_t fraction = significand & ~(std::uint64_t{1} << 63);
    store_big((sign_exponent << 48) | (fraction >> 15), 8, to);
    store_big(fraction << 49, 8, to + 8);
  }
}
void long_double_from_big(const std::byte* from, std::byte* to) {
  if constexpr (std::numeric_limits<long double>::digits == 113) {
    to_big(from, 16, to);
  } else {
    const std::uint64_t high = load_big(from, 8), low = load_big(from + 8, 8);
    const std::uint64_t sign_exponent = high >> 48;
    const std::uint64_t integer_bit = (sign_exponent & 0x7fff) != 0 ? std::uint64_t{1} << 63 : 0;
    std::memset(to, 0, sizeof(long double));
    store_native(integer_bit | ((high & 0xffffffffffff) << 15) | (low >> 49), 8, to);
    store_native(sign_exponent, 2, to + 8);
  }
}

void scalar_to_external(const std::byte* from, Scalar s, std::size_t native, std::size_t ext,
                        std::byte* to) {
  switch (s) {
    case Scalar::raw:
      std::memcpy(to, from, ext);
      return;
    case Scalar::sint:
    case Scalar::uint:
      store_big(load_native(from, native), ext, to);
      return;
    case Scalar::ieee:
      to_big(from, ext, to);
      return;
    case Scalar::long_double:
      long_double_to_big(from, to);
      return;
  }
}
void scalar_from_external(const std::byte* from, Scalar s, std::size_t native, std::size_t ext,
                          std::byte* to) {
  switch (s) {
    case Scalar::raw:
      std::memcpy(to, from, ext);
      return;
    case Scalar::sint:
      store_native(sign_extend(load_big(from, ext), ext), native, to);
      return;
    case Scalar::uint:
      store_native(load_big(from, ext), native, to);
      return;
    case Scalar::ieee:
      to_big(from, ext, to);
      return;
    case Scalar::long_double:
      long_double_from_big(from, to);
      return;
  }
}

// Converts one basic element at `memory` to or from external32 at `external`, which it advances.
struct ToExternal {
  using Memory = const std::byte*;
  std::byte* external;
  void scalar(Memory at, Scalar s, std::size_t native, std::size_t ext) {
    scalar_to_external(at, s, native, ext, external);
    external += ext;
  }
};
struct FromExternal {
  using Memory = std::byte*;
  const std::byte* external;
  void scalar(Memory at, Scalar s, std::size_t native, std::size_t ext) {
    scalar_from_external(external, s, native, ext, at);
    external += ext;
  }
};

template <class Converter>
void convert(typename Converter::Memory at, Basic b, Converter& c) {
  const BasicInfo& i = info(b);
  if (i.kind == BasicClass::pair) {
    convert(at, i.value, c);
    convert(at + i.index_offset, i.index, c);
    return;
  }
  const std::size_t native = i.size / i.scalars, ext = i.external32_size / i.scalars;
  for (std::size_t k = 0; k < i.scalars; ++k) c.scalar(at + k * native, i.scalar, native, ext);
}

template <class Converter>
void walk_external(const Part& p, typename Converter::Memory base, Converter& c) {
  const Node& n = *p.node;
  const auto at = base + p.offset;
  switch (n.kind) {
    case Node::Kind::leaf:
      for (std::uint64_t k = 0; k < n.count; ++k) convert(at + k * basic_size(n.basic), n.basic, c);
      return;
    case Node::Kind::repeat:
      for (std::uint64_t k = 0; k < n.count; ++k) {
        walk_external(n.parts[0], at + static_cast<std::int64_t>(k) * n.stride, c);
      }
      return;
    case Node::Kind::sequence:
      for (const Part& q : n.parts) walk_external(q, at, c);
      return;
  }
}

}  // namespace

namespace {

// Reports runs as offsets from 0 (typemap's walk over integers instead of memory), merging a run
// that starts where the last one ended.
struct RunLister {
  using Memory = std::int64_t;
  const std::function<void(std::int64_t, std::size_t)>& visit;
  std::int64_t start = 0;
  std::size_t bytes = 0;

  bool run(Memory at, std::size_t n) {
    if (bytes != 0 && start + static_cast<std::int64_t>(bytes) == at) {
      bytes += n;
      return true;
    }
    flush();
    start = at;
    bytes = n;
    return true;
  }
  bool strided(Memory at, std::int64_t stride, std::uint64_t count, std::size_t block) {
    for (std::uint64_t i = 0; i < count; ++i)
      run(at + static_cast<std::int64_t>(i) * stride, block);
    return true;
  }
  void flush() {
    if (bytes != 0) visit(start, bytes);
    bytes = 0;
  }
};

}  // namespace

void Typemap::runs(std::size_t count,
                   const std::function<void(std::int64_t, std::size_t)>& visit) const {
  if (count == 0 || size() == 0) return;
  if (contiguous()) {
    visit(true_lb_, count * size());
    return;
  }
  RunLister lister{visit};
  for (std::size_t i = 0; i < count; ++i) {
    walk(root_, static_cast<std::int64_t>(i) * extent(), lister);
  }
  lister.flush();
}

void Typemap::pack(const void* buffer, std::size_t count, std::byte* out) const {
  if (count == 0 || size() == 0) return;
  const auto* base = static_cast<const std::byte*>(buffer);
  if (contiguous()) {
    std::memcpy(out, base + true_lb_, count * size());
    return;
  }
  Packer packer{out};
  for (std::size_t i = 0; i < count; ++i) {
    walk(root_, base + static_cast<std::int64_t>(i) * extent(), packer);
  }
}

void Typemap::unpack(const std::byte* in, std::size_t bytes, void* buffer,
                     std::size_t count) const {
  const std::size_t each = size();
  const bool fits = each == 0 ? bytes == 0 : bytes / each + (bytes % each != 0) <= count;
  if (!fits) {
    throw TypeError(ErrorClass::truncate, std::to_string(bytes) + " bytes do not fit in " +
                                              std::to_string(count) + " elements of " +
                                              std::to_string(each) + " bytes");
  }
  if (bytes == 0) return;
  const std::size_t usable = bytes / each * each + prefix(*root_.node, bytes % each).bytes;
  auto* base = static_cast<std::byte*>(buffer);
  if (contiguous()) {
    std::memcpy(base + true_lb_, in, usable);
    return;
  }
  Unpacker unpacker{in, usable};
  for (std::size_t i = 0; i < count && unpacker.left > 0; ++i) {
    walk(root_, base + static_cast<std::int64_t>(i) * extent(), unpacker);
  }
}

long long Typemap::elements_in(std::size_t bytes) const {
  const std::size_t each = size();
  if (each == 0) return 0;
  const Prefix rest = prefix(*root_.node, bytes % each);
  if (rest.bytes != bytes % each) return -1;
  return static_cast<long long>(bytes / each * basic_elements() + rest.elements);
}

void Typemap::pack_external32(const void* buffer, std::size_t count, std::byte* out) const {
  const auto* base = static_cast<const std::byte*>(buffer);
  ToExternal c{out};
  for (std::size_t i = 0; i < count; ++i) {
    walk_external(root_, base + static_cast<std::int64_t>(i) * extent(), c);
  }
}

void Typemap::unpack_external32(const std::byte* in, void* buffer, std::size_t count) const {
  auto* base = static_cast<std::byte*>(buffer);
  FromExternal c{in};
  for (std::size_t i = 0; i < count; ++i) {
    walk_external(root_, base + static_cast<std::int64_t>(i) * extent(), c);
  }
}

}  // namespace vela::mpi::detail
