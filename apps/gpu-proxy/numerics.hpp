// The GPU proxy's numerics (seed 004), the one source of truth for both back ends:
// every value the program computes comes from these inline functions, called by the CPU loops
// (backend_cpu.cpp) and by the CUDA kernels (backend_cuda.cu) alike. They use only +, -, *, /
// and comparisons, which IEEE 754 rounds the same on both sides, and both builds forbid fused
// multiply-adds (-ffp-contract=off for the CPU code, -fmad=false for the kernels): the fields
// are bitwise identical whatever the back end.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define GPU_PROXY_HD __host__ __device__
#else
#define GPU_PROXY_HD
#endif

namespace gpu_proxy {

// A rank's block: lx x ly interior columns of nz levels, one column of halo on every side, per
// field; the first interior column is (x0, y0) of the global grid. Column (i, j), i in 0..lx+1
// and j in 0..ly+1 (0 and lx+1 / ly+1 are halo), starts at cell(i, j); its levels are contiguous.
struct Block {
  int nx, ny;  // the global grid
  int lx, ly, nz, fields;
  int x0, y0;
  GPU_PROXY_HD long row() const { return static_cast<long>(lx + 2) * nz; }
  GPU_PROXY_HD long cells() const { return static_cast<long>(ly + 2) * row(); }  // per field
  GPU_PROXY_HD long cell(int i, int j) const {
    return static_cast<long>(j) * row() + static_cast<long>(i) * nz;
  }
};

enum Side { left, right, down, up };

// (--fields is at most max_fields: the field is part of the key of initial_value.)
constexpr int max_fields = 1024;

// Columns along `side`: the halo exchanges nz levels of each, field after field.
GPU_PROXY_HD inline int side_columns(const Block& b, int side) {
  return side == left || side == right ? b.ly : b.lx;
}
// The m-th column along `side`: the interior edge (halo = false) or the halo beyond it.
GPU_PROXY_HD inline long side_column(const Block& b, int side, bool halo, int m) {
  switch (side) {
    case left:
      return b.cell(halo ? 0 : 1, 1 + m);
    case right:
      return b.cell(halo ? b.lx + 1 : b.lx, 1 + m);
    case down:
      return b.cell(1 + m, halo ? 0 : 1);
    default:
      return b.cell(1 + m, halo ? b.ly + 1 : b.ly);
  }
}

// The heavy region, global columns [x_begin, x_end) x [y_begin, y_end): there the column
// physics makes two passes up the column (C(i, j) = 2), elsewhere one.
struct Region {
  int x_begin, x_end, y_begin, y_end;
};
GPU_PROXY_HD inline int passes_at(const Region& r, int gx, int gy) {
  return gx >= r.x_begin && gx < r.x_end && gy >= r.y_begin && gy < r.y_end ? 2 : 1;
}

constexpr double jacobi_weight = 0.8;  // damped Jacobi: the fields relax toward the mean
constexpr double physics_rate = 0.25;  // how far a level moves toward its adjusted value

// One damped Jacobi update of a point of a 3-D 7-point Laplacian (the "dynamics"). Vertically
// the column's end levels reuse their own value (no flux through the bottom and the top).
GPU_PROXY_HD inline double jacobi_point(const double* a, long p, int k, int nz, long row) {
  const double centre = a[p];
  const double below = k > 0 ? a[p - 1] : centre;
  const double above = k + 1 < nz ? a[p + 1] : centre;
  const double sum = ((a[p - nz] + a[p + nz]) + (a[p - row] + a[p + row])) + (below + above);
  return centre + jacobi_weight * (sum * (1.0 / 6.0) - centre);
}

// A level's column physics: `work` Newton steps solving x^3 + x = r for r from the level's
// value before the dynamics and the (already adjusted) level below; the level moves toward x.
// The derivative 3x^2 + 1 is at least 1, so no step divides by zero.
GPU_PROXY_HD inline double adjust(double value, double before, double below, int work) {
  const double r = 0.5 * (before + below);
  double x = r;
  for (int it = 0; it < work; ++it) x = x - (x * x * x + x - r) / (3.0 * x * x + 1.0);
  return value + physics_rate * (x - value);
}

// The column physics of one column of one field (seed 004's synthetic cloud physics): a
// sweep up the column whose trip count is passes * nz - 1, each level depending on the one
// below it. The level index wraps: sweep step t adjusts level t mod nz from level (t - 1) mod
// nz, so a second pass starts again at level 0 from the top level just adjusted. (The seed's
// loop computes the wrapped level as k - (k / nz) * nz, which is 0 at k = nz, and then reads
// levels 0 and -1 of a 1-based array: out of bounds. Here every index stays in 0..nz-1.)
GPU_PROXY_HD inline void physics_column(double* a, const double* before, long column, int nz,
                                        int passes, int work) {
  const long trips = static_cast<long>(passes) * nz;
  for (long t = 1; t < trips; ++t) {
    const long k = column + t % nz;
    const long below = column + (t - 1) % nz;
    a[k] = adjust(a[k], before[k], a[below], work);
  }
}

// Seed 004's Table II loop (its Fig. 3): element (i, j) of an n x m array runs `inner`
// dependent steps from a start of its own. The two outer loops are parallel (one GPU thread
// per element); the inner one is serial, so an element costs the same however few there are:
// the CPU's time is proportional to n * m, a device's stops falling once it has fewer
// elements than it can run at once.
GPU_PROXY_HD inline double scaling_element(long i, long j, long m, int inner) {
  double x = static_cast<double>((i * m + j) % 1000) * 1e-3;
  for (int k = 0; k < inner; ++k) x = 0.999 * x + 0.001 * static_cast<double>(k & 7);
  return x;
}

GPU_PROXY_HD inline std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The initial value of field f at global column (gx, gy), level k, in [0, 1): a hash of the
// position, so any decomposition starts from the same fields. Columns outside the domain
// (gx = -1 or nx, gy = -1 or ny) are the fixed boundary values the halo keeps there.
inline double initial_value(int f, int gx, int gy, int k, int nx, int nz) {
  const auto column = static_cast<std::uint64_t>(static_cast<long>(gy + 1) * (nx + 2) + (gx + 1));
  const std::uint64_t key =
      (column * static_cast<std::uint64_t>(nz) + static_cast<std::uint64_t>(k)) *
          static_cast<std::uint64_t>(max_fields) +
      static_cast<std::uint64_t>(f);
  return static_cast<double>(mix(key ^ 0x9e3779b97f4a7c15ull) >> 11) * 0x1.0p-53;
}

}  // namespace gpu_proxy
