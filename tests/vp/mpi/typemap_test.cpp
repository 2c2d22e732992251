// The datatype engine against MPI 3.1 chapter 4: bounds of each constructor, pack and unpack
// against hand-computed layouts, darray against the distribution computed element by element,
// external32 against hand-written big-endian bytes, and random nested types against a reference
// that expands every type map into its list of (displacement, basic type) entries.
#include "typemap.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <numeric>
#include <random>
#include <vector>

using namespace vela::mpi::detail;

// Counts allocations, for the test that packing a vector allocates nothing (not inlined: GCC
// would see free() on what `new` returned).
namespace {
std::atomic<long> allocations{0};
}  // namespace
[[gnu::noinline]] void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace {

const Typemap kInt = Typemap::basic(Basic::int_);
const Typemap kDouble = Typemap::basic(Basic::double_);
const Typemap kChar = Typemap::basic(Basic::char_);

template <class T>
std::vector<T> iota(std::size_t n, T first = 0) {
  std::vector<T> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

// Packs `count` elements of `t` at `buffer` and reads the result back as Ts.
template <class T>
std::vector<T> packed(const Typemap& t, const void* buffer, std::size_t count = 1) {
  std::vector<std::byte> out(t.size() * count);
  t.pack(buffer, count, out.data());
  std::vector<T> values(out.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), out.data(), values.size() * sizeof(T));
  return values;
}

// The exception `f` throws (it must throw one).
template <class F>
TypeError error_of(F f) {
  try {
    f();
  } catch (const TypeError& e) {
    return e;
  }
  ADD_FAILURE() << "no TypeError";
  return TypeError(ErrorClass::other, "");
}

std::vector<std::uint8_t> bytes(const std::vector<std::byte>& b) {
  std::vector<std::uint8_t> out;
  for (std::byte x : b) out.push_back(std::to_integer<std::uint8_t>(x));
  return out;
}

// ---- predefined types ----

TEST(TypemapBasic, SizesAlignmentsAndExternal32Sizes) {
  EXPECT_STREQ(info(Basic::int_).name, "MPI_INT");
  // The table follows Basic's order to its end.
  EXPECT_STREQ(info(Basic::packed).name, "MPI_PACKED");
  EXPECT_STREQ(info(Basic::long_double_int).name, "MPI_LONG_DOUBLE_INT");
  EXPECT_STREQ(info(Basic::f_2integer).name, "MPI_2INTEGER");
  EXPECT_STREQ(info(Basic::f_complex32).name, "MPI_COMPLEX32");
  EXPECT_EQ(info(Basic::long_).size, 8);
  EXPECT_EQ(info(Basic::long_).external32_size, 4);
  EXPECT_EQ(info(Basic::unsigned_long).external32_size, 4);
  EXPECT_EQ(info(Basic::long_double).external32_size, 16);
  EXPECT_EQ(info(Basic::wchar).external32_size, 2);
  EXPECT_EQ(info(Basic::c_double_complex).size, 16);
  EXPECT_EQ(info(Basic::c_double_complex).alignment, 8);
  EXPECT_EQ(info(Basic::f_complex).size, 8);
  EXPECT_EQ(info(Basic::f_real16).size, 16);
  EXPECT_EQ(info(Basic::double_int).kind, BasicClass::pair);
  EXPECT_EQ(info(Basic::c_bool).kind, BasicClass::logical);
  EXPECT_EQ(info(Basic::float_).kind, BasicClass::floating);
  for (int i = 0; i < basic_count; ++i) {
    const BasicInfo& b = info(static_cast<Basic>(i));
    EXPECT_EQ(std::string(b.name).rfind("MPI_", 0), 0u) << i;
    EXPECT_GT(b.size, 0) << b.name;
    EXPECT_EQ(b.size % b.alignment, 0) << b.name;
  }
}

TEST(TypemapBasic, PairTypesHavePaddingOutsideTheirSize) {
  const Typemap di = Typemap::basic(Basic::double_int);
  EXPECT_EQ(di.size(), 12u);
  EXPECT_EQ(di.extent(), 16);
  EXPECT_EQ(di.true_extent(), 12);
  EXPECT_EQ(di.basic_elements(), 2u);
  const Typemap si = Typemap::basic(Basic::short_int);
  EXPECT_EQ(si.size(), 6u);
  EXPECT_EQ(si.extent(), 8);
  EXPECT_EQ(si.true_extent(), 8);
  EXPECT_FALSE(si.contiguous());
  EXPECT_EQ(si.homogeneous(), Basic::short_int);
  // Two short_ints: the hole between short and int, and none of the padding, is left out.
  struct ShortInt {
    short s;
    int i;
  } pairs[2] = {{1, 2}, {3, 4}};
  std::vector<std::byte> out(12);
  si.pack(pairs, 2, out.data());
  short s = 0;
  int v = 0;
  std::memcpy(&s, out.data() + 6, 2);
  std::memcpy(&v, out.data() + 8, 4);
  EXPECT_EQ(s, 3);
  EXPECT_EQ(v, 4);
  ShortInt back[2] = {};
  si.unpack(out.data(), out.size(), back, 2);
  EXPECT_EQ(back[0].s, 1);
  EXPECT_EQ(back[1].i, 4);
}

// ---- bounds of each constructor ----

TEST(TypemapBounds, Contiguous) {
  const Typemap t = Typemap::contiguous("MPI_Type_contiguous", 3, kInt);
  EXPECT_EQ(t.size(), 12u);
  EXPECT_EQ(t.lb(), 0);
  EXPECT_EQ(t.extent(), 12);
  EXPECT_TRUE(t.contiguous());
  EXPECT_EQ(t.basic_elements(), 3u);
  EXPECT_EQ(t.homogeneous(), Basic::int_);
  const Typemap none = Typemap::contiguous("MPI_Type_contiguous", 0, kInt);
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.extent(), 0);
  EXPECT_FALSE(none.homogeneous());
}

