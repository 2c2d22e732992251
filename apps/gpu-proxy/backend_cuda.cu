// The CUDA back end: each rank owns its fields on a device and a stream of its own; pack,
// unpack and step queue kernels and copies on that stream, and finish() either waits for it
// (a synchronous, measured step: the wait is part of the rank's running time, so the kernels'
// time is charged to the rank that launched them) or polls it and yields between
// polls (an asynchronous step: the ranks sharing the device overlap their kernels).
// The kernels call numerics.hpp's functions, as the CPU loops do, and are compiled with
// -fmad=false (CMakeLists.txt): their results are the CPU back end's, bit for bit.
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backend.hpp"

namespace gpu_proxy {
namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA: ") + call + ": " + cudaGetErrorString(status));
  }
}

constexpr int threads = 256;

int blocks_for(long n) {
  return static_cast<int>((n + threads - 1) / threads);
}

// One thread per value of the side's buffer: (field, column along the side, level).
__global__ void copy_side_kernel(Block b, double* fields, int side, bool halo, double* buffer,
                                 bool to_buffer) {
  const long n = static_cast<long>(side_columns(b, side)) * b.nz * b.fields;
  const long q = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= n) return;
  const int k = static_cast<int>(q % b.nz);
  const long rest = q / b.nz;
  const int m = static_cast<int>(rest % side_columns(b, side));
  const int f = static_cast<int>(rest / side_columns(b, side));
  double* cell = fields + f * b.cells() + side_column(b, side, halo, m) + k;
  if (to_buffer)
    buffer[q] = *cell;
  else
    *cell = buffer[q];
}

// One thread per interior value of every field; the largest change goes to *largest as the
// bits of a non-negative double (which order as the unsigned integers do), one atomic per warp.
__global__ void jacobi_kernel(Block b, const double* current, double* next,
                              unsigned long long* largest) {
  const long n = static_cast<long>(b.lx) * b.ly * b.nz * b.fields;
  const long q = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  double change = 0.0;
  if (q < n) {
    const int k = static_cast<int>(q % b.nz);
    long rest = q / b.nz;
    const int i = 1 + static_cast<int>(rest % b.lx);
    rest /= b.lx;
    const int j = 1 + static_cast<int>(rest % b.ly);
    const long f = rest / b.ly;
    const double* a = current + f * b.cells();
    const long p = b.cell(i, j) + k;
    const double value = jacobi_point(a, p, k, b.nz, b.row());
    change = value > a[p] ? value - a[p] : a[p] - value;
    next[f * b.cells() + p] = value;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const double other = __shfl_down_sync(0xffffffffu, change, offset);
    if (other > change) change = other;
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(largest, static_cast<unsigned long long>(__double_as_longlong(change)));
  }
}

