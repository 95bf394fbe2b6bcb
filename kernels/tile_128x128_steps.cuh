#pragma once
// The inner loop of the 128x128x16 FP32 tiles, forward (fwd_f32_simt_128x128x16.cu) and backward
// (bwd_f32_simt_128x128x16.cu): a thread's 8 x 8 chains over half a slab. CUDA sources only.
#include <cuda_runtime.h>

namespace ordo::kernels::detail {

// Eight consecutive steps kk = kFirst .. kFirst+7 of the current slab of kBK steps, in ascending order: per
// step four LDS.128 (this thread's 8 values of A's column kk, rows ty*4 and 64 + ty*4, and 8 of B's, columns
// tx*4 and 64 + tx*4, from shared tiles [kBK][kLd]) and 64 FMAs acc[i][j] = fma(a[i], b[j], acc[i][j]).
template <int kFirst, int kBK, int kLd>
__device__ __forceinline__ void steps_8x8(float (&acc)[8][8], const float* sa, const float* sb, int ty, int tx) {
#pragma unroll
  for (int kk = kFirst; kk < kFirst + kBK / 2; ++kk) {
    const float4 a_lo = *reinterpret_cast<const float4*>(sa + kk * kLd + ty * 4);
    const float4 a_hi = *reinterpret_cast<const float4*>(sa + kk * kLd + 64 + ty * 4);
    const float4 b_lo = *reinterpret_cast<const float4*>(sb + kk * kLd + tx * 4);
    const float4 b_hi = *reinterpret_cast<const float4*>(sb + kk * kLd + 64 + tx * 4);
    const float a[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
    const float b[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = __fmaf_rn(a[i], b[j], acc[i][j]);
  }
}

}  // namespace ordo::kernels::detail
