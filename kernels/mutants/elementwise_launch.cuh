#pragma once
// The one-thread-per-output kernel of the FP32 forward mutants: each thread finds its output (m, n) and
// computes it with a defect of fwd_f32_defects.h, the code its host twin runs too. 16x16 thread blocks
// on a 1-D grid of ceil(M/16) * ceil(N/16) blocks, N tiles fastest: the naive16x16 variant's shape and
// argument list (so kernels/host_emulation runs these sources as well). CUDA sources only.
#include <cuda_runtime.h>

#include "kernels/forward_internal.h"
#include "kernels/mutants/fwd_f32_defects.h"
#include "kernels/simple_kernel_launch.h"  // launch_16x16_grid

namespace ordo::kernels::detail {

template <class Defect>
__global__ void __launch_bounds__(256)
    mutant_elementwise_kernel(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ bias,
                              float* __restrict__ y, int M, int N, int K, unsigned tiles_n) {
  mutants::ForwardElement e;
  e.m = static_cast<int>(blockIdx.x / tiles_n) * 16 + static_cast<int>(threadIdx.y);
  e.n = static_cast<int>(blockIdx.x % tiles_n) * 16 + static_cast<int>(threadIdx.x);
  if (e.m >= M || e.n >= N) return;
  e.x = x;
  e.w = w;
  e.bias = bias != nullptr ? bias + e.n : nullptr;
  e.M = M;
  e.N = N;
  e.K = K;
  y[static_cast<size_t>(e.m) * static_cast<size_t>(N) + static_cast<size_t>(e.n)] = Defect::compute(e);
}

template <class Defect>
cudaError_t launch_mutant_elementwise(const LaunchParams& p) {
  return launch_16x16_grid(reinterpret_cast<const void*>(&mutant_elementwise_kernel<Defect>), p);
}

}  // namespace ordo::kernels::detail
