// The CPU back end: the "kernels" run inline in the calling rank, so a synchronous and an
// asynchronous step are the same thing here (there is nothing to overlap with), and the rank's
// measured time is its whole computation. Compiled with -ffp-contract=off (CMakeLists.txt) so
// that no multiply-add is fused: the CUDA kernels, built with -fmad=false, round the same.
#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "backend.hpp"

namespace gpu_proxy {
namespace {

class CpuBackend final : public Backend {
 public:
  CpuBackend(const Block& block, const double* initial)
      : b_(block),
        current_(initial, initial + b_.cells() * b_.fields),
        next_(current_),
        send_(4),
        receive_(4) {
    for (int s = 0; s < 4; ++s) {
      const auto n = static_cast<std::size_t>(side_columns(b_, s)) * b_.nz * b_.fields;
      send_[s].resize(n);
      receive_[s].resize(n);
    }
  }

  double* send_buffer(int side) override { return send_[side].data(); }
  double* receive_buffer(int side) override { return receive_[side].data(); }

  void pack(int side) override { copy_side(side, false, send_[side].data(), true); }
  void unpack(int side) override { copy_side(side, true, receive_[side].data(), false); }

  void step(const Region& heavy, int work) override {
    const long cells = b_.cells(), row = b_.row();
    const int nz = b_.nz;
    double largest = 0.0;
    for (int f = 0; f < b_.fields; ++f) {
      const double* a = current_.data() + f * cells;
      double* out = next_.data() + f * cells;
      for (int j = 1; j <= b_.ly; ++j) {
        for (int i = 1; i <= b_.lx; ++i) {
          const long column = b_.cell(i, j);
          for (int k = 0; k < nz; ++k) {
            const long p = column + k;
            const double value = jacobi_point(a, p, k, nz, row);
            const double change = value > a[p] ? value - a[p] : a[p] - value;
            if (change > largest) largest = change;
            out[p] = value;
          }
        }
      }
    }
    residual_ = largest;
    // The Jacobi result is current now; the values before it feed the physics.
    std::swap(current_, next_);
    for (int f = 0; f < b_.fields; ++f) {
      double* a = current_.data() + f * cells;
      const double* before = next_.data() + f * cells;
      for (int j = 1; j <= b_.ly; ++j) {
        for (int i = 1; i <= b_.lx; ++i) {
          physics_column(a, before, b_.cell(i, j), nz,
                         passes_at(heavy, b_.x0 + i - 1, b_.y0 + j - 1), work);
        }
      }
    }
  }

  void finish(bool, void (*)()) override {}
  double residual() const override { return residual_; }
  void read(double* host) override { std::copy(current_.begin(), current_.end(), host); }

 private:
  void copy_side(int side, bool halo, double* buffer, bool to_buffer) {
    const int n = side_columns(b_, side), nz = b_.nz;
    double* q = buffer;
    for (int f = 0; f < b_.fields; ++f) {
      double* a = current_.data() + f * b_.cells();
      for (int m = 0; m < n; ++m, q += nz) {
        double* column = a + side_column(b_, side, halo, m);
        if (to_buffer)
          std::copy(column, column + nz, q);
        else
          std::copy(q, q + nz, column);
      }
    }
  }

  Block b_;
  std::vector<double> current_, next_;  // every field's cells, field after field
  std::vector<std::vector<double>> send_, receive_;
  double residual_ = 0.0;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const Block& block, const double* initial) {
  return std::make_unique<CpuBackend>(block, initial);
}

ScalingRun scaling_cpu(int n, int m, int inner) {
  std::vector<double> a(static_cast<std::size_t>(n) * m);
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < m; ++j) a[i * m + j] = scaling_element(i, j, m, inner);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  double sum = 0.0;
  for (const double x : a) sum += x;
  return {took.count(), sum};
}

}  // namespace gpu_proxy