TEST(TypemapBounds, VectorWithPositiveAndNegativeStride) {
  const Typemap v = Typemap::vector("MPI_Type_vector", 3, 2, 4, kInt);
  EXPECT_EQ(v.size(), 24u);
  EXPECT_EQ(v.lb(), 0);
  EXPECT_EQ(v.extent(), 40);  // (2 * 4 + 2) ints
  EXPECT_EQ(v.true_extent(), 40);
  EXPECT_FALSE(v.contiguous());
  const Typemap n = Typemap::vector("MPI_Type_vector", 3, 1, -2, kDouble);
  EXPECT_EQ(n.lb(), -32);
  EXPECT_EQ(n.ub(), 8);
  EXPECT_EQ(n.extent(), 40);
  EXPECT_EQ(n.true_lb(), -32);
  // Type-map order follows the stride downwards.
  double a[5] = {0, 1, 2, 3, 4};
  EXPECT_EQ(packed<double>(n, a + 4), (std::vector<double>{4, 2, 0}));
  // A vector whose blocks touch is contiguous.
  EXPECT_TRUE(Typemap::vector("MPI_Type_vector", 2, 2, 2, kInt).contiguous());
}

TEST(TypemapBounds, HvectorStrideInBytes) {
  const Typemap h = Typemap::hvector("MPI_Type_create_hvector", 2, 1, 6, kInt);
  EXPECT_EQ(h.size(), 8u);
  EXPECT_EQ(h.extent(), 10);
  const Typemap n = Typemap::hvector("MPI_Type_create_hvector", 2, 2, -12, kInt);
  EXPECT_EQ(n.lb(), -12);
  EXPECT_EQ(n.ub(), 8);
}

TEST(TypemapBounds, IndexedOutOfOrderAndNegative) {
  const int lengths[] = {2, 1};
  const int displacements[] = {3, -1};
  const Typemap t = Typemap::indexed("MPI_Type_indexed", lengths, displacements, kInt);
  EXPECT_EQ(t.size(), 12u);
  EXPECT_EQ(t.lb(), -4);
  EXPECT_EQ(t.ub(), 20);
  int a[6] = {10, 11, 12, 13, 14, 15};
  EXPECT_EQ(packed<int>(t, a + 1), (std::vector<int>{14, 15, 10}));
  const std::int64_t bytes[] = {8, 0};
  const Typemap h = Typemap::hindexed("MPI_Type_create_hindexed", lengths, bytes, kInt);
  EXPECT_EQ(h.extent(), 16);
  EXPECT_EQ(packed<int>(h, a), (std::vector<int>{12, 13, 10}));
}

TEST(TypemapBounds, IndexedBlock) {
  const int displacements[] = {4, 0, 2};
  const Typemap t = Typemap::indexed_block("MPI_Type_create_indexed_block", 2, displacements, kInt);
  EXPECT_EQ(t.size(), 24u);
  EXPECT_EQ(t.extent(), 24);
  int a[6] = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(packed<int>(t, a), (std::vector<int>{4, 5, 0, 1, 2, 3}));
  const std::int64_t bytes[] = {4, -4};
  const Typemap h = Typemap::hindexed_block("MPI_Type_create_hindexed_block", 1, bytes, kInt);
  EXPECT_EQ(h.lb(), -4);
  EXPECT_EQ(packed<int>(h, a + 1), (std::vector<int>{2, 0}));
}

TEST(TypemapBounds, StructPadsItsExtentToTheLargestAlignment) {
  const int lengths[] = {1, 1};
  const std::int64_t displacements[] = {0, 8};
  const Typemap* types[] = {&kDouble, &kChar};
  const Typemap t = Typemap::structure("MPI_Type_create_struct", lengths, displacements, types);
  EXPECT_EQ(t.size(), 9u);
  EXPECT_EQ(t.extent(), 16);
  EXPECT_EQ(t.true_extent(), 9);
  EXPECT_FALSE(t.homogeneous());
  const Typemap* small[] = {&kChar, &kInt};
  const std::int64_t at[] = {0, 4};
  const Typemap u = Typemap::structure("MPI_Type_create_struct", lengths, at, small);
  EXPECT_EQ(u.extent(), 8);
  // Sticky bounds from a resized member: no padding, and the other member's data does not
  // count for lb and ub.
  const Typemap r = Typemap::resized("MPI_Type_create_resized", 0, 9, kDouble);
  const Typemap* mixed[] = {&kChar, &r};
  const Typemap m = Typemap::structure("MPI_Type_create_struct", lengths, displacements, mixed);
  EXPECT_EQ(m.lb(), 8);
  EXPECT_EQ(m.extent(), 9);
  EXPECT_EQ(m.true_lb(), 0);
  EXPECT_EQ(m.true_extent(), 16);
}

