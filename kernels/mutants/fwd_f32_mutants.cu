// Deliberately broken variants of contract fwd.f32.fma-chain/1 (registered with is_mutant = true).
// Each claims the contract and violates it in one way; the harness must reject every one of them.
// Same shape as naive16x16: one thread per output, 16x16 thread blocks.
#include <cuda_runtime.h>

#include "kernels/forward_internal.h"
#include "kernels/simple_kernel_launch.h"

namespace ordo::kernels::detail {
namespace {

// mutant.fwd.f32.k-reversed: one chain from +0, but over k descending (K-1 .. 0).
__global__ void __launch_bounds__(256) mutant_k_reversed_kernel(const float* __restrict__ x,
                                                               const float* __restrict__ w,
                                                               const float* __restrict__ bias,
                                                               float* __restrict__ y, int M, int N, int K,
                                                               unsigned tiles_n) {
  const int m = static_cast<int>(blockIdx.x / tiles_n) * 16 + static_cast<int>(threadIdx.y);
  const int n = static_cast<int>(blockIdx.x % tiles_n) * 16 + static_cast<int>(threadIdx.x);
  if (m >= M || n >= N) return;
  const float* xr = x + static_cast<size_t>(m) * static_cast<size_t>(K);
  const float* wr = w + static_cast<size_t>(n) * static_cast<size_t>(K);
  float acc = 0.0f;
  for (int k = K - 1; k >= 0; --k) acc = __fmaf_rn(xr[k], wr[k], acc);
  y[static_cast<size_t>(m) * static_cast<size_t>(N) + static_cast<size_t>(n)] =
      bias != nullptr ? __fadd_rn(acc, bias[n]) : acc;
}

// mutant.fwd.f32.k-split-halves: chains over [0, K/2) and [K/2, K), each from +0, joined by __fadd_rn.
__global__ void __launch_bounds__(256) mutant_k_split_halves_kernel(const float* __restrict__ x,
                                                                   const float* __restrict__ w,
                                                                   const float* __restrict__ bias,
                                                                   float* __restrict__ y, int M, int N, int K,
                                                                   unsigned tiles_n) {
  const int m = static_cast<int>(blockIdx.x / tiles_n) * 16 + static_cast<int>(threadIdx.y);
  const int n = static_cast<int>(blockIdx.x % tiles_n) * 16 + static_cast<int>(threadIdx.x);
  if (m >= M || n >= N) return;
  const float* xr = x + static_cast<size_t>(m) * static_cast<size_t>(K);
  const float* wr = w + static_cast<size_t>(n) * static_cast<size_t>(K);
  const int half = K / 2;
  float lo = 0.0f, hi = 0.0f;
  for (int k = 0; k < half; ++k) lo = __fmaf_rn(xr[k], wr[k], lo);
  for (int k = half; k < K; ++k) hi = __fmaf_rn(xr[k], wr[k], hi);
  const float acc = __fadd_rn(lo, hi);
  y[static_cast<size_t>(m) * static_cast<size_t>(N) + static_cast<size_t>(n)] =
      bias != nullptr ? __fadd_rn(acc, bias[n]) : acc;
}

// mutant.fwd.f32.bias-first: the chain starts from b[n] (or +0 without bias) and nothing is added after.
__global__ void __launch_bounds__(256) mutant_bias_first_kernel(const float* __restrict__ x,
                                                               const float* __restrict__ w,
                                                               const float* __restrict__ bias,
                                                               float* __restrict__ y, int M, int N, int K,
                                                               unsigned tiles_n) {
  const int m = static_cast<int>(blockIdx.x / tiles_n) * 16 + static_cast<int>(threadIdx.y);
  const int n = static_cast<int>(blockIdx.x % tiles_n) * 16 + static_cast<int>(threadIdx.x);
  if (m >= M || n >= N) return;
  const float* xr = x + static_cast<size_t>(m) * static_cast<size_t>(K);
  const float* wr = w + static_cast<size_t>(n) * static_cast<size_t>(K);
  float acc = bias != nullptr ? bias[n] : 0.0f;
  for (int k = 0; k < K; ++k) acc = __fmaf_rn(xr[k], wr[k], acc);
  y[static_cast<size_t>(m) * static_cast<size_t>(N) + static_cast<size_t>(n)] = acc;
}

}  // namespace

cudaError_t launch_mutant_k_reversed(const LaunchParams& p) {
  return launch_simple_16x16(reinterpret_cast<const void*>(&mutant_k_reversed_kernel), p);
}
cudaError_t launch_mutant_k_split_halves(const LaunchParams& p) {
  return launch_simple_16x16(reinterpret_cast<const void*>(&mutant_k_split_halves_kernel), p);
}
cudaError_t launch_mutant_bias_first(const LaunchParams& p) {
  return launch_simple_16x16(reinterpret_cast<const void*>(&mutant_bias_first_kernel), p);
}

}  // namespace ordo::kernels::detail
