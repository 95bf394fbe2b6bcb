// Deliberately broken variants of contract fwd.f32.fma-chain/1 (registered with is_mutant = true).
// Each claims the contract and violates it in one way; the harness must reject every one of them.
// Same shape as naive16x16: one thread per output, 16x16 thread blocks.
#include <cuda_runtime.h>

#include "kernels/forward_internal.h"
#include "kernels/simple_kernel_launch.h"

namespace ordo::kernels::detail {
namespace {

// mutant.fwd.f32.k-reversed: one chain from +0, but over k descending (K-1 .. 0).
struct KReversedChain {
  __device__ static float compute(const float* xr, const float* wr, int K, const float* b) {
    float acc = 0.0f;
    for (int k = K - 1; k >= 0; --k) acc = __fmaf_rn(xr[k], wr[k], acc);
    return b != nullptr ? __fadd_rn(acc, *b) : acc;
  }
};

// mutant.fwd.f32.k-split-halves: chains over [0, K/2) and [K/2, K), each from +0, joined by __fadd_rn.
struct KSplitHalvesChain {
  __device__ static float compute(const float* xr, const float* wr, int K, const float* b) {
    const int half = K / 2;
    float lo = 0.0f, hi = 0.0f;
    for (int k = 0; k < half; ++k) lo = __fmaf_rn(xr[k], wr[k], lo);
    for (int k = half; k < K; ++k) hi = __fmaf_rn(xr[k], wr[k], hi);
    const float acc = __fadd_rn(lo, hi);
    return b != nullptr ? __fadd_rn(acc, *b) : acc;
  }
};

// mutant.fwd.f32.bias-first: the chain starts from b[n] (or +0 without bias) and nothing is added after.
struct BiasFirstChain {
  __device__ static float compute(const float* xr, const float* wr, int K, const float* b) {
    float acc = b != nullptr ? *b : 0.0f;
    for (int k = 0; k < K; ++k) acc = __fmaf_rn(xr[k], wr[k], acc);
    return acc;
  }
};

}  // namespace

cudaError_t launch_mutant_k_reversed(const LaunchParams& p) {
  return launch_simple_16x16<KReversedChain>(p);
}
cudaError_t launch_mutant_k_split_halves(const LaunchParams& p) {
  return launch_simple_16x16<KSplitHalvesChain>(p);
}
cudaError_t launch_mutant_bias_first(const LaunchParams& p) {
  return launch_simple_16x16<BiasFirstChain>(p);
}

}  // namespace ordo::kernels::detail
