// The curve order of the Hilbert strategy: objects sorted by a Hilbert index of their lattice
// coordinates.
//
// Domains of any shape. A Hilbert curve of the enclosing power-of-two cube visits a long thin
// box in an order that jumps back and forth, so the lattice box (extents L >= M >= S after
// sorting the axes) is covered by a chain of curves that only ever meet at adjacent cells:
//  1. the longest axis is cut into blocks of side m = 2^ceil(log2 M), visited in order;
//  2. inside a block, a 2-D Hilbert curve runs over the two long axes down to squares of side
//     t = 2^ceil(log2 S), so a flat slab is not forced into a cube much taller than itself;
//  3. each t-cube is filled by a 3-D Hilbert curve (Skilling's transpose form).
// Every curve enters its box at the local origin and leaves at the next corner along its first
// axis, and each level is oriented by the frame its parent hands down, so the chain is one
// continuous Hilbert-like curve over the padded box; cells outside the domain are skipped. A
// skipped stretch shows as a short jump inside one block, and only where the curve crosses the
// domain's cut faces (at most half their cell count; far fewer in practice: 0 on 12x7, 100x3
// or 33x65, 195 in the 10^6 steps of 1000x999). 2-D domains are the case S = 1. A power-of-two
// square or cube gets the plain Hilbert curve. Chosen over the seed's decomposition into
// largest squares because one orientation rule covers every level and 3-D slabs come for free.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "vela/lb/strategies/hilbert.hpp"

namespace vela::lb {

namespace {

// Smallest k with 2^k >= value, for value >= 1.
int ceil_log2(std::uint64_t value) {
  return static_cast<int>(std::bit_width(value - 1));
}

// Index of (x, y, z) on the 3-D Hilbert curve of a 2^levels cube that starts at the origin and
// ends at (2^levels - 1, 0, 0). Skilling's method: undo the curve's rotations level by level in
// place, Gray-code the result, then read the bits interleaved from the top.
std::uint64_t hilbert_index_3d(std::array<std::uint32_t, 3> c, int levels) {
  if (levels == 0) return 0;
  const std::uint32_t top = std::uint32_t{1} << (levels - 1);
  for (std::uint32_t q = top; q > 1; q >>= 1) {
    const std::uint32_t low = q - 1;
    for (std::size_t i = 0; i < 3; ++i) {
      if (c[i] & q) {
        c[0] ^= low;  // invert the low bits of the first axis
      } else {
        const std::uint32_t swap = (c[0] ^ c[i]) & low;  // exchange low bits with the first axis
        c[0] ^= swap;
        c[i] ^= swap;
      }
    }
  }
  c[1] ^= c[0];
  c[2] ^= c[1];
  std::uint32_t flip = 0;
  for (std::uint32_t q = top; q > 1; q >>= 1) {
    if (c[2] & q) flip ^= q - 1;
  }
  for (std::uint32_t& axis : c) axis ^= flip;
  std::uint64_t index = 0;
  for (int bit = levels - 1; bit >= 0; --bit) {
    for (std::size_t i = 0; i < 3; ++i) index = (index << 1) | ((c[i] >> bit) & 1U);
  }
  return index;
}

// One level of the 2-D Hilbert curve as a table. The sub-square a point falls in is seen
// through the frame its parents handed down: swapped (x and y exchanged) and/or complemented
// (both coordinates mirrored). state = swapped | complemented << 1; an entry holds the
// quadrant digit (the curve visits (0,0), (0,1), (1,1), (1,0) of its frame) and the next
// state, for the point's raw bits (x << 1 | y) at that level.
constexpr std::array<std::array<std::uint8_t, 4>, 4> kSquareStep = [] {
  std::array<std::array<std::uint8_t, 4>, 4> table{};
  for (unsigned state = 0; state < 4; ++state) {
    for (unsigned raw = 0; raw < 4; ++raw) {
      const unsigned swapped = state & 1U, complemented = state >> 1;
      unsigned x = (swapped ? raw : raw >> 1) & 1U;
      unsigned y = (swapped ? raw >> 1 : raw) & 1U;
      x ^= complemented;
      y ^= complemented;
      unsigned next = state;
      if (y == 0) next ^= x == 1 ? 3U : 1U;  // the first quadrant transposes, the last also flips
      table[state][raw] = static_cast<std::uint8_t>(((3 * x) ^ y) | next << 2);
    }
  }
  return table;
}();

// The chain of curves described at the top of the file, for one lattice box.
class BoxCurve {
 public:
  // `extent[a]` lattice points along axis a (>= 1 each); unused axes have extent 1.
  explicit BoxCurve(const std::array<std::uint64_t, 3>& extent) {
    std::iota(axis_.begin(), axis_.end(), 0);
    std::stable_sort(axis_.begin(), axis_.end(),
                     [&](std::size_t a, std::size_t b) { return extent[a] > extent[b]; });
    square_levels_ = ceil_log2(extent[axis_[1]]);
    cube_levels_ = ceil_log2(extent[axis_[2]]);
    const std::uint64_t blocks = ((extent[axis_[0]] - 1) >> square_levels_) + 1;
    key_bits_ = static_cast<int>(std::bit_width(blocks - 1)) + 2 * square_levels_ + cube_levels_;
  }

