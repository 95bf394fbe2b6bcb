#pragma once
// The simple one-thread-per-output kernels (naive16x16 and the mutants): one kernel template that
// finds its output (m, n) and its rows of X and W, and a `Chain` policy that says how the output is
// computed from them: `__device__ static float compute(const float* xr, const float* wr, int K,
// const float* b)` (b points at b[n], or is null without a bias). 16x16 thread blocks on a 1-D grid
// of ceil(M/16) * ceil(N/16) blocks, blockIdx.x walking the N tiles fastest. CUDA sources only.
#include <cuda_runtime.h>

#include "kernels/forward_internal.h"

namespace ordo::kernels::detail {

template <class Chain>
__global__ void __launch_bounds__(256) simple_16x16_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                                           const float* __restrict__ bias, float* __restrict__ y,
                                                           int M, int N, int K, unsigned tiles_n) {
  const int m = static_cast<int>(blockIdx.x / tiles_n) * 16 + static_cast<int>(threadIdx.y);
  const int n = static_cast<int>(blockIdx.x % tiles_n) * 16 + static_cast<int>(threadIdx.x);
  if (m >= M || n >= N) return;
  const float* xr = x + static_cast<size_t>(m) * static_cast<size_t>(K);
  const float* wr = w + static_cast<size_t>(n) * static_cast<size_t>(K);
  y[static_cast<size_t>(m) * static_cast<size_t>(N) + static_cast<size_t>(n)] =
      Chain::compute(xr, wr, K, bias != nullptr ? bias + n : nullptr);
}

// Launches `kernel`, a 16x16-thread-block kernel of the argument list (x, w, bias, y, M, N, K, tiles_n), on a 1-D
// grid of ceil(M/16) * ceil(N/16) blocks over p's outputs: the naive tile's and the elementwise mutants' launch.
inline cudaError_t launch_16x16_grid(const void* kernel, const LaunchParams& p) {
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

template <class Chain>
cudaError_t launch_simple_16x16(const LaunchParams& p) {
  return launch_16x16_grid(reinterpret_cast<const void*>(&simple_16x16_kernel<Chain>), p);
}

}  // namespace ordo::kernels::detail
