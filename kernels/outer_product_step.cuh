#pragma once
// One reduction step of an FP32 outer-product tile: a thread reads its TM operands of one staged row and its
// TN of the other, each in as few loads as the width allows (float4s, a float2 or a float), and runs its
// TM x TN FMAs, acc[i][j] = fma(g[i], x[j], acc[i][j]) (each chain's next term, __fmaf_rn: one rounding).
// The dW by-shape tiles (kernels/bwd_dw_f32_simt_by_shape.cu) run their steps with it, and ordo_bench_issue
// (bench/issue_rate.cu) times the same step alone. Plain C++ under the host emulation
// (kernels/host_emulation/cuda_runtime.h defines float2, float4, __fmaf_rn and the qualifiers).
namespace ordo::kernels::detail {

// v = p[0 .. TV-1]; p is aligned to 16 bytes (TV a multiple of 4), 8 (TV = 2) or 4.
template <int TV>
__device__ __forceinline__ void read_vector(float (&v)[TV], const float* p) {
  static_assert(TV == 1 || TV == 2 || TV % 4 == 0, "float4s, a float2 or a float");
  if constexpr (TV % 4 == 0) {
#pragma unroll
    for (int k = 0; k < TV; k += 4) {
      const float4 q = *reinterpret_cast<const float4*>(p + k);
      v[k] = q.x, v[k + 1] = q.y, v[k + 2] = q.z, v[k + 3] = q.w;
    }
  } else if constexpr (TV == 2) {
    const float2 q = *reinterpret_cast<const float2*>(p);
    v[0] = q.x, v[1] = q.y;
  } else {
    v[0] = p[0];
  }
}

// One step: gv = g[0 .. TM-1] (left for the caller, e.g. dW's db chain), x[0 .. TN-1], then the TM x TN FMAs
// row by row.
template <int TM, int TN>
__device__ __forceinline__ void outer_product_step(float (&acc)[TM][TN], float (&gv)[TM], const float* g,
                                                   const float* x) {
  float xv[TN];
  read_vector<TM>(gv, g);
  read_vector<TN>(xv, x);
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = __fmaf_rn(gv[i], xv[j], acc[i][j]);
}

}  // namespace ordo::kernels::detail
