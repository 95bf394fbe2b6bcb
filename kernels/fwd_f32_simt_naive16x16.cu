// Variant "sm80.fwd.f32.fma.simt.naive16x16" of contract fwd.f32.fma-chain/1: one thread per output,
// 16x16 thread blocks, a plain loop over k ascending with __fmaf_rn, bias added once with __fadd_rn.
// It has no shared memory, no padding and no vector loads: it exists to show that the production
// tile's bits are the contract's and do not depend on the tile.
#include <cuda_runtime.h>

#include "kernels/forward_internal.h"
#include "kernels/simple_kernel_launch.h"

namespace ordo::kernels::detail {
namespace {

// The contract's chain, written plainly.
struct ContractChain {
  __device__ static float compute(const float* xr, const float* wr, int K, const float* b) {
    float acc = 0.0f;  // +0
    for (int k = 0; k < K; ++k) acc = __fmaf_rn(xr[k], wr[k], acc);
    return b != nullptr ? __fadd_rn(acc, *b) : acc;
  }
};

}  // namespace

cudaError_t launch_fwd_f32_simt_naive16x16(const LaunchParams& p) {
  return launch_simple_16x16<ContractChain>(p);
}

}  // namespace ordo::kernels::detail