TEST(TypemapBounds, ResizedPropagatesIntoConstructorsButNotTrueExtent) {
  const Typemap r = Typemap::resized("MPI_Type_create_resized", -4, 12, kInt);
  EXPECT_EQ(r.lb(), -4);
  EXPECT_EQ(r.extent(), 12);
  EXPECT_EQ(r.true_lb(), 0);
  EXPECT_EQ(r.true_extent(), 4);
  EXPECT_FALSE(r.contiguous());
  const Typemap c = Typemap::contiguous("MPI_Type_contiguous", 2, r);
  EXPECT_EQ(c.lb(), -4);
  EXPECT_EQ(c.extent(), 24);
  EXPECT_EQ(c.true_lb(), 0);
  EXPECT_EQ(c.true_extent(), 16);
  int a[6] = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(packed<int>(c, a), (std::vector<int>{0, 3}));
  EXPECT_EQ(packed<int>(r, a, 2), (std::vector<int>{0, 3}));
}

TEST(TypemapBounds, SubarrayCOrder) {
  const int sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {1, 2};
  const Typemap t =
      Typemap::subarray("MPI_Type_create_subarray", sizes, subsizes, starts, false, kInt);
  EXPECT_EQ(t.size(), 24u);
  EXPECT_EQ(t.lb(), 0);
  EXPECT_EQ(t.extent(), 80);
  EXPECT_EQ(t.true_lb(), 28);
  EXPECT_EQ(t.true_extent(), 32);
  const std::vector<int> a = iota<int>(20);
  EXPECT_EQ(packed<int>(t, a.data()), (std::vector<int>{7, 8, 9, 12, 13, 14}));
}

TEST(TypemapBounds, SubarrayFortranOrder) {
  const int sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {1, 2};
  const Typemap t =
      Typemap::subarray("MPI_Type_create_subarray", sizes, subsizes, starts, true, kInt);
  EXPECT_EQ(t.extent(), 80);
  EXPECT_EQ(t.true_lb(), 36);
  const std::vector<int> a = iota<int>(20);
  // Element (i, j) lies at i + 4 j.
  EXPECT_EQ(packed<int>(t, a.data()), (std::vector<int>{9, 10, 13, 14, 17, 18}));
}

// ---- darray: each rank's elements against the distribution computed element by element ----

struct Distribution {
  int distrib, darg;
};

// The grid coordinate that owns index `g` of a dimension.
int owner(const Distribution& d, int gsize, int psize, int g) {
  if (d.distrib == 2) return 0;
  if (d.distrib == 0) {
    const int b = d.darg == -1 ? (gsize + psize - 1) / psize : d.darg;
    return g / b;
  }
  const int k = d.darg == -1 ? 1 : d.darg;
  return (g / k) % psize;
}

void check_darray(const int (&gsizes)[2], const Distribution (&d)[2], const int (&psizes)[2],
                  bool fortran) {
  const int size = psizes[0] * psizes[1];
  const int distribs[] = {d[0].distrib, d[1].distrib}, dargs[] = {d[0].darg, d[1].darg};
  const std::vector<int> global = iota<int>(static_cast<std::size_t>(gsizes[0] * gsizes[1]));
  std::size_t total = 0;
  for (int rank = 0; rank < size; ++rank) {
    const Typemap t = Typemap::darray("MPI_Type_create_darray", size, rank, gsizes, distribs, dargs,
                                      psizes, fortran, kInt);
    const int coords[] = {rank / psizes[1], rank % psizes[1]};  // row-major grid
    std::vector<int> expected;
    for (int at = 0; at < gsizes[0] * gsizes[1]; ++at) {  // memory order
      const int i = fortran ? at % gsizes[0] : at / gsizes[1];
      const int j = fortran ? at / gsizes[0] : at % gsizes[1];
      if (owner(d[0], gsizes[0], psizes[0], i) == coords[0] &&
          owner(d[1], gsizes[1], psizes[1], j) == coords[1]) {
        expected.push_back(at);
      }
    }
    EXPECT_EQ(packed<int>(t, global.data()), expected) << "rank " << rank;
    EXPECT_EQ(t.lb(), 0);
    EXPECT_EQ(t.extent(), static_cast<std::int64_t>(global.size() * sizeof(int)));
    total += t.size();
  }
  EXPECT_EQ(total, global.size() * sizeof(int));  // every element on exactly one rank
}

TEST(TypemapDarray, BlockOnA2x2Grid) {
  check_darray({6, 7}, {{0, -1}, {0, -1}}, {2, 2}, false);
  check_darray({6, 7}, {{0, -1}, {0, -1}}, {2, 2}, true);
  check_darray({5, 7}, {{0, 4}, {0, 5}}, {2, 2}, false);  // a rank with a short last block
}

