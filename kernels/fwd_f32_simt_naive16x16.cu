// Variant "sm80.fwd.f32.fma.simt.naive16x16" of contract fwd.f32.fma-chain/1: one thread per output,
// 16x16 thread blocks, a plain loop over k ascending with __fmaf_rn, bias added once with __fadd_rn.
// It has no shared memory, no padding and no vector loads: it exists to show that the production
// tile's bits are the contract's and do not depend on the tile.
#include <cuda_runtime.h>

#include "kernels/forward_internal.h"
#include "kernels/simple_kernel_launch.h"

namespace ordo::kernels::detail {
namespace {

__global__ void __launch_bounds__(256) fwd_f32_simt_naive16x16_kernel(const float* __restrict__ x,
                                                                     const float* __restrict__ w,
                                                                     const float* __restrict__ bias,
                                                                     float* __restrict__ y, int M, int N, int K,
                                                                     unsigned tiles_n) {
  const int m = static_cast<int>(blockIdx.x / tiles_n) * 16 + static_cast<int>(threadIdx.y);
  const int n = static_cast<int>(blockIdx.x % tiles_n) * 16 + static_cast<int>(threadIdx.x);
  if (m >= M || n >= N) return;
  const float* xr = x + static_cast<size_t>(m) * static_cast<size_t>(K);
  const float* wr = w + static_cast<size_t>(n) * static_cast<size_t>(K);
  float acc = 0.0f;  // +0
  for (int k = 0; k < K; ++k) acc = __fmaf_rn(xr[k], wr[k], acc);
  y[static_cast<size_t>(m) * static_cast<size_t>(N) + static_cast<size_t>(n)] =
      bias != nullptr ? __fadd_rn(acc, bias[n]) : acc;
}

}  // namespace

cudaError_t launch_fwd_f32_simt_naive16x16(const LaunchParams& p) {
  return launch_simple_16x16(reinterpret_cast<const void*>(&fwd_f32_simt_naive16x16_kernel), p);
}

}  // namespace ordo::kernels::detail
