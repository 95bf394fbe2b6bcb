// GPU-only mutant of contract fwd.f32.fma-chain/1: "mutant.fwd.f32.smem-missing-barrier". A 16x16
// shared-memory tile with register prefetch, whose arithmetic is the contract's (one ascending FMA chain
// per output; the K tail padded with X = +0, W = -0, the exact identity) but whose pipeline lacks the
// barrier between reading a slab and overwriting it with the next: a warp that finishes its 16 steps
// stores the prefetched slab while slower warps of the block still read the old one. The bits are then
// wrong only when the warps' timing makes them so: sometimes, on some shapes, on some runs. It has no
// host twin: a race is a property of the GPU's scheduling, which no host computation reproduces.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/mutants/mutant_arith.h"
#include "kernels/mutants/mutant_internal.h"

namespace ordo::kernels::detail {
namespace {

constexpr int kT = 16;

__device__ __forceinline__ float load(const float* __restrict__ p, int row, int rows, int k, int K, float pad) {
  return row < rows && k < K ? p[static_cast<size_t>(row) * static_cast<size_t>(K) + static_cast<size_t>(k)] : pad;
}

__global__ void __launch_bounds__(256)
    missing_barrier_kernel(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ bias,
                           float* __restrict__ y, int M, int N, int K, unsigned tiles_n) {
  __shared__ float xs[kT][kT + 1];  // xs[m][k]: read only by the warp that owns row m
  __shared__ float ws[kT][kT + 1];  // ws[n][k]: read by every warp: the shared slab the race is on
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int m0 = static_cast<int>(blockIdx.x / tiles_n) * kT, n0 = static_cast<int>(blockIdx.x % tiles_n) * kT;
  float rx = load(x, m0 + ty, M, tx, K, 0.0f);
  float rw = load(w, n0 + ty, N, tx, K, -0.0f);
  xs[ty][tx] = rx;
  ws[ty][tx] = rw;
  __syncthreads();
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kT) {
    const bool more = k0 + kT < K;
    if (more) {  // prefetch the next slab into registers while this one is computed
      rx = load(x, m0 + ty, M, k0 + kT + tx, K, 0.0f);
      rw = load(w, n0 + ty, N, k0 + kT + tx, K, -0.0f);
    }
#pragma unroll
    for (int kk = 0; kk < kT; ++kk) acc = mutants::fma_rn(xs[ty][kk], ws[tx][kk], acc);
    // THE DEFECT: a __syncthreads() belongs here, so that no warp overwrites the slab below while
    // another still reads it in the loop above.
    if (more) {
      xs[ty][tx] = rx;
      ws[ty][tx] = rw;
    }
    __syncthreads();
  }
  const int m = m0 + ty, n = n0 + tx;
  if (m < M && n < N)
    y[static_cast<size_t>(m) * static_cast<size_t>(N) + static_cast<size_t>(n)] =
        bias != nullptr ? mutants::add_rn(acc, bias[n]) : acc;
}

cudaError_t launch_missing_barrier(const LaunchParams& p) {
  const auto tiles_m = static_cast<unsigned>(ceil_div(p.M, kT));
  const auto tiles_n = static_cast<unsigned>(ceil_div(p.N, kT));
  missing_barrier_kernel<<<tiles_m * tiles_n, dim3(kT, kT), 0, p.stream>>>(p.x, p.w, p.bias, p.y, p.M, p.N, p.K,
                                                                           tiles_n);
  return cudaGetLastError();  // the launch's own error, and clears it
}

}  // namespace

VariantEntry missing_barrier_entry() {
  KernelVariant v;
  v.id = "mutant.fwd.f32.smem-missing-barrier";
  v.contract_id = "fwd.f32.fma-chain/1";
  v.tile_m = kT;
  v.tile_n = kT;
  v.tile_k = kT;
  v.threads = kT * kT;
  v.stages = 1;
  v.instruction = "ffma";
  v.sm.min = 80;
  v.is_mutant = true;
  v.description =
      "MUTANT (GPU only): a 16x16 shared-memory tile with register prefetch lacks the barrier between reading a "
      "slab and storing the next over it; the chain is the contract's, so the bits are wrong only when warps race";
  return {v, &launch_missing_barrier};
}

}  // namespace ordo::kernels::detail