TEST(TypemapDarray, CyclicOnA2x2Grid) {
  check_darray({6, 7}, {{1, -1}, {1, -1}}, {2, 2}, false);
  check_darray({7, 9}, {{1, 2}, {1, 3}}, {2, 2}, false);  // partial last blocks
  check_darray({7, 9}, {{1, 2}, {0, -1}}, {2, 2}, true);
}

TEST(TypemapDarray, UndistributedDimension) {
  check_darray({5, 8}, {{2, -1}, {1, 3}}, {1, 4}, false);
  check_darray({5, 8}, {{2, -1}, {0, -1}}, {1, 4}, true);
  const int g[] = {4, 4}, dist[] = {2, 0}, dargs[] = {-1, -1}, p[] = {2, 2};
  const TypeError e = error_of(
      [&] { Typemap::darray("MPI_Type_create_darray", 4, 0, g, dist, dargs, p, false, kInt); });
  EXPECT_NE(std::string(e.what()).find("psizes[0]"), std::string::npos) << e.what();
}

// ---- pack, unpack, short messages ----

struct IntDouble {
  int i;
  double d;
};

Typemap int_double() {
  const int lengths[] = {1, 1};
  const std::int64_t displacements[] = {0, 8};
  const Typemap* types[] = {&kInt, &kDouble};
  return Typemap::structure("MPI_Type_create_struct", lengths, displacements, types);
}

TEST(TypemapPack, StructRoundTripAgainstHandLayout) {
  const Typemap t = int_double();
  ASSERT_EQ(t.size(), 12u);
  ASSERT_EQ(t.extent(), 16);
  const IntDouble in[2] = {{1, 2.5}, {3, -4.0}};
  std::vector<std::byte> out(24);
  t.pack(in, 2, out.data());
  std::vector<std::byte> expected(24);
  std::memcpy(expected.data(), &in[0].i, 4);
  std::memcpy(expected.data() + 4, &in[0].d, 8);
  std::memcpy(expected.data() + 12, &in[1].i, 4);
  std::memcpy(expected.data() + 16, &in[1].d, 8);
  EXPECT_EQ(out, expected);
  IntDouble back[2] = {};
  t.unpack(out.data(), out.size(), back, 2);
  EXPECT_EQ(back[1].i, 3);
  EXPECT_EQ(back[1].d, -4.0);
}

TEST(TypemapPack, ShortUnpackFillsTheFirstBasicElements) {
  const Typemap v = Typemap::vector("MPI_Type_vector", 3, 1, 2, kInt);
  const int values[] = {7, 8, 9};
  std::vector<std::byte> in(12);
  std::memcpy(in.data(), values, 12);
  int a[6] = {-1, -1, -1, -1, -1, -1};
  v.unpack(in.data(), 8, a, 1);
  EXPECT_EQ(std::vector<int>(a, a + 6), (std::vector<int>{7, -1, 8, -1, -1, -1}));
  int b[6] = {-1, -1, -1, -1, -1, -1};
  v.unpack(in.data(), 6, b, 1);  // half an int is left out
  EXPECT_EQ(std::vector<int>(b, b + 6), (std::vector<int>{7, -1, -1, -1, -1, -1}));
  // Across elements of a struct type: the int of the second element only.
  const Typemap t = int_double();
  std::vector<std::byte> packed_data(24);
  const IntDouble src[2] = {{1, 2.0}, {3, 4.0}};
  t.pack(src, 2, packed_data.data());
  IntDouble dst[2] = {{0, 0}, {0, 0}};
  t.unpack(packed_data.data(), 16, dst, 2);
  EXPECT_EQ(dst[0].d, 2.0);
  EXPECT_EQ(dst[1].i, 3);
  EXPECT_EQ(dst[1].d, 0.0);
}

TEST(TypemapPack, TruncationIsAnError) {
  const Typemap t = int_double();
  std::vector<std::byte> in(25);
  IntDouble dst[2];
  EXPECT_EQ(error_of([&] { t.unpack(in.data(), 25, dst, 2); }).mpi_class(), ErrorClass::truncate);
  EXPECT_EQ(error_of([&] { t.unpack(in.data(), 13, dst, 1); }).mpi_class(), ErrorClass::truncate);
}

TEST(TypemapPack, ElementsInPartialData) {
  const Typemap t = int_double();
  EXPECT_EQ(t.elements_in(0), 0);
  EXPECT_EQ(t.elements_in(4), 1);
  EXPECT_EQ(t.elements_in(12), 2);
  EXPECT_EQ(t.elements_in(16), 3);
  EXPECT_EQ(t.elements_in(6), -1);
  EXPECT_EQ(t.elements_in(20), -1);
  const Typemap di = Typemap::basic(Basic::double_int);
  EXPECT_EQ(di.elements_in(8), 1);
  EXPECT_EQ(di.elements_in(12), 2);
  EXPECT_EQ(di.elements_in(20), 3);
  EXPECT_EQ(Typemap::contiguous("MPI_Type_contiguous", 4, kDouble).elements_in(24), 3);
}