  // Bits a key may use; keys fit in 64 bits when this is <= 64.
  int key_bits() const { return key_bits_; }

  std::uint64_t key(const std::array<std::uint64_t, 3>& point) const {
    const std::uint64_t along = point[axis_[0]];
    const std::uint64_t x = along & ((std::uint64_t{1} << square_levels_) - 1);
    const std::uint64_t y = point[axis_[1]];
    std::uint64_t index = along >> square_levels_;  // the block
    unsigned state = 0;
    for (int level = square_levels_ - 1; level >= cube_levels_; --level) {
      const auto raw = static_cast<unsigned>(((x >> level) & 1U) << 1 | ((y >> level) & 1U));
      const std::uint8_t step = kSquareStep[state][raw];
      index = (index << 2) | (step & 3U);
      state = step >> 2;
    }
    if (cube_levels_ == 0) return index;
    // The t-cube continues in the frame of its square: the same swap and mirror.
    const std::uint64_t low = (std::uint64_t{1} << cube_levels_) - 1;
    const std::uint64_t flip = (state >> 1) != 0 ? low : 0;
    const std::uint64_t local_x = ((state & 1U) != 0 ? y : x) & low;
    const std::uint64_t local_y = ((state & 1U) != 0 ? x : y) & low;
    const std::array<std::uint32_t, 3> local = {static_cast<std::uint32_t>(local_x ^ flip),
                                                static_cast<std::uint32_t>(local_y ^ flip),
                                                static_cast<std::uint32_t>(point[axis_[2]])};
    return (index << (3 * cube_levels_)) | hilbert_index_3d(local, cube_levels_);
  }

 private:
  std::array<std::size_t, 3> axis_{};  // axes from the longest extent to the shortest
  int square_levels_ = 0;              // log2 of the block side m
  int cube_levels_ = 0;                // log2 of the cube side t
  int key_bits_ = 0;
};

// Stable LSD radix sort of `items` by key_of(item), which uses `key_bits` bits: 8-bit digits
// (their 256 buckets keep the scatter in cache), all histograms from one read, and digits that
// never vary skipped. Stability keeps equal keys in their incoming order.
template <class Item, class KeyOf>
void radix_sort(std::vector<Item>& items, KeyOf key_of, int key_bits) {
  constexpr int kDigitBits = 8;
  constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
  const auto digits = static_cast<std::size_t>((key_bits + kDigitBits - 1) / kDigitBits);
  std::vector<std::array<std::size_t, kBuckets>> start(digits);
  for (auto& counts : start) counts.fill(0);
  for (const Item& item : items) {
    const std::uint64_t key = key_of(item);
    for (std::size_t d = 0; d < digits; ++d) ++start[d][(key >> (d * kDigitBits)) & (kBuckets - 1)];
  }
  std::vector<Item> scratch(items.size());
  for (std::size_t d = 0; d < digits; ++d) {
    auto& counts = start[d];
    if (std::find(counts.begin(), counts.end(), items.size()) != counts.end()) continue;
    std::size_t sum = 0;
    for (std::size_t& count : counts) sum += std::exchange(count, sum);
    for (const Item& item : items) {
      scratch[counts[(key_of(item) >> (d * kDigitBits)) & (kBuckets - 1)]++] = item;
    }
    items.swap(scratch);
  }
}

// Maps coordinates to lattice points: integer coordinates directly (offset by the minimum),
// others by an isotropic cell that puts 2^bits cells along the longest extent.
class Lattice {
 public:
  Lattice(const Instance& instance, int bits) : axes_(static_cast<std::size_t>(instance.dims)) {
    // Integer coordinates are used as they are while doubles stay exact and the keys fit.
    constexpr double kExact = 9.0e15;
    std::array<double, 3> high{};
    min_.fill(std::numeric_limits<double>::infinity());
    high.fill(-std::numeric_limits<double>::infinity());
    bool finite = true;
    bool integral = true;
    for (const Object& o : instance.objects) {
      for (std::size_t a = 0; a < axes_; ++a) {
        const double c = o.coords[a];
        finite = finite && std::isfinite(c);
        min_[a] = std::min(min_[a], c);
        high[a] = std::max(high[a], c);
        integral = integral && std::abs(c) < kExact &&
                   c == static_cast<double>(static_cast<std::int64_t>(c));
      }
    }
    if (!finite) throw_not_finite(instance);
    if (instance.objects.empty()) return;
    if (integral) {
      for (std::size_t a = 0; a < axes_; ++a) {
        extent_[a] = static_cast<std::uint64_t>(high[a] - min_[a]) + 1;
      }
      if (BoxCurve(extent_).key_bits() <= 64) return;
    }
    double longest = 0.0;
    for (std::size_t a = 0; a < axes_; ++a) longest = std::max(longest, high[a] - min_[a]);
    const double cells = std::ldexp(1.0, bits);
    scale_ = longest > 0.0 ? (cells - 1.0) / longest : 0.0;
    for (std::size_t a = 0; a < axes_; ++a) {
      extent_[a] =
          static_cast<std::uint64_t>(std::min((high[a] - min_[a]) * scale_, cells - 1.0)) + 1;
    }
  }