// One thread per column and field: the sweep up the column is sequential (the seed's
// "loop seq").
__global__ void physics_kernel(Block b, double* current, const double* before, Region heavy,
                               int work) {
  const long n = static_cast<long>(b.lx) * b.ly * b.fields;
  const long q = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= n) return;
  const int i = 1 + static_cast<int>(q % b.lx);
  const long rest = q / b.lx;
  const int j = 1 + static_cast<int>(rest % b.ly);
  const long f = rest / b.ly;
  physics_column(current + f * b.cells(), before + f * b.cells(), b.cell(i, j), b.nz,
                 passes_at(heavy, b.x0 + i - 1, b.y0 + j - 1), work);
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(const Block& block, const double* initial, int rank) : b_(block) {
    int devices = 0;
    check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    device_ = rank % devices;
    check(cudaSetDevice(device_), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    const std::size_t bytes = sizeof(double) * static_cast<std::size_t>(b_.cells()) * b_.fields;
    check(cudaMalloc(&current_, bytes), "cudaMalloc");
    check(cudaMalloc(&next_, bytes), "cudaMalloc");
    check(cudaMalloc(&largest_, sizeof(unsigned long long)), "cudaMalloc");
    check(cudaMallocHost(&largest_host_, sizeof(unsigned long long)), "cudaMallocHost");
    check(cudaMemcpy(current_, initial, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(next_, initial, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    for (int s = 0; s < 4; ++s) {
      sizes_[s] = static_cast<std::size_t>(side_columns(b_, s)) * b_.nz * b_.fields;
      check(cudaMalloc(&device_buffer_[s], sizeof(double) * sizes_[s]), "cudaMalloc");
      check(cudaMallocHost(&send_[s], sizeof(double) * sizes_[s]), "cudaMallocHost");
      check(cudaMallocHost(&receive_[s], sizeof(double) * sizes_[s]), "cudaMallocHost");
    }
  }

  ~CudaBackend() override {
    // Errors here cannot be reported any more; the memory goes with the process anyway.
    cudaSetDevice(device_);
    cudaStreamSynchronize(stream_);
    for (int s = 0; s < 4; ++s) {
      cudaFree(device_buffer_[s]);
      cudaFreeHost(send_[s]);
      cudaFreeHost(receive_[s]);
    }
    cudaFreeHost(largest_host_);
    cudaFree(largest_);
    cudaFree(next_);
    cudaFree(current_);
    cudaStreamDestroy(stream_);
  }

  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  double* send_buffer(int side) override { return send_[side]; }
  double* receive_buffer(int side) override { return receive_[side]; }

  void pack(int side) override {
    use_device();
    copy_side_kernel<<<blocks_for(static_cast<long>(sizes_[side])), threads, 0, stream_>>>(
        b_, current_, side, false, device_buffer_[side], true);
    check(cudaGetLastError(), "copy_side_kernel");
    check(cudaMemcpyAsync(send_[side], device_buffer_[side], sizeof(double) * sizes_[side],
                          cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync");
  }

  void unpack(int side) override {
    use_device();
    check(cudaMemcpyAsync(device_buffer_[side], receive_[side], sizeof(double) * sizes_[side],
                          cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync");
    copy_side_kernel<<<blocks_for(static_cast<long>(sizes_[side])), threads, 0, stream_>>>(
        b_, current_, side, true, device_buffer_[side], false);
    check(cudaGetLastError(), "copy_side_kernel");
  }

  void step(const Region& heavy, int work) override {
    use_device();
    check(cudaMemsetAsync(largest_, 0, sizeof(unsigned long long), stream_), "cudaMemsetAsync");
    const long values = static_cast<long>(b_.lx) * b_.ly * b_.nz * b_.fields;
    jacobi_kernel<<<blocks_for(values), threads, 0, stream_>>>(b_, current_, next_, largest_);
    check(cudaGetLastError(), "jacobi_kernel");
    std::swap(current_, next_);
    const long columns = static_cast<long>(b_.lx) * b_.ly * b_.fields;
    physics_kernel<<<blocks_for(columns), threads, 0, stream_>>>(b_, current_, next_, heavy, work);
    check(cudaGetLastError(), "physics_kernel");
    check(cudaMemcpyAsync(largest_host_, largest_, sizeof(unsigned long long),
                          cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync");
  }

  void finish(bool synchronous, void (*yield)()) override {
    use_device();
    if (synchronous) {
      check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
      return;
    }
    for (;;) {
      const cudaError_t status = cudaStreamQuery(stream_);
      if (status == cudaSuccess) return;
      if (status != cudaErrorNotReady) check(status, "cudaStreamQuery");
      yield();
    }
  }

  double residual() const override {
    double value = 0.0;
    static_assert(sizeof value == sizeof *largest_host_);
    std::memcpy(&value, largest_host_, sizeof value);
    return value;
  }

  void read(double* host) override {
    use_device();
    check(cudaMemcpyAsync(host, current_,
                          sizeof(double) * static_cast<std::size_t>(b_.cells()) * b_.fields,
                          cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

 private:
  // A rank may resume on another PE thread, and the current device is per thread.
  void use_device() { check(cudaSetDevice(device_), "cudaSetDevice"); }

  Block b_;
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  double* current_ = nullptr;
  double* next_ = nullptr;
  unsigned long long* largest_ = nullptr;
  unsigned long long* largest_host_ = nullptr;
  double* device_buffer_[4] = {};
  double* send_[4] = {};
  double* receive_[4] = {};
  std::size_t sizes_[4] = {};
};

// Seed 004's Table II: one thread per element of the n x m array.
__global__ void scaling_kernel(double* a, long n, long m, int inner) {
  const long q = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q < n * m) a[q] = scaling_element(q / m, q % m, m, inner);
}

}  // namespace

bool cuda_built() {
  return true;
}

std::string cuda_unavailable() {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess) {
    return std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(status) +
           ")";
  }
  if (devices == 0) return "no CUDA device";
  // Waiting for a stream spins rather than sleeps, so a synchronous wait is CPU time as well
  // as wall time: the rank is charged for it whichever clock measures it (--lb-cpu-time).
  for (int d = 0; d < devices; ++d) {
    cudaError_t flags = cudaSetDevice(d);
    if (flags == cudaSuccess) flags = cudaSetDeviceFlags(cudaDeviceScheduleSpin);
    if (flags != cudaSuccess && flags != cudaErrorSetOnActiveProcess) {
      return std::string("device ") + std::to_string(d) + ": " + cudaGetErrorString(flags);
    }
  }
  return "";
}

std::unique_ptr<Backend> make_cuda_backend(const Block& block, const double* initial, int rank) {
  return std::make_unique<CudaBackend>(block, initial, rank);
}

ScalingRun scaling_cuda(int n, int m, int inner) {
  if (const std::string why = cuda_unavailable(); !why.empty()) throw std::runtime_error(why);
  check(cudaSetDevice(0), "cudaSetDevice");
  const long count = static_cast<long>(n) * m;
  double* a = nullptr;
  check(cudaMalloc(&a, sizeof(double) * count), "cudaMalloc");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const auto start = std::chrono::steady_clock::now();
  scaling_kernel<<<blocks_for(count), threads>>>(a, n, m, inner);
  check(cudaGetLastError(), "scaling_kernel launch");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::vector<double> host(static_cast<std::size_t>(count));
  check(cudaMemcpy(host.data(), a, sizeof(double) * count, cudaMemcpyDeviceToHost), "cudaMemcpy");
  check(cudaFree(a), "cudaFree");
  double sum = 0.0;
  for (const double x : host) sum += x;
  return {took.count(), sum};
}

}  // namespace gpu_proxy
