// Where the GPU proxy's kernels run: the CPU (inline, always built) or a CUDA device (built
// when CMake finds a CUDA compiler). The model (model.cpp) drives a rank's step through this
// interface and never sees device memory; both back ends compute with numerics.hpp.
#pragma once

#include <memory>
#include <string>

#include "numerics.hpp"

namespace gpu_proxy {

// A rank's fields and the work on them. The calls that start work (pack, unpack, step) may
// return before it is done (the CUDA back end queues it on the rank's stream); finish() waits
// for all of it. The CPU back end does the work inside the call, so its finish() returns at once.
class Backend {
 public:
  virtual ~Backend() = default;
  // Host buffers of one side's halo: side_columns(side) x nz x fields doubles each.
  virtual double* send_buffer(int side) = 0;
  virtual double* receive_buffer(int side) = 0;
  // Starts copying the interior edge of `side`, every field, into send_buffer(side).
  virtual void pack(int side) = 0;
  // Starts copying receive_buffer(side) into the halo of `side`.
  virtual void unpack(int side) = 0;
  // Starts one step's kernels: the Jacobi update of every field, then the column physics of
  // every column and field with passes_at(heavy, column) passes of `work` Newton steps a level.
  virtual void step(const Region& heavy, int work) = 0;
  // Waits until the work started is done: synchronously (the caller blocks, so the time is
  // charged to it), or else calling `yield` between checks (other ranks run meanwhile).
  virtual void finish(bool synchronous, void (*yield)()) = 0;
  // After finish(): the largest change of a value by the last step's Jacobi update.
  virtual double residual() const = 0;
  // Every field's cells (halo included; Block::cells() per field, field after field), after
  // finish().
  virtual void read(double* host) = 0;
};

// Seed 004's Table II (scaling with problem size): numerics.hpp's scaling_element over an
// n x m array. `seconds` is the computation's wall time alone (on a device: the kernel, no
// allocation or copy, as the seed times it); `sum` adds the elements in row order on the host,
// so the two back ends give the same bits.
struct ScalingRun {
  double seconds;
  double sum;
};
ScalingRun scaling_cpu(int n, int m, int inner);
// On device 0; throws std::runtime_error naming the failed CUDA call (or why there is none).
ScalingRun scaling_cuda(int n, int m, int inner);

// `initial` holds every field's cells as read() returns them.
std::unique_ptr<Backend> make_cpu_backend(const Block& block, const double* initial);

// Whether this build has the CUDA back end.
bool cuda_built();
// Empty when a CUDA device can be used, else why not (no device, no driver, not built).
std::string cuda_unavailable();
// On device `rank % devices`; throws std::runtime_error naming the failed CUDA call.
std::unique_ptr<Backend> make_cuda_backend(const Block& block, const double* initial, int rank);

}  // namespace gpu_proxy