TEST(TypemapPack, StridedVectorIsCompactAndPacksWithoutAllocating) {
  const Typemap v = Typemap::vector("MPI_Type_vector", 1000000, 1, 2, kDouble);
  EXPECT_EQ(v.size(), 8000000u);
  EXPECT_LE(v.layout_nodes(), 2u);
  std::vector<double> a = iota<double>(2000000);
  std::vector<std::byte> out(v.size());
  const long before = allocations.load();
  v.pack(a.data(), 1, out.data());
  EXPECT_EQ(allocations.load(), before);
  double last = 0;
  std::memcpy(&last, out.data() + out.size() - 8, 8);
  EXPECT_EQ(last, 1999998.0);
  // A regular indexed layout is as compact, and so is a subarray of a big array.
  const std::vector<int> displacements = iota<int>(100000);
  std::vector<int> strided(displacements.size());
  std::transform(displacements.begin(), displacements.end(), strided.begin(),
                 [](int d) { return 3 * d; });
  const std::vector<int> ones(strided.size(), 1);
  EXPECT_LE(Typemap::indexed("MPI_Type_indexed", ones, strided, kInt).layout_nodes(), 2u);
  const int sizes[] = {1000, 1000, 1000}, subsizes[] = {500, 500, 500}, starts[] = {1, 2, 3};
  EXPECT_LE(Typemap::subarray("MPI_Type_create_subarray", sizes, subsizes, starts, false, kInt)
                .layout_nodes(),
            3u);
}

TEST(TypemapPack, HomogeneousSignatures) {
  const int lengths[] = {1, 2};
  const std::int64_t displacements[] = {0, 8};
  const Typemap* ints[] = {&kInt, &kInt};
  EXPECT_EQ(
      Typemap::structure("MPI_Type_create_struct", lengths, displacements, ints).homogeneous(),
      Basic::int_);
  EXPECT_EQ(Typemap::contiguous("MPI_Type_contiguous", 3, Typemap::basic(Basic::double_int))
                .homogeneous(),
            Basic::double_int);
  EXPECT_FALSE(int_double().homogeneous());
}

// ---- external32 ----

TEST(TypemapExternal32, IntDoubleAndFourByteLong) {
  const int i = 0x01020304;
  std::vector<std::byte> out(4);
  kInt.pack_external32(&i, 1, out.data());
  EXPECT_EQ(bytes(out), (std::vector<std::uint8_t>{1, 2, 3, 4}));

  const double d = 1.0;
  out.assign(8, std::byte{});
  kDouble.pack_external32(&d, 1, out.data());
  EXPECT_EQ(bytes(out), (std::vector<std::uint8_t>{0x3f, 0xf0, 0, 0, 0, 0, 0, 0}));

  const Typemap l = Typemap::basic(Basic::long_);
  EXPECT_EQ(l.external32_size(), 4u);
  const long longs[] = {-2, 0x12345678};
  out.assign(8, std::byte{});
  l.pack_external32(longs, 2, out.data());
  EXPECT_EQ(bytes(out),
            (std::vector<std::uint8_t>{0xff, 0xff, 0xff, 0xfe, 0x12, 0x34, 0x56, 0x78}));
  long back[2] = {};
  l.unpack_external32(out.data(), back, 2);
  EXPECT_EQ(back[0], -2);
  EXPECT_EQ(back[1], 0x12345678);

  const unsigned long big = 0xfffffffeUL;
  l.pack_external32(&big, 1, out.data());
  unsigned long ub = 0;
  Typemap::basic(Basic::unsigned_long).unpack_external32(out.data(), &ub, 1);
  EXPECT_EQ(ub, 0xfffffffeUL);  // zero-extended, not sign-extended
}

TEST(TypemapExternal32, StructWithLongAndPaddingRoundTrips) {
  struct S {
    char c;
    long l;
    double d;
  } s = {'A', -3, -2.0};
  const int lengths[] = {1, 1, 1};
  const std::int64_t displacements[] = {offsetof(S, c), offsetof(S, l), offsetof(S, d)};
  const Typemap l = Typemap::basic(Basic::long_);
  const Typemap* types[] = {&kChar, &l, &kDouble};
  const Typemap t = Typemap::structure("MPI_Type_create_struct", lengths, displacements, types);
  ASSERT_EQ(t.external32_size(), 13u);
  std::vector<std::byte> out(13);
  t.pack_external32(&s, 1, out.data());
  EXPECT_EQ(bytes(out),
            (std::vector<std::uint8_t>{'A', 0xff, 0xff, 0xff, 0xfd, 0xc0, 0, 0, 0, 0, 0, 0, 0}));
  S back = {};
  t.unpack_external32(out.data(), &back, 1);
  EXPECT_EQ(back.c, 'A');
  EXPECT_EQ(back.l, -3);
  EXPECT_EQ(back.d, -2.0);
}

