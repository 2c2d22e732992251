// The CUDA back end's entry points in a build without a CUDA compiler (-DVELA_CUDA=OFF, or
// AUTO where none was found): --backend cuda then says so.
#include <stdexcept>

#include "backend.hpp"

namespace gpu_proxy {

bool cuda_built() {
  return false;
}

std::string cuda_unavailable() {
  return "this build has no CUDA back end (no CUDA compiler was found; install the CUDA "
         "toolkit and configure with -DVELA_CUDA=ON)";
}

std::unique_ptr<Backend> make_cuda_backend(const Block&, const double*, int) {
  throw std::runtime_error(cuda_unavailable());
}

ScalingRun scaling_cuda(int, int, int) {
  throw std::runtime_error(cuda_unavailable());
}

}  // namespace gpu_proxy