  const std::array<std::uint64_t, 3>& extent() const { return extent_; }

  std::array<std::uint64_t, 3> point(const std::array<double, 3>& coords) const {
    std::array<std::uint64_t, 3> p{};
    for (std::size_t a = 0; a < axes_; ++a) {
      const double offset = coords[a] - min_[a];  // >= 0, so truncation is floor
      const auto cell = static_cast<std::uint64_t>(scale_ > 0.0 ? offset * scale_ : offset);
      p[a] = std::min(cell, extent_[a] - 1);
    }
    return p;
  }

 private:
  [[noreturn]] void throw_not_finite(const Instance& instance) const {
    for (std::size_t i = 0; i < instance.objects.size(); ++i) {
      for (std::size_t a = 0; a < axes_; ++a) {
        if (!std::isfinite(instance.objects[i].coords[a])) {
          throw InstanceError("object " + std::to_string(i) + ": coordinate " + std::to_string(a) +
                              " is not finite");
        }
      }
    }
    throw InstanceError("a coordinate is not finite");
  }

  std::size_t axes_;
  std::array<double, 3> min_{};
  std::array<std::uint64_t, 3> extent_ = {1, 1, 1};
  double scale_ = 0.0;  // 0 for an integer lattice: coordinates are used as they are
};

}  // namespace

std::vector<std::uint32_t> hilbert_order(const Instance& instance, int bits) {
  if (bits < kHilbertMinBits || bits > kHilbertMaxBits) {
    throw std::invalid_argument("hilbert_order: bits is " + std::to_string(bits) + ", expected " +
                                std::to_string(kHilbertMinBits) + " to " +
                                std::to_string(kHilbertMaxBits));
  }
  if (instance.dims < 0 || instance.dims > 3) {
    throw InstanceError("dims is " + std::to_string(instance.dims) + ", expected 0 to 3");
  }
  if (instance.objects.size() > UINT32_MAX) {
    throw InstanceError("more than 2^32-1 objects are not supported");
  }
  const auto n = static_cast<std::uint32_t>(instance.objects.size());
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0U);
  if (instance.dims == 0) return order;

  const Lattice lattice(instance, bits);
  if (instance.dims == 1) {
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return instance.objects[a].coords[0] < instance.objects[b].coords[0];
    });
    return order;
  }
  const BoxCurve curve(lattice.extent());
  const auto& objects = instance.objects;
  const int position_bits = static_cast<int>(std::bit_width(n));
  if (curve.key_bits() + position_bits <= 64) {
    // Key and position packed in one word: half the bytes to move as separate fields.
    std::vector<std::uint64_t> packed(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      packed[i] = curve.key(lattice.point(objects[i].coords)) << position_bits | i;
    }
    radix_sort(
        packed, [&](std::uint64_t item) { return item >> position_bits; }, curve.key_bits());
    const std::uint64_t position_mask = (std::uint64_t{1} << position_bits) - 1;
    for (std::uint32_t i = 0; i < n; ++i) {
      order[i] = static_cast<std::uint32_t>(packed[i] & position_mask);
    }
  } else {
    struct Keyed {
      std::uint64_t key;
      std::uint32_t position;
    };
    std::vector<Keyed> keyed(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      keyed[i] = {curve.key(lattice.point(objects[i].coords)), i};
    }
    radix_sort(
        keyed, [](const Keyed& item) { return item.key; }, curve.key_bits());
    for (std::uint32_t i = 0; i < n; ++i) order[i] = keyed[i].position;
  }
  return order;
}

}  // namespace vela::lb