TEST(TypemapExternal32, LongDoubleIsBinary128) {
  const Typemap t = Typemap::basic(Basic::long_double);
  const long double values[] = {1.0L, -0.1L, 3.25e-4000L};
  std::vector<std::byte> out(48);
  t.pack_external32(values, 3, out.data());
  const std::vector<std::uint8_t> one = {0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const std::vector<std::uint8_t> all = bytes(out);
  EXPECT_EQ(std::vector<std::uint8_t>(all.begin(), all.begin() + 16), one);
  long double back[3] = {};
  t.unpack_external32(out.data(), back, 3);
  EXPECT_EQ(back[0], 1.0L);
  EXPECT_EQ(back[1], -0.1L);
  EXPECT_EQ(back[2], 3.25e-4000L);
}

// ---- errors ----

TEST(TypemapErrors, NameTheCallAndTheArgument) {
  const TypeError count = error_of([] { Typemap::vector("MPI_Type_vector", -1, 1, 1, kInt); });
  EXPECT_STREQ(count.what(), "MPI_Type_vector: count -1 is negative");
  EXPECT_EQ(count.mpi_class(), ErrorClass::count);

  const int lengths[] = {1, -2};
  const int displacements[] = {0, 1};
  const TypeError length =
      error_of([&] { Typemap::indexed("MPI_Type_indexed", lengths, displacements, kInt); });
  EXPECT_NE(std::string(length.what()).find("MPI_Type_indexed: blocklengths[1] -2"),
            std::string::npos)
      << length.what();

  const std::int64_t at[] = {0, 8};
  const Typemap* types[] = {&kInt, nullptr};
  const int ones[] = {1, 1};
  const TypeError type =
      error_of([&] { Typemap::structure("MPI_Type_create_struct", ones, at, types); });
  EXPECT_EQ(type.mpi_class(), ErrorClass::type);
  EXPECT_NE(std::string(type.what()).find("types[1]"), std::string::npos);

  const int sizes[] = {4}, subsizes[] = {3}, starts[] = {2};
  const TypeError range = error_of(
      [&] { Typemap::subarray("MPI_Type_create_subarray", sizes, subsizes, starts, false, kInt); });
  EXPECT_NE(std::string(range.what()).find("MPI_Type_create_subarray: starts[0] 2"),
            std::string::npos)
      << range.what();

  const int g[] = {10}, dist[] = {0}, dargs[] = {4}, p[] = {2};
  const TypeError block = error_of(
      [&] { Typemap::darray("MPI_Type_create_darray", 2, 0, g, dist, dargs, p, false, kInt); });
  EXPECT_NE(std::string(block.what()).find("dargs[0] 4"), std::string::npos) << block.what();
}

TEST(TypemapErrors, OverflowIsACountError) {
  const Typemap big = Typemap::contiguous("MPI_Type_contiguous", 1LL << 40, kDouble);
  const TypeError e = error_of([&] { Typemap::contiguous("MPI_Type_contiguous", 1LL << 30, big); });
  EXPECT_EQ(e.mpi_class(), ErrorClass::count);
  EXPECT_EQ(std::string(e.what()).rfind("MPI_Type_contiguous: ", 0), 0u);
  EXPECT_EQ(error_of([&] { Typemap::vector("MPI_Type_vector", 2, 1, 1LL << 60, big); }).mpi_class(),
            ErrorClass::count);
}

// ---- envelopes ----

TEST(TypemapEnvelope, CombinersIntegersAddressesAndChildren) {
  EXPECT_EQ(kInt.combiner(), Combiner::named);
  Typemap v = Typemap::vector("MPI_Type_vector", 3, 2, 5, kInt);
  EXPECT_EQ(v.combiner(), Combiner::vector);
  EXPECT_EQ(v.envelope().integers, (std::vector<std::int64_t>{3, 2, 5}));
  v.set_children({42});
  EXPECT_EQ(v.envelope().children, (std::vector<std::uint64_t>{42}));
  const Typemap copy = v;
  v.set_children({7});
  EXPECT_EQ(copy.envelope().children, (std::vector<std::uint64_t>{42}));

  const Typemap r = Typemap::resized("MPI_Type_create_resized", -8, 24, kInt);
  EXPECT_EQ(r.combiner(), Combiner::resized);
  EXPECT_EQ(r.envelope().addresses, (std::vector<std::int64_t>{-8, 24}));

  const int g[] = {4, 6}, dist[] = {0, 1}, dargs[] = {-1, 2}, p[] = {2, 1};
  const Typemap d = Typemap::darray("MPI_Type_create_darray", 2, 1, g, dist, dargs, p, true, kInt);
  EXPECT_EQ(d.combiner(), Combiner::darray);
  EXPECT_EQ(d.envelope().integers,
            (std::vector<std::int64_t>{2, 1, 2, 4, 6, 0, 1, -1, 2, 2, 1, 1}));
  EXPECT_EQ(Typemap::dup(d).combiner(), Combiner::dup);
  EXPECT_EQ(Typemap::dup(d).extent(), d.extent());
}

// ---- random nested types against a reference expanding every type map ----

// A type as the standard defines it: its entries in type-map order, and its bounds computed
// block copy by block copy (sticky bounds from resized; a struct's extent padded).
struct Reference {
  std::vector<std::pair<std::int64_t, Basic>> entries;
  std::int64_t lb = 0, ub = 0;
  bool sticky = false;
  std::int64_t align = 1;
};

Reference reference_basic(Basic b) {
  return {{{0, b}}, 0, info(b).size, false, info(b).alignment};
}

// Builds a reference from (displacement, child) copies in type-map order.
struct ReferenceBuilder {
  Reference r;
  bool any = false;
  void copy(const Reference& c, std::int64_t at) {
    for (const auto& [d, b] : c.entries) r.entries.push_back({at + d, b});
    r.align = std::max(r.align, c.align);
    if (c.sticky && !r.sticky) any = false;
    if (!c.sticky && r.sticky) return;
    r.sticky = c.sticky;
    r.lb = any ? std::min(r.lb, at + c.lb) : at + c.lb;
    r.ub = any ? std::max(r.ub, at + c.ub) : at + c.ub;
    any = true;
  }
  Reference done(bool pad) {
    const std::int64_t extent = r.ub - r.lb;
    if (pad && !r.sticky && extent % r.align != 0) r.ub += r.align - extent % r.align;
    return r;
  }
};

struct Random {
  std::mt19937_64 engine;
  int below(int n) { return static_cast<int>(engine() % static_cast<std::uint64_t>(n)); }
  int between(int lo, int hi) { return lo + below(hi - lo + 1); }
};

const Basic kRandomBasics[] = {Basic::char_,      Basic::short_,    Basic::int_,  Basic::double_,
                               Basic::double_int, Basic::short_int, Basic::float_};

struct Both {
  Typemap t;
  Reference r;
};

Both random_type(Random& rnd, int depth);

std::int64_t extent_of(const Reference& r) {
  return r.ub - r.lb;
}

Both random_constructed(Random& rnd, int depth) {
  const Both old = random_type(rnd, depth - 1);
  const std::int64_t e = extent_of(old.r);
  ReferenceBuilder b;
  switch (rnd.below(8)) {
    case 0: {
      const int count = rnd.between(0, 3);
      for (int k = 0; k < count; ++k) b.copy(old.r, k * e);
      return {Typemap::contiguous("contiguous", count, old.t), b.done(false)};
    }
    case 1: {
      const int count = rnd.between(1, 3), length = rnd.between(0, 2), stride = rnd.between(-3, 3);
      for (int k = 0; k < count; ++k) {
        for (int j = 0; j < length; ++j) b.copy(old.r, (k * stride + j) * e);
      }
      return {Typemap::vector("vector", count, length, stride, old.t), b.done(false)};
    }
    case 2: {
      const int count = rnd.between(1, 3), length = rnd.between(1, 2);
      const std::int64_t stride = rnd.between(-40, 40);
      for (int k = 0; k < count; ++k) {
        for (int j = 0; j < length; ++j) b.copy(old.r, k * stride + j * e);
      }
      return {Typemap::hvector("hvector", count, length, stride, old.t), b.done(false)};
    }
    case 3: {
      std::vector<int> lengths(static_cast<std::size_t>(rnd.between(1, 4))), at(lengths.size());
      for (std::size_t k = 0; k < lengths.size(); ++k) {
        lengths[k] = rnd.between(0, 3);
        at[k] = rnd.between(-4, 6);
        for (int j = 0; j < lengths[k]; ++j) b.copy(old.r, (at[k] + j) * e);
      }
      return {Typemap::indexed("indexed", lengths, at, old.t), b.done(false)};
    }
    case 4: {
      const int length = rnd.between(1, 2);
      std::vector<std::int64_t> at(static_cast<std::size_t>(rnd.between(1, 4)));
      for (std::int64_t& d : at) {
        d = rnd.between(-50, 50);
        for (int j = 0; j < length; ++j) b.copy(old.r, d + j * e);
      }
      return {Typemap::hindexed_block("hindexed_block", length, at, old.t), b.done(false)};
    }
    case 5: {
      const Both other = random_type(rnd, depth - 1);
      const int lengths[] = {rnd.between(0, 2), rnd.between(1, 2)};
      const std::int64_t at[] = {rnd.between(-30, 30), rnd.between(-30, 30)};
      const Both* members[] = {&old, &other};
      const Typemap* types[] = {&old.t, &other.t};
      for (int k = 0; k < 2; ++k) {
        for (int j = 0; j < lengths[k]; ++j) {
          b.copy(members[k]->r, at[k] + j * extent_of(members[k]->r));
        }
      }
      return {Typemap::structure("struct", lengths, at, types), b.done(true)};
    }
    case 6: {
      Reference r = old.r;
      r.lb = rnd.between(-8, 8);
      r.ub = r.lb + rnd.between(1, 40);
      r.sticky = true;
      return {Typemap::resized("resized", r.lb, r.ub - r.lb, old.t), r};
    }
    default: {
      const int sizes[] = {rnd.between(1, 3), rnd.between(1, 3)};
      const int subsizes[] = {rnd.between(0, sizes[0]), rnd.between(0, sizes[1])};
      const int starts[] = {rnd.between(0, sizes[0] - subsizes[0]),
                            rnd.between(0, sizes[1] - subsizes[1])};
      for (int i = starts[0]; i < starts[0] + subsizes[0]; ++i) {
        for (int j = starts[1]; j < starts[1] + subsizes[1]; ++j) {
          b.r.entries.insert(b.r.entries.end(), old.r.entries.begin(), old.r.entries.end());
          for (std::size_t k = b.r.entries.size() - old.r.entries.size(); k < b.r.entries.size();
               ++k) {
            b.r.entries[k].first += (i * sizes[1] + j) * e;
          }
        }
      }
      b.r.lb = 0;
      b.r.ub = sizes[0] * sizes[1] * e;
      b.r.sticky = true;
      b.r.align = old.r.align;
      return {Typemap::subarray("subarray", sizes, subsizes, starts, false, old.t), b.r};
    }
  }
}

Both random_type(Random& rnd, int depth) {
  if (depth == 0 || rnd.below(4) == 0) {
    const Basic b = kRandomBasics[rnd.below(static_cast<int>(std::size(kRandomBasics)))];
    return {Typemap::basic(b), reference_basic(b)};
  }
  return random_constructed(rnd, depth);
}

// The (offset, length) pieces of one basic element's data, in order.
std::vector<std::pair<std::int64_t, std::size_t>> pieces(std::int64_t at, Basic b) {
  const BasicInfo& i = info(b);
  if (i.kind != BasicClass::pair) return {{at, i.size}};
  return {{at, data_size(i.value)}, {at + i.index_offset, data_size(i.index)}};
}

TEST(TypemapRandom, NestedTypesPackAsTheirExpandedTypeMaps) {
  Random rnd{std::mt19937_64{20240611}};
  for (int round = 0; round < 3000; ++round) {
    const Both both = random_type(rnd, 3);
    const Typemap& t = both.t;
    const Reference& r = both.r;
    const std::size_t count = static_cast<std::size_t>(rnd.between(1, 3));
    SCOPED_TRACE("round " + std::to_string(round));
    ASSERT_EQ(t.lb(), r.lb);
    ASSERT_EQ(t.extent(), extent_of(r));
    std::size_t size = 0, elements = 0;
    std::int64_t lo = 0, hi = 0, data_lo = INT64_MAX, data_hi = INT64_MIN;
    for (const auto& [d, b] : r.entries) {
      size += data_size(b);
      elements += info(b).kind == BasicClass::pair ? 2 : 1;
      for (const auto& [at, n] : pieces(d, b)) {
        data_lo = std::min(data_lo, at);
        data_hi = std::max(data_hi, at + static_cast<std::int64_t>(n));
      }
    }
    ASSERT_EQ(t.size(), size);
    ASSERT_EQ(t.basic_elements(), elements);
    if (size > 0) {
      ASSERT_EQ(t.true_lb(), data_lo);
      ASSERT_EQ(t.true_extent(), data_hi - data_lo);
    }
    if (size == 0) continue;
    // Memory for `count` elements, with room below the origin for negative displacements.
    const std::int64_t ext = t.extent();
    lo = std::min<std::int64_t>(data_lo, data_lo + (static_cast<std::int64_t>(count) - 1) * ext);
    hi = std::max<std::int64_t>(data_hi, data_hi + (static_cast<std::int64_t>(count) - 1) * ext);
    std::vector<std::byte> memory(static_cast<std::size_t>(hi - lo));
    for (std::byte& x : memory) x = static_cast<std::byte>(rnd.below(256));
    std::byte* origin = memory.data() - lo;

    std::vector<std::byte> expected;
    for (std::size_t e = 0; e < count; ++e) {
      for (const auto& [d, b] : r.entries) {
        for (const auto& [at, n] : pieces(d + static_cast<std::int64_t>(e) * ext, b)) {
          expected.insert(expected.end(), origin + at, origin + at + n);
        }
      }
    }
    std::vector<std::byte> out(count * size);
    t.pack(origin, count, out.data());
    ASSERT_EQ(out, expected);

    // A short unpack of a random length writes exactly the basic elements it holds, in
    // type-map order (later entries overwrite overlapping earlier ones).
    const auto reference_unpack = [&](std::size_t bytes, std::size_t& used, long long& whole) {
      std::vector<std::byte> want(memory.size());
      used = 0;
      whole = 0;
      for (std::size_t e = 0; e < count; ++e) {
        for (const auto& [d, b] : r.entries) {
          for (const auto& [at, n] : pieces(d + static_cast<std::int64_t>(e) * ext, b)) {
            if (used + n > bytes) return want;
            std::memcpy(want.data() - lo + at, out.data() + used, n);
            used += n;
            ++whole;
          }
        }
      }
      return want;
    };
    const auto bytes = static_cast<std::size_t>(rnd.below(static_cast<int>(out.size()) + 1));
    std::vector<std::byte> got(memory.size());
    t.unpack(out.data(), bytes, got.data() - lo, count);
    std::size_t used = 0;
    long long whole = 0;
    ASSERT_EQ(got, reference_unpack(bytes, used, whole)) << bytes << " of " << out.size();
    ASSERT_EQ(t.elements_in(bytes), used == bytes ? whole : -1);

    // external32 and back gives what a native unpack of the packed data gives.
    std::vector<std::byte> ext32(count * t.external32_size());
    t.pack_external32(origin, count, ext32.data());
    std::vector<std::byte> back(memory.size());
    t.unpack_external32(ext32.data(), back.data() - lo, count);
    ASSERT_EQ(back, reference_unpack(out.size(), used, whole));
  }
}

}  // namespace
