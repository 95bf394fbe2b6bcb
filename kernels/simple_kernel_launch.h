#pragma once
// Launch helper for the simple one-thread-per-output kernels (naive16x16 and the mutants), which all
// take (x, w, bias, y, M, N, K, tiles_n) and run 16x16 thread blocks on a 1-D grid of
// ceil(M/16) * ceil(N/16) blocks (blockIdx.x walks the N tiles fastest). CUDA sources only.
#include <cuda_runtime.h>

#include "kernels/forward_internal.h"

namespace ordo::kernels::detail {

inline cudaError_t launch_simple_16x16(const void* kernel, const LaunchParams& p) {
  const auto tiles_m = static_cast<unsigned>(ceil_div(p.M, 16));
  unsigned tiles_n = static_cast<unsigned>(ceil_div(p.N, 16));
  const float* x = p.x;
  const float* w = p.w;
  const float* bias = p.bias;
  float* y = p.y;
  int M = p.M, N = p.N, K = p.K;
  void* args[] = {&x, &w, &bias, &y, &M, &N, &K, &tiles_n};
  const cudaError_t e = cudaLaunchKernel(kernel, dim3(tiles_m * tiles_n), dim3(16, 16), args, 0, p.stream);
  if (e != cudaSuccess) (void)cudaGetLastError();  // the error is returned; do not leave it behind
  return e;
}

}  // namespace ordo::kernels::detail
